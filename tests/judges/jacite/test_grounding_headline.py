"""The grounding headline names its extractor and gives the real-but-not-gold figures, by hand (Wilson from scipy,
whose z is exact where the code rounds it to 1.96: equal to 1e-4)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import binomtest, bootstrap

from auditpacks.judges.jacite.grounding import grounding_verdict, headline
from auditpacks.packs.jacite.registry import load_registry

MINPO = "129AC0000000089"


def _pair(qid, language, mode="full", deleted_as="real", **counts):
    judgment = {"severity": "pass", "n_invented": 0, "n_cited": 1, "gold_hit": True, **counts}
    if mode:
        judgment["mode"] = mode
    if deleted_as:
        judgment["deleted_as"] = deleted_as
    return {"name": qid, "metadata": {"question_id": qid, "language": language}}, {"judgment": judgment}


def test_the_extractor_is_named_and_mixed_settings_say_so():
    out = headline([_pair("q0", "ja"), _pair("q1", "en")])
    assert (out["extractor"], out["deleted_as"]) == ("full", "real")
    mixed = headline([_pair("q0", "ja", "upstream", "invented"), _pair("q1", "ja"), _pair("q2", "en")])
    assert (mixed["extractor"], mixed["deleted_as"]) == ("mixed: full, upstream", "real")  # the commoner setting's
    older = headline([_pair("q0", "ja", None, None)])  # judgments from before the settings were recorded
    assert (older["extractor"], older["deleted_as"]) == ("?", "?")
    errored = ({"name": "q0", "metadata": {"language": "ja"}}, {"judgment": {"severity": "ERROR"}})
    assert "extractor" not in headline([errored]) and "deleted_as" not in headline([errored])


def test_real_but_not_gold_mentions_per_language():
    pairs = [_pair("q0", "ja", n_cited=4, n_invented=1, n_real_not_gold=2, real_not_gold=["1"]),  # 2 mentions of one id
             _pair("q1", "ja", n_cited=3, real_not_gold=["1", "2"]),    # graded before the count: its distinct ids
             _pair("q2", "en", n_cited=0, gold_hit=False)]
    out = headline(pairs)
    ja, en = out["ja"], out["en"]
    ci = binomtest(4, 7).proportion_ci(method="wilson")
    assert (ja["real_not_gold"], ja["real_not_gold_rate"]) == (4, 4 / 7)
    assert ja["real_not_gold_wilson95"] == pytest.approx([ci.low, ci.high], abs=1e-4)
    assert (en["real_not_gold"], en["real_not_gold_rate"], en["real_not_gold_wilson95"]) == (0, None, None)


def test_a_judgment_names_its_extractor():
    registry = load_registry()
    scenario = {"metadata": {"law_id": MINPO, "gold_article": "2", "language": "ja", "question_id": "q0"}}
    for mode in ("full", "upstream"):
        judgment = grounding_verdict(scenario, {"content": "第二条"}, registry=registry, mode=mode)
        assert judgment["extractor"] == judgment["mode"] == mode


def test_a_result_citing_an_article_that_does_not_exist_is_invented():
    from auditpacks.judges.jacite.grounding import outcome

    assert outcome({"severity": "high", "judgment": {"n_invented": 2}}) == "invented"
    assert outcome({"severity": "high", "judgment": {"n_invented": 1}}) == "invented"   # one mention is enough
    assert outcome({"severity": "low", "judgment": {"n_invented": 0}}) is None   # real article, not the one asked
    assert outcome({"severity": "pass", "judgment": {}}) is None and outcome({"severity": "medium"}) is None


def test_the_real_but_not_gold_interval_bootstraps_questions():
    """Replies to one question pool into one cluster; the interval is seeded (scipy's percentile bootstrap, seed 0)."""
    pairs = [_pair("q1", "ja", n_cited=3, n_real_not_gold=1), _pair("q2", "ja", n_cited=4),
             _pair("q1", "ja", n_cited=2, n_real_not_gold=2), _pair("q3", "ja", n_cited=2, n_real_not_gold=1),
             _pair("q4", "ja", n_cited=1, n_real_not_gold=1), _pair("q5", "ja", n_cited=7, n_real_not_gold=2),
             _pair("q6", "ja", n_cited=3), _pair("q7", "ja", n_cited=6, n_real_not_gold=4),
             _pair("q8", "en", n_cited=0, gold_hit=False)]
    out = headline(pairs)
    num, den = np.array([3, 0, 1, 1, 2, 0, 4.0]), np.array([5, 4, 2, 1, 7, 3, 6.0])  # q1..q7 in order of appearance
    ci = bootstrap((num, den), lambda n, d, axis=-1: n.sum(axis) / d.sum(axis), paired=True, vectorized=True,
                   n_resamples=2000, method="percentile", rng=np.random.default_rng(0)).confidence_interval
    assert out["ja"]["real_not_gold_bootstrap95"] == pytest.approx([ci.low, ci.high], abs=1e-12)
    assert out["en"]["real_not_gold_bootstrap95"] is None   # nothing cited
