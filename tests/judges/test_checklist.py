"""The checklist headline and its summary rows: counts, the pass rate over graded scenarios, reasons."""

from __future__ import annotations

import pytest

from auditpacks.judges.checklist import headline
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
