"""A three-judge panel's figures in full, worked out by hand, and the lines the run's summary prints of them."""

from __future__ import annotations

import warnings

import pytest

from auditpacks.judges.trust.panel import alpha, disagreement_lines, panel_figures, summary_line

JUDGES = ["j1", "j2", "j3"]
STATUSES = ["qualified", "not qualified", "unchecked"]
# s3 graded by no judge
TABLE = [["pass", "fail", None], ["fail", "fail", None], ["fail", "pass", None]]


def test_a_panels_figures_by_hand():
    figures = panel_figures(["s1", "s2", "s3"], JUDGES, TABLE, STATUSES)
    # kappa per pair over the scenarios both graded (s1, s2): j1 P F vs j2 F F: po 1/2, pe 1/2·0 + 1/2·1 → 0;
    # j1 P F vs j3 F P: po 0, pe 1/2 → -1; j2 F F vs j3 F P: po 1/2, pe 1/2 → 0.
    # alpha: s1 and s2 each hold one pass and two fails: o_pf = o_fp = o_ff = 2, n = 6 (n_p 2, n_f 4);
    # D_o = 4/6, D_e = 2·2·4 / (6·5) → alpha = 1 - (4/6) / (16/30) = -0.25
    assert figures == {
        "judges": [{"model": "j1", "qualification": "qualified"}, {"model": "j2", "qualification": "not qualified"},
                   {"model": "j3", "qualification": "unchecked"}],
        "scenarios": 3,
        "majority": {"fail": 2, "ungraded": 1},
        # s1: pass 1 (qualified) against fail 0 + 0.5; s2: fail 1 + 0 against pass 0.5
        "weighted": {"pass": 1, "fail": 1, "ungraded": 1},
        "krippendorff_alpha": pytest.approx(-0.25),
        "pairwise_kappa": [{"judges": ["j1", "j2"], "scenarios": 2, "agree": 1, "kappa": pytest.approx(0.0)},
                           {"judges": ["j1", "j3"], "scenarios": 2, "agree": 0, "kappa": pytest.approx(-1.0)},
                           {"judges": ["j2", "j3"], "scenarios": 2, "agree": 1, "kappa": pytest.approx(0.0)}],
        "disagreements": [{"scenario": "s1", "verdicts": {"j1": "pass", "j2": "fail", "j3": "fail"}},
                          {"scenario": "s2", "verdicts": {"j1": "fail", "j2": "fail", "j3": "pass"}}],
    }
    assert summary_line(figures) == (
        "judge panel of 3: Krippendorff's alpha -0.25; judges disagree on 2 of 3 scenarios (listed in the run file "
        "under summary.headline.panel.disagreements)")


def test_a_panel_with_undefined_agreement_says_so():
    figures = panel_figures(["s1"], ["j1", "j2"], [["pass"], ["pass"]], ["qualified", "qualified"])
    assert summary_line(figures) == (
        "judge panel of 2: Krippendorff's alpha undefined; judges disagree on 0 of 1 scenarios (listed in the run "
        "file under summary.headline.panel.disagreements)")


def test_alpha_counts_only_scenarios_two_judges_graded():
    # one scenario graded by both, in disagreement: o_pf = o_fp = 1, n = 2; D_o = 1, D_e = 2·1·1 / (2·1) → 0
    assert alpha([["pass", None], ["fail", None]]) == pytest.approx(0.0)
    # the only pairable scenario has one value twice; the fail was graded by one judge only: undefined, not NaN
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)   # krippendorff divides 0 by 0 here
        assert alpha([["pass", "fail"], ["pass", None]]) is None


def test_disagreement_lines_name_an_ungraded_verdict_and_stop_at_the_limit():
    rows = [{"scenario": f"s{i}", "verdicts": {"j1": "pass", "j2": None, "j3": "fail"}} for i in range(51)]
    assert disagreement_lines({"disagreements": rows[:1]}) == ["judges disagree on s0: j1 pass, j2 ungraded, j3 fail"]
    assert len(disagreement_lines({"disagreements": rows[:50]})) == 50       # 50 shown by default, no more line
    assert disagreement_lines({"disagreements": rows})[-1] == "judges disagree on 1 more scenarios (see the run file)"
    assert disagreement_lines({"disagreements": rows[:2]}, at_most=2)[-1].startswith("judges disagree on s1:")
