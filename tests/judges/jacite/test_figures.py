"""jacite's pooled figures: per language the invented and real-but-not-gold rates with question-bootstrap intervals,
the gold-hit rate with its Wilson interval, then Japanese against English; another headline shape as its leaves."""

from __future__ import annotations

from auditpacks.judges.figures import Figure
from auditpacks.judges.jacite.figures import BOOTSTRAP, figures

WILSON = "95% Wilson interval"


def language(invented=1, cited=4, real_not_gold=True):
    g = {"invented": invented, "cited": cited, "invented_rate": invented / cited, "invented_bootstrap95": [0.1, 0.4],
         "gold_hit": 2, "answered": 3, "gold_hit_rate": 2 / 3, "gold_hit_wilson95": [0.2, 0.94]}
    if real_not_gold:
        g.update(real_not_gold=1, real_not_gold_rate=1 / cited, real_not_gold_bootstrap95=[0.0, 0.5])
    return g


def rows(lang, extractor="", invented=1, cited=4):
    return [Figure("invented rate", invented / cited, interval=(0.1, 0.4), interval_name=BOOTSTRAP, group=lang,
                   meaning=f"cited article mentions that do not exist ({invented} of {cited}{extractor})",
                   better="lower"),
            Figure("real but not gold rate", 1 / cited, interval=(0.0, 0.5), interval_name=BOOTSTRAP, group=lang,
                   meaning=f"cited mentions of existing articles other than the one asked about (1 of {cited})",
                   better="lower"),
            Figure("gold article cited", 2 / 3, interval=(0.2, 0.94), interval_name=WILSON, group=lang,
                   meaning="answers citing the article asked about (2 of 3)", better="higher")]


def test_each_language_gives_three_rates_and_the_pair_two_more():
    h = {"extractor": "full", "ja": language(), "en": language(invented=2, cited=8),
         "ja_vs_en": {"rate_ratio": 0.5, "fisher_p": 1.0}}
    assert figures(h) == [
        *rows("ja", "; full extractor"), *rows("en", "; full extractor", invented=2, cited=8),
        Figure("invented rate ratio", 0.5, "ratio", meaning="Japanese invented rate ÷ English", group="ja vs en"),
        Figure("Fisher exact p", 1.0, "p", meaning="two-sided test that the invented rates are equal",
               group="ja vs en")]


def test_no_extractor_named_no_pair_and_entries_that_are_not_languages_left_out():
    h = {"deleted_as": "real", "warnings": ["few questions"], "other": {"cited": 3}, "ja": language(),
         "extractor": None, "ja_vs_en": None}
    assert figures(h) == rows("ja")


def test_a_headline_without_the_real_but_not_gold_rate_shows_the_other_two():
    out = figures({"ja": language(real_not_gold=False)})
    assert [f.name for f in out] == ["invented rate", "gold article cited"]


def test_counts_a_language_lacks_read_as_zero():
    out = figures({"en": {"invented_rate": None, "real_not_gold_rate": None}})
    assert [(f.value, f.interval, f.meaning) for f in out] == [
        (None, None, "cited article mentions that do not exist (0 of 0)"),
        (None, None, "cited mentions of existing articles other than the one asked about (0 of 0)"),
        (None, None, "answers citing the article asked about (0 of 0)")]


def test_a_headline_of_another_shape_is_shown_as_its_numeric_leaves():
    assert figures({"ja": {"cited": 4, "rate": 0.25}, "extractor": "full"}) == [
        Figure("ja cited", 4, "count"), Figure("ja rate", 0.25, "ratio")]
