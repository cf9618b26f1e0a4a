"""The checklist headline and its summary rows: counts, the pass rate over graded scenarios, reasons."""

from __future__ import annotations

import pytest

from auditpacks.judges.checklist import figures, headline, judge_check_figures
from auditpacks.judges.reader import Reader


def result(severity, statuses=(), **judgment):
    items = [{"status": s} for s in statuses]
    return {"severity": severity, "judgment": {"checklist": items, **judgment}}


PAIRS = [
    ({}, result("pass", ["met", "met"])),
    ({}, result("pass", ["not_applicable", "not_applicable"], all_not_applicable=True)),
    ({}, result("high", ["violated", "met"])),
    ({}, result("ungraded", ungraded_reason="the judge's reply is not valid JSON; the reply stopped at the cap")),
    ({}, result("ERROR")),
    ({}, None),  # skipped
]


def test_headline_counts_by_hand():
    h = headline(PAIRS)
    assert h["verdicts"] == {"pass": 2, "high": 1, "ungraded": 1, "ERROR": 1, "skipped": 1}
    assert h["checklist items"] == {"met": 3, "not_applicable": 2, "violated": 1}
    assert h["graded"] == 3 and h["pass_rate"] == pytest.approx(2 / 3)
    # Wilson 95% for 2 of 3, worked by hand: centre 0.5731, half-width 0.3654
    assert h["pass_wilson95"] == pytest.approx([0.2077, 0.9385], abs=5e-4)
    assert h["all_not_applicable"] == 1
    assert h["ungraded"] == {"the judge's reply is not valid JSON; the reply stopped at the cap": 1}


def test_nothing_graded_has_no_rate():
    h = headline([({}, result("ungraded", ungraded_reason="x")), ({}, result("ERROR"))])
    assert h["graded"] == 0 and h["pass_rate"] is None and h["pass_wilson95"] is None


def test_rows_say_what_each_count_means():
    rows = {f.name: f for f in Reader.of("checklist").figures(headline(PAIRS))}
    assert rows["pass rate"].value == pytest.approx(2 / 3) and rows["pass rate"].interval_name == "95% Wilson interval"
    assert "3 graded" in rows["pass rate"].meaning
    assert rows["verdict high"].value == 1 and rows["verdict high"].meaning
    assert rows["nothing applicable"].value == 1
    assert rows["expectations violated"].value == 1
    reason = rows["ungraded"]
    assert reason.value == 1 and reason.meaning.startswith("the judge's reply is not valid JSON")
    assert all(f.meaning for f in rows.values())


def test_judge_checks_read_as_disagreement_and_panel_agreement():
    """Disagreement with a code grader is a rate (lower is better) with its interval; a panel's alpha a ratio."""
    h = {"judge_vs_code": [{"grader": "citations", "expectation": 2, "rate": 0.25, "wilson95": [0.1, 0.5],
                            "disagree": 1, "compared": 4}, "not a row"],
         "panel": {"krippendorff_alpha": 0.8, "judges": ["a", "b", "c"], "disagreements": ["s1", "s2"],
                   "scenarios": 10}}
    rows = judge_check_figures(h)
    assert [(f.name, f.value, f.unit, f.interval, f.interval_name, f.better, f.meaning) for f in rows] == [
        ("judge vs citations disagreement", 0.25, "%", (0.1, 0.5), "95% Wilson interval", "lower",
         "expectation 2: the judge's status differs from the code's verdict (1 of 4 compared)"),
        ("panel agreement (Krippendorff's alpha)", 0.8, "ratio", None, None, "higher",
         "3 judges over 10 scenarios; 2 scenarios where they disagree")]
    assert figures({**headline(PAIRS), **h})[-2:] == rows   # after the checklist's own rows


def test_each_count_row_is_a_count_with_its_meaning():
    """Below the pass rate and verdicts: nothing applicable, items by status (an unknown status by its name),
    then each ungraded reason; a headline of another shape reads as its numeric leaves."""
    h = {"checklist items": {"not_applicable": 2, "odd": 1}, "verdicts": {}, "graded": 0, "pass_rate": None,
         "all_not_applicable": 1, "ungraded": {"no JSON": 3}}
    assert [(f.name, f.value, f.unit, f.meaning) for f in figures(h)][1:] == [
        ("nothing applicable", 1, "count", "scenarios in which the judge found no required expectation applicable "
                                           "(ungraded): check the judge"),
        ("expectations not applicable", 2, "count", "checklist items the judge marked so, over all scenarios"),
        ("expectations odd", 1, "count", "checklist items the judge marked so, over all scenarios"),
        ("ungraded", 3, "count", "no JSON")]
    assert [(f.name, f.value, f.unit) for f in figures({"agreement": {"tasks": 4}})] == [("agreement tasks", 4, "count")]


@pytest.mark.parametrize("h, meanings", [
    ({}, []),
    ({"panel": "not a panel", "judge_vs_code": None}, []),
    ({"judge_vs_code": [{"grader": "g"}], "panel": {}},
     ["expectation None: the judge's status differs from the code's verdict (0 of 0 compared)",
      "0 judges over 0 scenarios; 0 scenarios where they disagree"]),
])
def test_judge_checks_without_counts(h, meanings):
    assert [f.meaning for f in judge_check_figures(h)] == meanings
