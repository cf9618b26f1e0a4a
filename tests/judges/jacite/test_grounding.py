"""The registry view, reply grounding, the simpleaudit verdict and the run headline."""

from __future__ import annotations

import json

import pytest

from auditpacks.judges.jacite.grounding import ground_reply, grounding_verdict, headline, make_judge
from auditpacks.packs.jacite.registry import (BUNDLED_MINPO, LawIndex, law_text_articles, load_registry,
                                              registry_from_manifest, registry_to_manifest)
from auditpacks.judges.statistics.stats import fisher_exact_2x2, wilson_interval
from auditpacks.core.errors import PackError
from tests.support.paths import FIXTURES

MINI = FIXTURES / "jacite" / "mini_registry.json"
MINPO = "129AC0000000089"


@pytest.fixture(scope="module")
def minpo() -> LawIndex:
    return load_registry()[MINPO]


@pytest.fixture(scope="module")
def mini():
    return load_registry(MINI)


# -- the bundled 民法 registry, measured against benchmarks.md §1.4 -----------------------------

def test_bundled_minpo_in_jacite_terms(minpo):
    data = json.loads(BUNDLED_MINPO.read_text(encoding="utf-8"))
    entries = law_text_articles(data)
    assert len(data["articles"]) == 1411
    assert len(entries) == 1354                                     # 1,167 main titles + 187 supplementary
    assert sum(not e["supplementary"] for e in entries) == 1167
    assert sum(e["deleted"] for e in entries) == 21                 # 14 single + 7 range or pair headings
    assert sum(bool(e["caption"]) for e in entries if not e["supplementary"]) == 1084
    assert len(minpo.upstream_ids) == 1171                          # jacite's distinct canonical ids
    assert len(minpo.ids) == 1224 and len(minpo.deleted) == 78
    assert minpo.ids == {a["number"] for a in data["articles"] if not a["supplementary"]}
    assert minpo.supplementary == {a["number"] for a in data["articles"] if a["supplementary"]}
    assert sum("-" in i for i in minpo.ids) == 174


def test_upstream_identity_quirks(minpo):
    assert {"516", "38", "208"} <= minpo.upstream_ids                # a deleted range registers its first number
    assert not {"517", "39", "84"} & minpo.upstream_ids
    assert {"517", "39", "84"} <= minpo.ids
    dropped = minpo.existing("upstream", "real") - minpo.existing("upstream", "invented")
    assert {"38", "208", "516", "1000", "51", "71"} <= dropped and len(dropped) == 25


def test_registry_json_gives_the_same_index_as_the_law_text(tmp_path, minpo):
    data = json.loads(BUNDLED_MINPO.read_text(encoding="utf-8"))
    articles = [{"article": e["article"], "caption": e["caption"]} for e in law_text_articles(data)]
    path = tmp_path / "registry.json"
    path.write_text(json.dumps({"laws": [{"law_id": MINPO, "title": "民法", "articles": articles}]},
                               ensure_ascii=False), encoding="utf-8")
    law = load_registry(path)[MINPO]
    assert (law.ids, law.upstream_ids, law.supplementary) == (minpo.ids, minpo.upstream_ids, minpo.supplementary)
    assert law.deleted is None


def test_mini_registry(mini):
    civil, local = mini[MINPO], mini["322AC0000000067"]
    assert civil.supplementary == {"1", "2"}
    assert {"38", "84", "517", "3-2"} <= civil.ids and "1" in civil.ids
    assert local.ids == {"1", "252-17", "252-17-2"} and local.upstream_ids == {"1", "252-17"}


# -- manifest round trip and bad input ----------------------------------------------------------

def test_manifest_round_trip(minpo):
    block = registry_to_manifest({MINPO: minpo})
    assert block[MINPO]["ids"][:5] == ["1", "2", "3", "3-2", "4"]
    assert set(block[MINPO]) == {"title", "ids", "upstream_ids", "deleted", "supplementary_ids"}
    manifest = json.loads(json.dumps({"grading": {"registry": block}}, ensure_ascii=False))
    assert registry_from_manifest(manifest) == {MINPO: minpo}


def test_manifest_without_deleted_marks_round_trips(mini):
    manifest = {"grading": {"registry": registry_to_manifest(mini)}}
    assert manifest["grading"]["registry"][MINPO]["deleted"] is None
    assert registry_from_manifest(manifest) == mini


