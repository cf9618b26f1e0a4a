"""A judge checked on items that all carry one label cannot qualify: kappa is undefined there, so agreement
alone (which a judge giving that label to everything reaches) must not clear the bar."""

from __future__ import annotations

import pytest

from auditpacks.judges.trust.judge_items import FAIL, GOLD, PASS, CalibrationItem, longer
from auditpacks.judges.trust.qualification import BAR, assess

SCENARIO = {"name": "s", "test_prompt": "q"}
KINDS = {PASS: [GOLD, "reference answer, paraphrased"], FAIL: ["wrong answer", "unsupported citation"]}


@pytest.mark.parametrize("kinds", [1, 2])
@pytest.mark.parametrize("label", [PASS, FAIL])
def test_a_judge_agreeing_on_items_of_one_label_is_not_qualified_for_want_of_kappa(label, kinds):
    core = [CalibrationItem(f"{kind}-{i}", kind, label, SCENARIO, ("a",))
            for kind in KINDS[label][:kinds] for i in range(30 // kinds)]
    items = core + [longer(item) for item in core]
    result = assess(items, {item.id: label for item in items})
    # every other figure clears the bar: 30 of 30 (or 15 of 15) agree, Wilson lower bound n / (n + 1.96²)
    n = 30 // kinds
    for row in result["expectations"]:
        assert (row["agree"], row["graded"]) == (n, n)
        assert row["wilson95"][0] == pytest.approx(n / (n + 1.959964 ** 2), abs=1e-4)
        assert row["wilson95"][0] > BAR["agreement_lower"]
    assert result["ungraded"] == 0 and [row["flips"] for row in result["bias"]] == [0]
    assert result["kappa"] is None
    assert result["qualified"] is False
    assert result["reasons"] == [f"Cohen's kappa undefined is under {BAR['kappa']}"]


@pytest.mark.parametrize("label", [PASS, FAIL])
def test_one_label_with_one_disagreement_gives_kappa_zero_and_is_not_qualified(label):
    other = FAIL if label == PASS else PASS
    core = [CalibrationItem(f"i{i}", GOLD if label == PASS else "wrong answer", label, SCENARIO, ("a",))
            for i in range(30)]
    verdicts = {item.id: label for item in core} | {"i0": other}
    result = assess(core, verdicts)
    # known all one label: pe = 1 · 29/30 = po, so kappa = (po - pe) / (1 - pe) = 0
    assert result["kappa"] == pytest.approx(0.0)
    assert result["qualified"] is False
    assert any("Cohen's kappa 0.00" in reason for reason in result["reasons"])
