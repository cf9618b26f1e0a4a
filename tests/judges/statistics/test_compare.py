"""Paired comparisons: the statistics on hand-worked examples, and ``auditpacks compare`` on runs written by hand."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from auditpacks.judges.statistics.compare import compare_choices, compare_f1, compare_ratios, mcnemar_exact
from auditpacks.runner.cli.main import main
from tests.support.hand_runs import choice_result, error_result, write_run
from tests.support.tiny_pack import write_pack

# 24 tiny scenarios, two per judgment (V0000…V0011), question q{i % 5}.
N = 24
#: Run B misses the first scenario of judgments V0000…V0008: 9 tasks, all right in run A.
B_WRONG = {0, 2, 4, 6, 8, 10, 12, 14, 16}


@pytest.fixture()
def pack(tmp_path) -> Path:
    return write_pack(tmp_path / "tiny.json", N, per_document=2)


def scenarios(pack: Path) -> list[dict]:
    return json.loads(pack.read_text(encoding="utf-8"))


def wrong_key(scenario: dict) -> str:
    return next(k for k in scenario["decision"]["criteria"] if k not in scenario["decision"]["accepted"])


def runs(tmp_path: Path, pack: Path, *, b_wrong=B_WRONG, drop_b=()) -> tuple[Path, Path]:
    items = scenarios(pack)
    a = write_run(tmp_path / "runs", "model-a", pack, "choice_match",
                  [choice_result(s, s["decision"]["accepted"][0]) for s in items])
    b = write_run(tmp_path / "runs", "model-b", pack, "choice_match",
                  [choice_result(s, wrong_key(s) if i in b_wrong else s["decision"]["accepted"][0])
                   for i, s in enumerate(items) if i not in drop_b])
    return a, b


def compare_json(capsys, *argv: str) -> dict:
    assert main(["compare", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)[0]


def figure(comparison: dict, name: str) -> dict:
    return next(f for f in comparison["figures"] if f["figure"] == name)


def test_mcnemar_exact_is_the_two_sided_binomial_on_discordant_pairs():
    assert mcnemar_exact(9, 0) == pytest.approx(2 * 0.5 ** 9)
    assert mcnemar_exact(2, 1) == pytest.approx(1.0)
    assert mcnemar_exact(0, 0) is None


def test_planted_difference_has_the_right_sign_and_an_interval_excluding_zero(tmp_path, pack, capsys):
    a, b = runs(tmp_path, pack)
    c = compare_json(capsys, str(a), str(b))
    micro, macro = figure(c, "micro agreement"), figure(c, "macro agreement")
    # A: 24/24; B: 15/24 → +0.375. Macro: B per question 3/5, 3/5, 3/5, 4/5, 2/4 → 0.62, so +0.38.
    assert micro["a"] == 1.0 and micro["b"] == pytest.approx(15 / 24)
    assert micro["diff"] == pytest.approx(0.375) and micro["ci"][0] > 0
    assert macro["b"] == pytest.approx(0.62) and macro["diff"] == pytest.approx(0.38) and macro["ci"][0] > 0
    assert micro["p"] == pytest.approx(2 * 0.5 ** 9)
    assert figure(c, "discordant tasks")["a"] == 9 and figure(c, "discordant tasks")["b"] == 0
    assert len(c["disagreements"]) == 9
    reverse = compare_json(capsys, str(b), str(a))
    assert figure(reverse, "micro agreement")["diff"] == pytest.approx(-0.375)
    assert figure(reverse, "micro agreement")["ci"][1] < 0


def test_identical_runs_differ_by_zero_with_an_interval_containing_zero(tmp_path, pack, capsys):
    a, b = runs(tmp_path, pack, b_wrong=set())
    c = compare_json(capsys, str(a), str(b))
    for name in ("micro agreement", "macro agreement"):
        f = figure(c, name)
        assert f["diff"] == 0 and f["ci"][0] <= 0 <= f["ci"][1]
    assert figure(c, "micro agreement")["p"] is None and c["disagreements"] == []


def test_table_on_stdout(tmp_path, pack, capsys):
    a, b = runs(tmp_path, pack)
    assert main(["compare", str(a), str(b)]) == 0
    out = capsys.readouterr().out
    assert "micro agreement" in out and "+37.5%" in out and "9 scenario(s) where the runs disagree" in out


def test_different_scenario_sets_are_intersected_with_a_warning(tmp_path, pack, capsys):
    a, b = runs(tmp_path, pack, drop_b={1, 3})
    c = compare_json(capsys, str(a), str(b))
    assert (c["scenarios"], c["paired"], c["only_a"], c["only_b"]) == (22, 22, 2, 0)
    assert c["warnings"] == ["the runs cover different scenarios: compared on the 22 both ran (2 only in A, 0 only in B)"]


def test_errors_leave_the_pairing_and_are_counted(tmp_path, pack, capsys):
    items = scenarios(pack)
    a, _ = runs(tmp_path, pack)
    b = write_run(tmp_path / "other", "model-b", pack, "choice_match",
                  [error_result(s) if i < 4 else choice_result(s, s["decision"]["accepted"][0])
                   for i, s in enumerate(items)])
    c = compare_json(capsys, str(a), str(b))
    assert c["errors"] == 4 and c["paired"] == 20 and figure(c, "micro agreement")["diff"] == 0


def test_runs_of_different_packs_are_refused(tmp_path, pack, capsys):
    a, _ = runs(tmp_path, pack)
    other = write_pack(tmp_path / "other.json", 6)
    b = write_run(tmp_path / "other", "model-b", other, "choice_match",
                  [choice_result(s, s["decision"]["accepted"][0]) for s in scenarios(other)])
    assert main(["compare", str(a), str(b)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "different packs" in err and "Traceback" not in err


def test_ratio_difference_pairs_questions():
    rows = [{"cluster": "q1", "a": (1, 4), "b": (0, 4)}, {"cluster": "q2", "a": (1, 2), "b": (0, 2)}]
    out = compare_ratios(rows)
    assert out["a"] == pytest.approx(2 / 6) and out["b"] == 0 and out["diff"] == pytest.approx(1 / 3)
    assert out["ci"][0] > 0  # every draw has A above B
    same = compare_ratios([{**r, "b": r["a"]} for r in rows])
    assert same["diff"] == 0 and same["ci"] == [0.0, 0.0]


def test_f1_difference_pools_counts_per_replicate():
    zero = {"tp": 0, "fp": 0, "fn": 0}
    rows = [{"cluster": "t1", "a": {"case_ids": {"tp": 2, "fp": 0, "fn": 0}, "other": zero},
             "b": {"case_ids": {"tp": 0, "fp": 1, "fn": 2}, "other": zero}},
            {"cluster": "t2", "a": {"case_ids": {"tp": 1, "fp": 1, "fn": 0}, "other": zero},
             "b": {"case_ids": {"tp": 0, "fp": 0, "fn": 1}, "other": zero}}]
    out = compare_f1(rows, ("case_ids", "other"))
    # A: 2·3 / (2·3 + 1 + 0) = 6/7; B: 0; nothing to cite in "other": F1 0 for both (the card's rule).
    assert out["case_ids"]["a"] == pytest.approx(6 / 7) and out["case_ids"]["b"] == 0
    assert out["case_ids"]["diff"] == pytest.approx(6 / 7) and out["case_ids"]["ci"][0] > 0
    assert out["other"]["diff"] == 0


def test_choice_statistics_by_hand():
    rows = [{"cluster": "d1", "question": "q", "a": True, "b": False},
            {"cluster": "d2", "question": "q", "a": True, "b": True}]
    out = compare_choices(rows)
    assert out["micro"]["diff"] == pytest.approx(0.5) and (out["a_only"], out["b_only"]) == (1, 0)
    assert out["mcnemar_p"] == pytest.approx(1.0)


def test_report_has_a_comparison_section_and_escapes_model_text(tmp_path, pack, capsys):
    items = scenarios(pack)
    a, b = runs(tmp_path, pack)
    xss = "<script>alert(1)</script><img src=x onerror=alert(2)>"
    results = json.loads(a.with_name("model-a.json").read_text(encoding="utf-8"))
    results["results"][0] = choice_result(items[0], items[0]["decision"]["accepted"][0], reply=xss)
    a.with_name("model-a.json").write_text(json.dumps(results), encoding="utf-8")
    html, md = tmp_path / "report.html", tmp_path / "report.md"
    assert main(["compare", str(a), str(b), "--report", str(html)]) == 0
    text = html.read_text(encoding="utf-8")
    assert "Comparisons" in text and "+37.5%" in text and xss not in text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text
    assert main(["report", str(a), str(b), "--format", "md", "--out", str(md)]) == 0
    lines = md.read_text(encoding="utf-8")
    assert "| micro agreement | 100.0% | 62.5% | +37.5% |" in lines and "<script>" not in lines
    capsys.readouterr()
    assert main(["report", str(a), "--format", "md"]) == 0
    assert "| model-a · tiny.json | agreement (micro) | 100.0% |" in capsys.readouterr().out
    assert main(["report", str(b), "--format", "md"]) == 0
    per_question = capsys.readouterr().out  # run B: q0 3/5 right (2 of its 5 judgments missed), q4 2/4
    assert "| q0 | 5 | 3 | 60.0% |" in per_question and "| q4 | 4 | 2 | 50.0% |" in per_question


def test_report_of_a_repeated_run_shows_each_round_and_each_scenarios_stability(tmp_path, pack):
    items = scenarios(pack)
    right = [choice_result(s, s["decision"]["accepted"][0]) for s in items]
    second = [choice_result(s, wrong_key(s)) if i == 0 else r for i, (s, r) in enumerate(zip(items, right))]
    record = write_run(tmp_path / "runs", "model-r", pack, "choice_match", right, second)
    out = tmp_path / "report.html"
    assert main(["report", str(record), "--out", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    assert "Per round" in text and "Across rounds: correct, wrong" in text
    # round 1: 24/24; round 2: 23/24 = 95.8%
    assert ">100.0% [" in text and ">95.8% [" in text
