"""The qualification bar's edges: a figure exactly at the bar clears it, a share over it is one reason worded in
full, and kinds or probes with nothing graded have no rate instead of failing."""

from __future__ import annotations

import pytest

from auditpacks.judges.trust.judge_items import FAIL, GOLD, PASS, CalibrationItem, longer
from auditpacks.judges.trust.qualification import BAR, assess

SCENARIO = {"name": "s", "test_prompt": "q"}


def items(n: int = 10) -> list[CalibrationItem]:
    core = [CalibrationItem(f"g{i}", GOLD, PASS, SCENARIO, ("a",)) for i in range(n)]
    core += [CalibrationItem(f"w{i}", "wrong answer", FAIL, SCENARIO, ("b",)) for i in range(n)]
    return core + [longer(item) for item in core]


def right(all_items) -> dict[str, str]:
    return {item.id: item.expected for item in all_items}


def test_figures_exactly_at_the_bar_clear_it():
    many = items()
    verdicts = right(many) | {"g0 · longer": FAIL}          # one flip, agreement everywhere
    first = assess(many, verdicts)
    at = {"agreement_lower": min(r["wilson95"][0] for r in first["expectations"]), "kappa": first["kappa"],
          "ungraded_share": first["ungraded_share"], "flip_upper": first["bias"][0]["wilson95"][1]}
    assert first["kappa"] == 1.0 and first["ungraded_share"] == 0.0
    result = assess(many, verdicts, bar=at)
    assert result["qualified"] is True and result["reasons"] == []


def test_a_share_left_ungraded_over_the_bar_is_one_reason_in_full():
    many = items()
    verdicts = right(many) | {"g1": None, "w2": None, "g3 · longer": None, "w4 · longer": None, "w5": None}
    result = assess(many, verdicts)
    assert (result["ungraded"], result["items"], result["ungraded_share"]) == (5, 40, 0.125)
    assert "5 of 40 items left ungraded (12%, over 10%)" in result["reasons"]
    assert not result["qualified"]


def test_a_kind_or_probe_with_nothing_graded_has_no_rate():
    many = items(3)
    verdicts = right(many) | {f"g{i}": None for i in range(3)}
    result = assess(many, verdicts)
    gold = result["expectations"][0]
    assert (gold["graded"], gold["agree"], gold["agreement"], gold["wilson95"]) == (0, 0, None, [0.0, 1.0])
    probe = result["bias"][0]
    assert (probe["pairs"], probe["flips"]) == (3, 0)   # the wrong answers' pairs still count
    none = assess(many, {item.id: None for item in many})["bias"][0]
    assert (none["pairs"], none["flip_rate"], none["wilson95"]) == (0, None, [0.0, 1.0])
    assert not result["qualified"] and BAR["agreement_lower"] > 0


def test_flips_are_counted_per_direction():
    many = items(4)
    verdicts = right(many) | {"g0 · longer": FAIL, "g1 · longer": FAIL, "w0 · longer": PASS}
    (probe,) = assess(many, verdicts)["bias"]
    assert (probe["pairs"], probe["flips"]) == (8, 3) and probe["flip_rate"] == pytest.approx(3 / 8)
    assert probe["directions"] == {"pass → fail": 2, "fail → pass": 1}
