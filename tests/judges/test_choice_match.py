"""simpleaudit's ``choice_match`` judge: its own headline (the pass rate over graded scenarios) and its figures."""

from __future__ import annotations

import pytest

from auditpacks.judges import choice_match

SCENARIO = {"name": "GUILTY - x"}


def test_headline_is_the_pass_rate_over_graded_scenarios():
    """A skipped scenario (no result) and an ungraded one count as verdicts but not as graded."""
    pairs = [(SCENARIO, {"severity": "pass"}), (SCENARIO, {"severity": "high"}), (SCENARIO, None),
             (SCENARIO, {"severity": "ungraded"})]
    head = choice_match.headline(pairs)
    assert head["verdicts"] == {"pass": 1, "high": 1, "skipped": 1, "ungraded": 1}
    assert head["graded"] == 2 and head["pass_rate"] == 0.5
    # Wilson 95% for 1 of 2: 0.5 ± 1.96·sqrt(0.125 + 0.9604/4)/(1 + 1.9208)
    assert head["pass_wilson95"] == pytest.approx([0.0945, 0.9055], abs=1e-4)


def test_figures_show_the_pass_rate_and_each_verdict():
    found = choice_match.figures({"verdicts": {"pass": 1, "high": 1}, "graded": 2, "pass_rate": 0.5,
                                  "pass_wilson95": [0.1, 0.9]})
    assert [(f.name, f.value, f.unit) for f in found] == [("pass rate", 0.5, "%"), ("verdict pass", 1, "count"),
                                                          ("verdict high", 1, "count")]
    assert found[0].interval == (0.1, 0.9) and found[0].better == "higher" and "2 graded" in found[0].meaning