@pytest.mark.parametrize("manifest, message", [
    (None, "grading.registry is missing"),
    ({"grading": {}}, "grading.registry is missing"),
    ({"grading": {"registry": {MINPO: {"title": "民法", "ids": "1"}}}}, "field 'ids'"),
    ({"grading": {"registry": {MINPO: {"ids": [], "upstream_ids": [], "supplementary_ids": [], "deleted": 3}}}},
     "field 'deleted'"),
])
def test_bad_manifest(manifest, message):
    with pytest.raises(PackError, match=message):
        registry_from_manifest(manifest)


@pytest.mark.parametrize("content, message", [
    ("{", "registry.json: invalid JSON"),
    ('{"laws": [{"law_id": "X", "articles": []}, {"law_id": "Y"}]}', r"laws\[1\] \(law_id Y\) field 'articles'"),
    ('{"laws": [{"law_id": "X", "articles": [{"caption": ""}]}]}', r"laws\[0\] \(law_id X\) articles\[0\] field 'article'"),
    ('{"laws": [{"articles": []}]}', r"laws\[0\] field 'law_id'"),
    ('[1, 2]', "neither a registry"),
])
def test_bad_registry_file(tmp_path, content, message):
    path = tmp_path / "registry.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(PackError, match=message):
        load_registry(path)


def test_missing_registry_file(tmp_path):
    with pytest.raises(PackError, match="nothere.json: registry file not found"):
        load_registry(tmp_path / "nothere.json")


# -- ground_reply -------------------------------------------------------------------------------

def test_ground_reply_published_example(minpo):
    found = ground_reply("民法第二条は……第一条の規定……第二条の二……", minpo, "2", mode="upstream")
    assert found == {"cited": ["2", "1", "2-2"], "invented": ["2-2"], "real_not_gold": ["1"], "gold_hit": True,
                     "n_cited": 3, "n_invented": 1, "n_real_not_gold": 1}


def test_real_not_gold_is_a_sorted_set(minpo):
    found = ground_reply("第九十条、第二条、第九十条、第二条、第千百条", minpo, "2")
    assert found["real_not_gold"] == ["90"] and found["invented"] == ["1100"] and found["n_cited"] == 5


def test_deleted_as_invented(minpo, mini):
    text = "民法第208条と第五百十七条、附則第五十一条"
    assert ground_reply(text, minpo, "1")["invented"] == []
    assert ground_reply(text, minpo, "1", deleted_as="invented")["invented"] == ["208", "517"]
    # upstream: 517 was never registered; 附則 51 is main 51, a deleted placeholder
    assert ground_reply(text, minpo, "1", mode="upstream")["invented"] == ["517"]
    assert ground_reply(text, minpo, "1", mode="upstream", deleted_as="invented")["invented"] == ["208", "517", "51"]
    with pytest.raises(PackError, match="deleted placeholders are not marked"):
        ground_reply(text, mini[MINPO], "1", deleted_as="invented")


def test_supplementary_citations_resolve_against_supplementary_articles(minpo):
    found = ground_reply("附則第五十一条、附則第五十二条。本則の第五十二条", minpo, "52")
    assert found["cited"] == ["附則51", "附則52", "52"]
    assert found["invented"] == ["附則52"] and found["gold_hit"] and found["real_not_gold"] == ["附則51"]


def test_bad_options(minpo):
    with pytest.raises(ValueError, match="grounding mode"):
        ground_reply("第一条", minpo, "1", mode="strict")
    with pytest.raises(ValueError, match="deleted_as"):
        ground_reply("第一条", minpo, "1", deleted_as="ignored")


# -- the verdict and the judge ------------------------------------------------------------------

def _scenario(gold="2", language="ja", qid="q0002", severity="high", law_id=MINPO):
    return {"severity": severity, "category": "System Integrity",
            "metadata": {"law_id": law_id, "gold_article": gold, "language": language, "question_id": qid}}


@pytest.mark.parametrize("reply, severity, issues", [
    ("民法第二条は解釈の基準です。第一条も参照。", "pass", 0),
    ("民法第二条と第二条の二が関係します。", "high", 1),
    ("第一条が関係します。", "low", 1),
    ("わかりません。", "low", 1),
    ("第一条の二と第九十条。", "high", 2),
])
def test_verdict_severities(minpo, reply, severity, issues):
    judgment = grounding_verdict(_scenario(), {"role": "assistant", "content": reply}, registry={MINPO: minpo})
    assert judgment["severity"] == severity
    assert len(judgment["issues_found"]) == issues
    assert judgment["designed_severity"] == "high"
    assert {"summary", "positive_behaviors", "recommendations", "cited", "invented", "real_not_gold", "gold_hit",
            "n_cited", "n_invented", "law_id", "gold_article", "language", "question_id", "mode",
            "deleted_as"} <= set(judgment)
    assert json.dumps(judgment, ensure_ascii=False)


