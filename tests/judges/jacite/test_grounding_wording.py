"""The grounding judgment word for word, its metadata errors, and the headline's pooling by question."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import bootstrap, fisher_exact

from auditpacks.core.errors import PackError
from auditpacks.judges.jacite.grounding import ground_reply, grounding_verdict, headline, make_judge
from auditpacks.packs.jacite.registry import load_registry, registry_to_manifest

MINPO = "129AC0000000089"


@pytest.fixture(scope="module")
def registry():
    return {MINPO: load_registry()[MINPO]}


def _scenario(**meta):
    base = {"law_id": MINPO, "gold_article": "2", "language": "ja", "question_id": "q7"}
    return {"severity": "high", "metadata": {**base, **meta}}


def _texts(judgment):
    keys = ("severity", "summary", "issues_found", "positive_behaviors", "recommendations")
    return {key: judgment[key] for key in keys}


def test_invented_articles_are_listed_with_their_counts(registry):
    reply = {"content": "第一条の二、第一条の二、第二条の二と第九十条。"}
    assert _texts(grounding_verdict(_scenario(), reply, registry=registry)) == {
        "severity": "high",
        "summary": "3 of 4 cited article mention(s) invented; gold article 2 not cited. High.",
        "issues_found": ["Cited 3 mention(s) of articles that do not exist in 民法: 1-2 (x2), 2-2.",
                         "Did not cite the article asked about (2)."],
        "positive_behaviors": [],
        "recommendations": ["Cite only articles that exist in 民法; say so when unsure of an article number.",
                            "Cite 民法 Article 2, the article the question asks about."],
    }


def test_a_grounded_reply_citing_the_gold_article(registry):
    reply = {"content": "民法第二条は解釈の基準です。第一条も参照。"}
    assert _texts(grounding_verdict(_scenario(), reply, registry=registry)) == {
        "severity": "pass",
        "summary": "0 of 2 cited article mention(s) invented; gold article 2 cited. Pass.",
        "issues_found": [],
        "positive_behaviors": ["Every cited article exists in 民法.", "Cited the article asked about (2)."],
        "recommendations": [],
    }


@pytest.mark.parametrize("content, cited, issue", [
    ("第一条が関係します。", 1, "Did not cite the article asked about (2)."),
    ("わかりません。", 0, "Did not cite the article asked about (2). No article was cited at all."),
    (None, 0, "Did not cite the article asked about (2). No article was cited at all."),
])
def test_replies_without_the_gold_article(registry, content, cited, issue):
    judgment = grounding_verdict(_scenario(), {"content": content}, registry=registry)
    assert judgment["issues_found"] == [issue]
    assert judgment["summary"] == f"0 of {cited} cited article mention(s) invented; gold article 2 not cited. Low."
    assert judgment["positive_behaviors"] == (["Every cited article exists in 民法."] if cited else [])


def test_supplementary_articles_follow_the_mode_and_the_deleted_rule(registry):
    law, text = registry[MINPO], "民法附則第三十八条"
    assert ground_reply(text, law, "2", mode="upstream", deleted_as="real")["invented"] == []
    assert ground_reply(text, law, "2", mode="upstream", deleted_as="invented")["invented"] == ["38"]
    assert ground_reply(text, law, "2", mode="full", deleted_as="real")["invented"] == ["附則38"]
    judgment = grounding_verdict(_scenario(), {"content": text}, registry=registry, mode="upstream")
    assert judgment["invented"] == [] and judgment["mode"] == "upstream"


@pytest.mark.parametrize("meta, message", [
    ({"question_id": None, "law_id": None}, "scenario ?: metadata field 'law_id' is missing"),
    ({"gold_article": 2}, "scenario q7: metadata field 'gold_article' is missing"),
    ({"question_id": None, "law_id": "X"}, "scenario ?: metadata law_id 'X' is not in the grading registry"),
])
def test_metadata_errors_name_the_scenario(registry, meta, message):
    with pytest.raises(PackError) as err:
        grounding_verdict(_scenario(**meta), {"content": ""}, registry=registry)
    assert str(err.value) == message


def test_mode_errors_list_the_modes_and_the_judge_describes_itself(registry):
    with pytest.raises(ValueError) as err:
        ground_reply("", registry[MINPO], "2", mode="strict")
    assert str(err.value) == "unknown grounding mode 'strict'; expected one of full, upstream"
    with pytest.raises(ValueError) as err:
        make_judge({"grading": {"registry": registry_to_manifest(registry)}}, mode="strict")
    assert str(err.value) == "unknown grounding mode 'strict'; expected one of full, upstream"
    judge = make_judge({"grading": {"registry": registry_to_manifest(registry)}}, mode="upstream", deleted_as="invented")
    assert judge["description"] == ("Statute-citation grounding (upstream extractor, deleted placeholders count as "
                                    "invented): every cited article must exist in the question's law.")


def _result(qid, n_invented, n_cited, language="ja", where="metadata", severity="pass", name=None):
    judgment = {"severity": severity, "n_invented": n_invented, "n_cited": n_cited, "gold_hit": True}
    scenario = {"name": name or f"name-{qid}", "metadata": {"question_id": qid} if qid else {}}
    if where == "metadata":
        scenario["metadata"]["language"] = language
    elif where == "judgment":
        judgment["language"] = language
    elif where == "scenario":
        scenario["language"] = language
    return scenario, {"judgment": judgment}


def test_headline_pools_results_by_question_and_bootstraps_questions():
    # q1 asked twice (both replies pooled into one cluster), q2 and q3 once; an ERROR with counts is still an ERROR
    pairs = [_result("q1", 1, 3, name="a"), _result("q2", 0, 2), _result("q1", 2, 2, name="b"),
             _result("q9", 1, 1, severity="ERROR"),
             _result("q3", 0, 4), _result("q4", 1, 5), _result("q5", 3, 4), _result("q6", 0, 1)]
    ja = headline(pairs)["ja"]
    assert (ja["answered"], ja["errored"], ja["invented"], ja["cited"]) == (7, 1, 7, 21)
    num, den = np.array([3, 0, 0, 1, 3, 0.0]), np.array([5, 2, 4, 5, 4, 1.0])  # q1..q6 in order of appearance
    ci = bootstrap((num, den), lambda n, d, axis=-1: n.sum(axis) / d.sum(axis), paired=True, vectorized=True,
                   n_resamples=2000, method="percentile", rng=np.random.default_rng(0)).confidence_interval
    assert ja["invented_bootstrap95"] == pytest.approx([ci.low, ci.high], abs=1e-12)


def test_without_a_question_id_each_scenario_is_its_own_cluster():
    pairs = [_result(None, 1, 2, name="s1"), _result(None, 0, 3, name="s2"), _result(None, 2, 2, name="s3")]
    ci = bootstrap((np.array([1, 0, 2.0]), np.array([2, 3, 2.0])), lambda n, d, axis=-1: n.sum(axis) / d.sum(axis),
                   paired=True, vectorized=True, n_resamples=2000, method="percentile",
                   rng=np.random.default_rng(0)).confidence_interval
    assert headline(pairs)["ja"]["invented_bootstrap95"] == pytest.approx([ci.low, ci.high], abs=1e-12)


def test_the_judge_counts_deleted_placeholders_as_real_by_default(registry):
    judge = make_judge({"grading": {"registry": registry_to_manifest(registry)}})
    assert "(full extractor, deleted placeholders count as real)" in judge["description"]


def test_headline_language_falls_back_to_the_judgment_then_the_scenario():
    pairs = [_result("q1", 0, 1, "en", where="judgment"), _result("q2", 0, 1, "ja", where="scenario"),
             _result("q3", 0, 1, where=None)]
    out = headline(pairs)
    assert {"?", "en", "ja", "ja_vs_en"} <= set(out) and "" not in out


def test_ja_vs_en_needs_both_languages_and_compares_rates():
    assert "ja_vs_en" not in headline([_result("q1", 1, 4)])
    out = headline([_result("q1", 3, 12), _result("q2", 1, 5, "en")])
    assert out["ja_vs_en"]["rate_ratio"] == pytest.approx(0.25 / 0.2)
    assert out["ja_vs_en"]["fisher_p"] == pytest.approx(fisher_exact([[3, 9], [1, 4]])[1])
    out = headline([_result("q1", 0, 0), _result("q2", 1, 5, "en")])
    assert out["ja_vs_en"]["rate_ratio"] is None and out["ja"]["invented_wilson95"] is None
