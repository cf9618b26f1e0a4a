"""The qualification figures and the gate, on verdicts whose figures are computed by hand (Wilson intervals by
scipy's binomtest, kappa by hand)."""

from __future__ import annotations

import pytest
from scipy.stats import binomtest

from auditpacks.judges.trust.judge_items import FAIL, GOLD, PASS, CalibrationItem, longer
from auditpacks.judges.trust.qualification import BAR, assess, kappa, verdict_of

SCENARIO = {"name": "s", "test_prompt": "q"}


def items() -> list[CalibrationItem]:
    gold = [CalibrationItem(f"g{i}", GOLD, PASS, SCENARIO, ("a",)) for i in range(4)]
    wrong = [CalibrationItem(f"w{i}", "wrong answer", FAIL, SCENARIO, ("b",), violates=1) for i in range(4)]
    return gold + wrong + [longer(gold[0]), longer(wrong[0]), longer(wrong[3])]


VERDICTS = {"g0": "pass", "g1": "pass", "g2": "pass", "g3": "fail",
            "w0": "fail", "w1": "fail", "w2": "pass", "w3": None,
            "g0 · longer": "fail", "w0 · longer": "fail", "w3 · longer": "fail"}


def wilson(k: int, n: int) -> list[float]:
    ci = binomtest(k, n).proportion_ci(method="wilson")
    return [ci.low, ci.high]


def test_agreement_per_kind_with_wilson_intervals():
    result = assess(items(), VERDICTS)
    gold, wrong = result["expectations"]
    assert (gold["kind"], gold["expected"], gold["items"], gold["graded"], gold["agree"]) == (GOLD, PASS, 4, 4, 3)
    assert gold["agreement"] == 0.75 and gold["wilson95"] == pytest.approx(wilson(3, 4), abs=1e-4)
    assert (wrong["graded"], wrong["agree"], wrong["violates"]) == (3, 2, 1)
    assert wrong["wilson95"] == pytest.approx(wilson(2, 3), abs=1e-4)


def test_kappa_ungraded_share_and_flips():
    result = assess(items(), VERDICTS)
    # graded core: known P P P P F F F, judged P P P F F F P: po = 5/7, pe = (4/7)^2 + (3/7)^2 = 25/49
    assert result["kappa"] == pytest.approx((5 / 7 - 25 / 49) / (1 - 25 / 49))
    assert (result["ungraded"], result["items"]) == (1, 11) and result["ungraded_share"] == pytest.approx(1 / 11)
    (probe,) = result["bias"]
    # g0 pass → fail flips; w0 fail → fail holds; w3's base is ungraded, so that pair is left out
    assert (probe["probe"], probe["pairs"], probe["flips"], probe["flip_rate"]) == ("longer", 2, 1, 0.5)
    assert probe["directions"] == {"pass → fail": 1}
    assert probe["wilson95"] == pytest.approx(wilson(1, 2), abs=1e-4)


def test_a_judge_below_the_bar_is_not_qualified_and_each_shortfall_is_a_reason():
    result = assess(items(), VERDICTS)
    assert result["qualified"] is False and result["bar"] == BAR
    text = "\n".join(result["reasons"])
    assert f"agreement on '{GOLD}'" in text and "kappa 0.42" in text
    assert "ungraded" not in text  # 1 of 11 is 9%, within the bar's 10%
    assert "'longer' probe flipped 1 of 2" in text


def test_a_judge_that_agrees_everywhere_clears_the_bar():
    many = [CalibrationItem(f"g{i}", GOLD, PASS, SCENARIO, ("a",)) for i in range(12)]
    many += [CalibrationItem(f"w{i}", "wrong answer", FAIL, SCENARIO, ("b",)) for i in range(12)]
    many += [longer(item) for item in many]
    verdicts = {item.id: item.expected for item in many}
    result = assess(many, verdicts)
    assert result["qualified"] is True and result["reasons"] == [] and result["kappa"] == 1.0
    low = result["expectations"][0]["wilson95"][0]
    assert low == pytest.approx(wilson(12, 12)[0], abs=1e-4) and low > BAR["agreement_lower"]


def test_too_few_items_cannot_qualify_even_when_all_agree():
    few = [CalibrationItem("g", GOLD, PASS, SCENARIO, ("a",)), CalibrationItem("w", "x", FAIL, SCENARIO, ("b",))]
    result = assess(few, {"g": "pass", "w": "fail"})
    assert result["qualified"] is False  # 1/1 has a Wilson lower bound of 0.21
    assert assess([], {})["reasons"] == ["no calibration item could be built from this pack"]


def test_kappa_is_undefined_when_both_sides_never_vary_and_verdicts_map_from_severities():
    assert kappa(["pass", "pass"], ["pass", "pass"]) is None and kappa([], []) is None
    assert kappa(["pass", "fail"], ["pass", "pass"]) == 0.0
    assert [verdict_of(s) for s in ("pass", "low", "critical", "ungraded", "ERROR", None)] == \
        ["pass", "fail", "fail", None, None, None]


def test_probes_not_made_from_every_item_are_listed_with_why():
    """Three of the eight items have a ``longer`` probe; no prompt lists options, so none is reordered."""
    why = "the prompt lists no options to reorder, so option-order bias is not measured"
    result = assess(items(), VERDICTS)
    assert result["skipped_probes"] == [{"probe": "longer", "skipped": 5, "of": 8, "why": ""},
                                        {"probe": "reordered", "skipped": 8, "of": 8, "why": why}]
    assert result["not_measured"] == ["'longer' probe skipped on 5 of 8 items: ",
                                      f"'reordered' probe skipped on 8 of 8 items: {why}"]
