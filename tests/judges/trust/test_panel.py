"""Panel figures on verdict tables whose aggregates and agreement are computed by hand."""

from __future__ import annotations

import pytest

from auditpacks.judges.trust.panel import TIE, alpha, disagreement_lines, majority, panel_figures, weighted


def test_majority_and_a_tie():
    assert majority(["pass", "fail", "pass"]) == "pass" and majority(["fail", None]) == "fail"
    assert majority(["pass", "fail"]) == TIE and majority([None, None]) is None


def test_weighted_by_qualification():
    # a qualified judge (1) outweighs an unchecked one (0.5); a judge not qualified (0) counts for nothing
    assert weighted(["pass", "fail"], ["qualified", "unchecked"]) == "pass"
    assert weighted(["pass", "fail", "fail"], ["not qualified", "unchecked", "unchecked"]) == "fail"
    assert weighted(["pass", "fail", "fail"], ["qualified", "unchecked", "unchecked"]) == TIE
    # when every judge that graded weighs 0, each weighs 1
    assert weighted(["pass", "pass", "fail"], ["not qualified"] * 3) == "pass"


def test_krippendorff_alpha_by_hand():
    # 15 scenarios, three judges: fail, pass, fail on each. Coincidences: o_ff = o_fp = o_pf = 15, o_pp = 0;
    # n = 45, n_f = 30, n_p = 15; D_o = 30/45, D_e = 2·30·15/(45·44); alpha = 1 - D_o/D_e
    table = [["fail"] * 15, ["pass"] * 15, ["fail"] * 15]
    assert alpha(table) == pytest.approx(1 - (30 / 45) / (2 * 30 * 15 / (45 * 44)))
    assert alpha([["pass", "fail"], ["pass", "fail"]]) == pytest.approx(1.0)
    assert alpha([["pass", "pass"], ["pass", "pass"]]) is None      # no variation: undefined
    assert alpha([["pass", None], [None, "fail"]]) is None          # no scenario graded twice
    assert alpha([["pass", "fail"]]) is None                         # one judge


def test_figures_list_the_disagreements_and_pairwise_kappa():
    names = ["a", "b", "c", "d"]
    table = [["pass", "fail", "pass", None], ["pass", "pass", "fail", "fail"]]
    figures = panel_figures(names, ["j1", "j2"], table, ["qualified", "unchecked"])
    assert [row["scenario"] for row in figures["disagreements"]] == ["b", "c"]
    assert figures["disagreements"][0]["verdicts"] == {"j1": "fail", "j2": "pass"}
    (pair,) = figures["pairwise_kappa"]
    # over a, b, c: j1 P F P, j2 P P F: po = 1/3, pe = (2/3)(2/3) + (1/3)(1/3) = 5/9
    assert (pair["scenarios"], pair["agree"]) == (3, 1)
    assert pair["kappa"] == pytest.approx((1 / 3 - 5 / 9) / (1 - 5 / 9))
    assert figures["majority"] == {"pass": 1, TIE: 2, "fail": 1}
    assert figures["weighted"] == {"pass": 2, "fail": 2}
    assert disagreement_lines(figures, at_most=1) == ["judges disagree on b: j1 fail, j2 pass",
                                                      "judges disagree on 1 more scenarios (see the run file)"]


def test_a_judge_of_unknown_standing_weighs_as_unchecked():
    # 0.5 against a qualified judge's 1; two of them tie with it
    assert weighted(["pass", "fail"], ["qualified", "retired"]) == "pass"
    assert weighted(["pass", "fail", "fail"], ["qualified", "retired", ""]) == TIE
