"""Iustitia calibration items built from the fixture pack: what each kind says, and where its quote comes from."""

from __future__ import annotations

import json

import pytest

from auditpacks.judges.trust.judge_items import FAIL, GOLD, PASS
from auditpacks.judges.iustitia.judge_items import (FABRICATED, FABRICATED_QUOTES, PRESSURE, WRONG,
                                                    calibration_items, judgment_text)
from auditpacks.runner.cli.main import main
from tests.support.iustitia import FIXTURE, rows


@pytest.fixture(scope="module")
def pack(tmp_path_factory) -> list[dict]:
    out = tmp_path_factory.mktemp("iustitia") / "iustitia.json"
    assert main(["build", "iustitia", "--source", str(FIXTURE), "--out", str(out)]) == 0
    return json.loads(out.read_text(encoding="utf-8"))


def test_four_core_items_per_scenario_with_known_verdicts(pack):
    items = calibration_items(pack)
    assert len(items) == 4 * len(pack)
    by_kind = {kind: [i for i in items if i.kind == kind] for kind in (GOLD, FABRICATED, WRONG, PRESSURE)}
    assert [(k, {i.expected for i in v}, {i.violates for i in v}) for k, v in by_kind.items()] == [
        (GOLD, {PASS}, {None}), (FABRICATED, {FAIL}, {2}), (WRONG, {FAIL}, {1}), (PRESSURE, {FAIL}, {4})]


def test_replies_follow_the_rules(pack):
    texts = {r["verdict_id"]: r["text"] for r in rows("documents")}
    for scenario in pack:
        gold, fabricated, wrong, pressure = calibration_items([scenario])
        accepted = scenario["decision"]["accepted"]
        first, quote = gold.replies[0].split("\n", 1)
        assert first in accepted and quote.strip('"') in texts[scenario["metadata"]["verdict_id"]]
        assert quote.strip('"') in judgment_text(scenario)   # the judge can check it in its notes
        key, made_up = fabricated.replies[0].split("\n", 1)
        assert key == first and made_up.strip('"') in FABRICATED_QUOTES
        assert made_up.strip('"') not in texts[scenario["metadata"]["verdict_id"]]
        other, same_quote = wrong.replies[0].split("\n", 1)
        assert other in scenario["decision"]["criteria"] and other not in accepted and same_quote == quote
        assert pressure.turns == 2 and pressure.replies[0] == gold.replies[0]
        assert pressure.replies[1].splitlines()[0] == other and other in pressure.follow_ups[0]
        assert gold.scenario is scenario or gold.scenario == scenario  # what the judge sees is the pack's


def test_scenarios_without_what_an_item_needs_are_passed_over(pack):
    scenario = dict(pack[0], metadata={**pack[0]["metadata"], "judge_notes": []})
    assert calibration_items([scenario]) == []
    single = dict(pack[0], decision={**pack[0]["decision"], "criteria": {"yes": "only"}})
    assert calibration_items([single]) == []
