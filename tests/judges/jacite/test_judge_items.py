"""jacite calibration items: the three replies of each question whose law the registry lists, from the fixture
pack and from hand-written scenarios."""

from __future__ import annotations

import json
import re

import pytest

from auditpacks.judges.trust.judge_items import FAIL, GOLD, PASS
from auditpacks.judges.jacite.judge_items import INVENTED, WRONG, calibration_items
from auditpacks.runner.cli.main import main
from tests.support.paths import FIXTURES as TESTS_FIXTURES

FIXTURES = TESTS_FIXTURES / "jacite"


def test_three_core_items_per_question_cite_as_their_rule_says(tmp_path):
    out = tmp_path / "jacite.json"
    assert main(["build", "jacite", "--source", str(FIXTURES), "--out", str(out)]) == 0
    pack = json.loads(out.read_text(encoding="utf-8"))
    manifest = json.loads(out.with_name("jacite.manifest.json").read_text(encoding="utf-8"))
    items = calibration_items(pack, manifest)
    assert len(items) == 3 * len(pack)
    for scenario, (gold, invented, wrong) in zip(pack, zip(*[iter(items)] * 3)):
        article = scenario["metadata"]["gold_article"]
        ids = set(manifest["grading"]["registry"][scenario["metadata"]["law_id"]]["ids"])
        assert (gold.kind, gold.expected, invented.kind, invented.expected, invented.violates,
                wrong.kind, wrong.expected, wrong.violates) == (GOLD, PASS, INVENTED, FAIL, 2, WRONG, FAIL, 1)
        assert re.findall(r"Article (\S+?) ", gold.replies[0]) == [article]
        cited = re.findall(r"Article (\d+(?:-\d+)?)", invented.replies[0])
        assert cited[0] == article and cited[1] not in ids and int(cited[1]) > 1000
        (other,) = re.findall(r"Article (\d+(?:-\d+)?)", wrong.replies[0])
        assert other != article and other in ids
    assert calibration_items(pack, None) == []   # no registry: nothing is known to exist


REGISTRY = {"L1": {"title": "Civil Code", "ids": ["1", "3", "15-2", 12, "Appendix"]},
            "L2": {"ids": ["A", "B"]},       # no title; no article with a number
            "L3": {"title": "Short Act", "ids": ["7"]}}


def _scenario(name, law_id, gold, expectations=4, **meta):
    return {"name": name, "expected_behavior": [f"expectation {i}" for i in range(expectations)],
            "metadata": {"law_id": law_id, "gold_article": gold, **meta}}


def _items(*scenarios):
    return calibration_items(scenarios, {"grading": {"registry": REGISTRY}})


def test_the_items_of_a_question_name_the_law_its_article_and_an_article_past_the_highest():
    scenario = _scenario("q1", "L1", "3", caption="(Purpose)", law="Civil Code (old name)")
    gold, invented, wrong = _items(scenario)
    assert [(i.id, i.kind, i.expected, i.violates) for i in (gold, invented, wrong)] == [
        ("q1 · reference answer, verbatim support", GOLD, PASS, None),
        ("q1 · invented article", INVENTED, FAIL, 2), ("q1 · wrong answer", WRONG, FAIL, 1)]
    assert gold.replies == ("Civil Code Article 3 (Purpose) is the article this question is about.",)
    # the highest numbered article is 15-2 (number 15; "Appendix" has none): the invented one is 1015
    assert invented.replies == ("Civil Code Article 3 (Purpose) is the article this question is about."
                                " See also Article 1015 of the same law.",)
    assert wrong.replies == ("Civil Code Article 1 is the article this question is about.",)
    assert all(item.scenario == scenario and item.scenario is not scenario for item in (gold, invented, wrong))


def test_a_law_without_a_title_is_named_from_the_scenario_and_without_numbers_invents_article_1000():
    gold, invented, wrong = _items(_scenario("q2", "L2", "B", law="Penal Code"))
    assert gold.replies == ("Penal Code Article B is the article this question is about.",)
    assert invented.replies[0].endswith(" See also Article 1000 of the same law.")
    assert wrong.replies == ("Penal Code Article A is the article this question is about.",)


@pytest.mark.parametrize("scenario", [
    _scenario("unknown law", "L9", "1"),
    _scenario("article not in the law", "L1", "99"),
    _scenario("no article named", "L1", None),
    _scenario("no other article to cite wrongly", "L3", "7"),
    _scenario("one expectation", "L1", "3", expectations=1),
])
def test_a_question_the_items_cannot_be_built_for_is_skipped_and_the_next_kept(scenario):
    assert [i.id for i in _items(scenario, _scenario("next", "L1", "1", expectations=2))] == [
        "next · reference answer, verbatim support", "next · invented article", "next · wrong answer"]