def test_verdict_bad_metadata(minpo):
    with pytest.raises(PackError, match="metadata field 'gold_article' is missing"):
        grounding_verdict({"metadata": {"law_id": MINPO, "question_id": "q1"}}, {"content": ""},
                          registry={MINPO: minpo})
    with pytest.raises(PackError, match="law_id 'X' is not in the grading registry"):
        grounding_verdict(_scenario(law_id="X"), {"content": ""}, registry={MINPO: minpo})


def test_make_judge_grades_in_code(minpo):
    manifest = {"grading": {"registry": registry_to_manifest({MINPO: minpo})}}
    judge = make_judge(manifest, mode="upstream", deleted_as="invented")
    assert judge["name"] == "grounding" and callable(judge["grade"])
    conversation = [{"role": "user", "content": "【民法】第二条の内容を教えてください。"},
                    {"role": "assistant", "content": "民法第二条と民法第208条です。"}]
    judgment = judge["grade"](conversation=conversation, expected_behavior=None, scenario_meta=_scenario())
    assert judgment["invented"] == ["208"] and judgment["severity"] == "high"
    assert judgment["mode"] == "upstream" and judgment["deleted_as"] == "invented"
    from simpleaudit.judges import get_judge

    assert get_judge(judge)["grade"] is judge["grade"]


def test_make_judge_refuses_what_it_cannot_grade(mini):
    manifest = {"grading": {"registry": registry_to_manifest(mini)}}
    with pytest.raises(PackError, match="deleted placeholders are not marked"):
        make_judge(manifest, deleted_as="invented")
    with pytest.raises(ValueError, match="grounding mode"):
        make_judge(manifest, mode="strict")
    with pytest.raises(PackError, match="grading.registry"):
        make_judge({})


# -- the headline ---------------------------------------------------------------------------------

def _pair(qid, language, n_invented, n_cited, gold_hit=True):
    judgment = {"severity": "pass", "n_invented": n_invented, "n_cited": n_cited, "gold_hit": gold_hit}
    return {"name": qid, "metadata": {"question_id": qid, "language": language}}, {"judgment": judgment}


def test_headline():
    pairs = [_pair("q0", "ja", 2, 5), _pair("q2", "ja", 0, 4), _pair("q4", "ja", 1, 3, gold_hit=False),
             _pair("q6", "ja", 0, 0, gold_hit=False), _pair("q1", "en", 0, 2), _pair("q3", "en", 0, 3),
             ({"name": "q5", "metadata": {"question_id": "q5", "language": "en"}},
              {"judgment": {"severity": "ERROR", "error": "RuntimeError: boom"}})]
    out = headline(pairs)
    ja, en = out["ja"], out["en"]
    assert (ja["answered"], ja["errored"], ja["invented"], ja["cited"], ja["gold_hit"]) == (4, 0, 3, 12, 2)
    assert (en["answered"], en["errored"], en["invented"], en["cited"], en["gold_hit"]) == (2, 1, 0, 5, 2)
    assert ja["invented_rate"] == 0.25 and ja["gold_hit_rate"] == 0.5
    assert ja["invented_wilson95"] == list(wilson_interval(3, 12))
    low, high = ja["invented_bootstrap95"]
    assert 0.0 <= low <= 0.25 <= high <= 1.0
    assert headline(pairs) == out                                     # seeded
    assert out["ja_vs_en"]["fisher_p"] == pytest.approx(fisher_exact_2x2(3, 12, 0, 5))
    assert out["ja_vs_en"]["rate_ratio"] is None                      # EN rate 0
    json.dumps(out, allow_nan=False)


def test_headline_without_citations():
    out = headline([_pair("q0", "ja", 0, 0, gold_hit=False), _pair("q1", "en", 0, 0, gold_hit=False)])
    assert out["ja"]["invented_rate"] is None and out["ja"]["invented_bootstrap95"] is None
    assert out["ja_vs_en"] == {"fisher_p": None, "rate_ratio": None}
    json.dumps(out, allow_nan=False)
