"""Article numerals, citation extraction (full and upstream modes) and registry titles."""

from __future__ import annotations


import pytest

from auditpacks.packs.jacite.citations import (
    Citation,
    article_ids_from_title,
    extract_citations,
    extract_citations_v1,
    find_citations,
    kanji_to_int,
    normalise_article_ref,
)
from auditpacks.judges.jacite.grounding import ground_reply
from auditpacks.packs.jacite.registry import load_registry
from tests.support.paths import FIXTURES

MINI = FIXTURES / "jacite" / "mini_registry.json"
MINPO, CHIHOU = "129AC0000000089", "322AC0000000067"


@pytest.fixture(scope="module")
def mini():
    return load_registry(MINI)


# -- jacite-bench's own tests (tests/test_normaliser.py, the 23 collected), as behavioural facts ------

UPSTREAM_KANJI = {
    "single_digits": {"一": 1, "二": 2, "九": 9},
    "tens": {"十": 10, "十一": 11, "二十": 20, "二十三": 23},
    "hundreds": {"百": 100, "二百": 200, "三百四十一": 341},
    "thousands": {"千": 1000, "五千": 5000},
    "complex": {"五百四十一": 541, "四百十五": 415, "千二百三十四": 1234},
    "arabic": {"541": 541, "0": 0},
    "empty": {"": None},
    "invalid": {"abc": None},
}
UPSTREAM_NORMALISE = {
    "kanji_with_条": {"第五百四十一条": "541", "第四百十五条": "415", "第一条": "1"},
    "arabic_with_条": {"第541条": "541", "第1条": "1"},
    "english": {"Article 541": "541", "article 541": "541", "Article 1": "1"},
    "english_with_branch": {"Article 541-2": "541-2"},
    "kanji_branch": {"第四百十五条の二": "415-2", "第415条の2": "415-2", "第五条の三": "5-3"},
    "bare_number": {"541": "541"},
    "bare_kanji": {"第五百四十一条": "541"},
    "empty": {"": None, None: None},
    "invalid": {"hello": None, "条": None},
    "whitespace": {"  第541条  ": "541", "  Article 541  ": "541"},
}
UPSTREAM_EXTRACT = {
    "branch_citation_is_one_citation": {"第二条の二": ["2-2"], "民法第四百十二条の二": ["412-2"]},
    "multi_level_branch": {"第百二十五条の二の三": ["125-2-3"]},
    "text_order_and_one_entry_per_mention": {"第五条、Article 7、第五条、第三条の二": ["5", "7", "5", "3-2"]},
    "english_and_fullwidth_forms": {"See Article 415-2 and Article 541.": ["415-2", "541"], "第５４１条": ["541"]},
    "empty": {"": [], None: []},
}


@pytest.mark.parametrize("facts", UPSTREAM_KANJI.values(), ids=UPSTREAM_KANJI.keys())
def test_upstream_kanji_to_int(facts):
    for text, expected in facts.items():
        assert kanji_to_int(text, "upstream") == expected
        assert kanji_to_int(text) == expected  # our reader agrees on all of them


@pytest.mark.parametrize("facts", UPSTREAM_NORMALISE.values(), ids=UPSTREAM_NORMALISE.keys())
def test_upstream_normalise_article_ref(facts):
    for text, expected in facts.items():
        assert normalise_article_ref(text, "upstream") == expected


@pytest.mark.parametrize("facts", UPSTREAM_EXTRACT.values(), ids=UPSTREAM_EXTRACT.keys())
def test_upstream_extract(facts):
    for text, expected in facts.items():
        assert extract_citations(text, "upstream") == expected
        assert extract_citations(text) == expected  # the full extractor keeps every upstream fact


def test_upstream_fact_count_is_23():
    assert len(UPSTREAM_KANJI) + len(UPSTREAM_NORMALISE) + len(UPSTREAM_EXTRACT) == 23


# -- numerals ----------------------------------------------------------------------------------

@pytest.mark.parametrize("text, full, upstream", [
    ("一〇", 10, None), ("〇", 0, None), ("零", 0, 0), ("二千〇五", 2005, None), ("一万", 10000, None),
    ("十万二千", 102000, None), ("５４１", 541, 541), ("千二十", 1020, 1020), ("一二三", 123, 123),
    ("十十", None, 20), ("百千", None, 1100), ("一二百", None, 1200), ("十二三", None, 33), ("五百四十一", 541, 541),
])
def test_kanji_to_int_modes(text, full, upstream):
    assert kanji_to_int(text) == full
    assert kanji_to_int(text, "upstream") == upstream


# -- the reply table: cited and invented ids in both modes, against the mini registry --------------
# (text, law, full cited, full invented, upstream cited, upstream invented); None = same as full.

REPLIES = [
    ("第五百四十一条の規定により解除できます。", MINPO, ["541"], [], None, None),
    ("第541条", MINPO, ["541"], [], None, None),
    ("第５４１条", MINPO, ["541"], [], None, None),
    ("第 541 条", MINPO, ["541"], [], [], []),
    ("民法541条に基づく解除", MINPO, ["541"], [], [], []),
    ("541条の解除", MINPO, ["541"], [], [], []),
    ("民法五百四十一条", MINPO, ["541"], [], [], []),
    ("3条件を満たす必要があります", MINPO, [], [], None, None),
    ("条例や条約とは異なり", MINPO, [], [], None, None),
    ("一条の光", MINPO, [], [], None, None),
    ("第二百五十二条の十七の二", CHIHOU, ["252-17-2"], [], ["252-17-2"], ["252-17-2"]),
    ("第二百五十二条の十七", CHIHOU, ["252-17"], [], None, None),
    ("Article 541", MINPO, ["541"], [], None, None),
    ("article 90 and ARTICLE 90", MINPO, ["90", "90"], [], None, None),
    ("Art. 541", MINPO, ["541"], [], [], []),
    ("Articles 541 and 542", MINPO, ["541", "542"], [], [], []),
    ("Articles 541, 542 and 543", MINPO, ["541", "542", "543"], [], [], []),
    ("Articles 541, 542, and 543", MINPO, ["541", "542", "543"], [], [], []),
    ("Articles 541(1) and 542", MINPO, ["541", "542"], [], [], []),
    ("Article 541-2", MINPO, ["541-2"], ["541-2"], None, None),
    ("Article 0541", MINPO, ["541"], [], ["0541"], ["0541"]),
    ("Article 541(2)", MINPO, ["541"], [], None, None),
    ("Article 541, paragraph (2)", MINPO, ["541"], [], None, None),
    ("第三十八条から第八十四条まで", MINPO, ["38", "84"], [], ["38", "84"], ["84"]),
    ("Articles 541 to 543", MINPO, ["541", "543"], [], [], []),
    ("第五百四十一条から第五百四十三条まで", MINPO, ["541", "543"], [], None, None),
    ("第三百九十八条の二十二から第三百九十八条の二十四まで", MINPO, ["398-22", "398-24"], ["398-24"], None, None),
    ("第五百四十一条及び第五百四十二条", MINPO, ["541", "542"], [], None, None),
    ("第五百四十一条及び第五百四十二条並びに第五百四十三条", MINPO, ["541", "542", "543"], [], None, None),
    ("第541条、第542条", MINPO, ["541", "542"], [], None, None),
    ("第541条、542条", MINPO, ["541", "542"], [], ["541"], []),
    ("第五百四十一条、五百四十二条", MINPO, ["541", "542"], [], ["541"], []),
    ("第五百四十一条第二項", MINPO, ["541"], [], None, None),
    ("第五百四十一条第一項第二号及び第五百四十二条", MINPO, ["541", "542"], [], None, None),
    ("附則第一条", MINPO, ["附則1"], [], ["1"], []),
    ("附則第三条", MINPO, ["附則3"], ["附則3"], ["3"], []),
    ("附則第一条及び第二条", MINPO, ["附則1", "附則2"], [], ["1", "2"], []),
    ("附則（平成二九年法律第四四号）第二条", MINPO, ["附則2"], [], ["2"], []),
    ("Article 1 of the Supplementary Provisions", MINPO, ["附則1"], [], ["1"], []),
    ("第二条の二", MINPO, ["2-2"], ["2-2"], None, None),
    ("第三条の二", MINPO, ["3-2"], [], None, None),
    ("第百二十五条の二の三", MINPO, ["125-2-3"], ["125-2-3"], None, None),
    ("第一条の一部を改正する", MINPO, ["1"], [], ["1-1"], ["1-1"]),
    ("第九〇条", MINPO, ["90"], [], [], []),
    ("第二百八条", MINPO, ["208"], [], None, None),
    ("第五百十六条", MINPO, ["516"], [], None, None),
    ("第五百十七条", MINPO, ["517"], [], ["517"], ["517"]),
    ("第千五十一条", MINPO, ["1051"], ["1051"], None, None),
    ("第１０５０条", MINPO, ["1050"], [], None, None),
    ("第五条、Article 7、第五条、第三条の二", MINPO, ["5", "7", "5", "3-2"], ["5", "7", "5"], None, None),
    ("See Article 415-2 and Article 541.", MINPO, ["415-2", "541"], ["415-2"], None, None),
    ("民法第四百十二条の二", MINPO, ["412-2"], ["412-2"], None, None),
    ("§541 of the Civil Code", MINPO, [], [], None, None),
    ("subArticle 90", MINPO, [], [], ["90"], []),
    ("No articles cited here", MINPO, [], [], None, None),
    ("", MINPO, [], [], None, None),
]


@pytest.mark.parametrize("text, law, cited, invented, up_cited, up_invented", REPLIES,
                         ids=[f"{i:02d}" for i in range(len(REPLIES))])
def test_reply_table(mini, text, law, cited, invented, up_cited, up_invented):
    full = ground_reply(text, mini[law], "541", mode="full")
    assert (full["cited"], full["invented"]) == (cited, invented)
    upstream = ground_reply(text, mini[law], "541", mode="upstream")
    assert upstream["cited"] == (cited if up_cited is None else up_cited)
    assert upstream["invented"] == (invented if up_invented is None else up_invented)


def test_reply_table_is_large_enough():
    assert len(REPLIES) >= 40


# -- spans, tags, ranges -------------------------------------------------------------------------

def test_find_citations_spans_and_tags():
    text = "民法第五百四十一条及び附則第二条"
    found = find_citations(text)
    assert found == [Citation("541", False, (2, 9)), Citation("2", True, (11, 16))]
    assert [text[slice(*c.span)] for c in found] == ["第五百四十一条", "附則第二条"]
    assert [c.key for c in found] == ["541", "附則2"]
    assert all(not c.supplementary for c in find_citations(text, "upstream"))


def test_supplementary_tag_does_not_leak_past_a_law_name():
    assert extract_citations("附則第二条及び民法第五百四十一条") == ["附則2", "541"]


def test_expand_ranges():
    assert extract_citations("第三十八条から第四十条まで", expand_ranges=True) == ["38", "39", "40"]
    assert extract_citations("Articles 541 to 543", expand_ranges=True) == ["541", "542", "543"]
    assert extract_citations("第三百九十八条の二十から第三百九十八条の二十二まで", expand_ranges=True) == [
        "398-20", "398-21", "398-22"]
    # different branch depth: both ends only; から without まで is not a range
    assert extract_citations("第三条の二から第五条まで", expand_ranges=True) == ["3-2", "5"]
    assert extract_citations("第三条から第五条の規定により", expand_ranges=True) == ["3", "5"]


# Forms a reply may take beyond jacite-bench's own: hyphenated branches, ノ, 條, lists after および / や,
# wave-dash ranges. Expected ids are read off the text by hand; upstream is the published regex's reading.
@pytest.mark.parametrize("text, full, upstream", [
    ("民法第415-2条", ["415-2"], []),                     # never a phantom article 2
    ("第５４１－２条", ["541-2"], []),                     # full-width digits and hyphen
    ("415-2条の規定", ["415-2"], []),
    ("第四百十五条ノ二", ["415-2"], ["415"]),
    ("第四百十五條", ["415"], []),
    ("第四百十五條の二", ["415-2"], []),
    ("第1条および第2条", ["1", "2"], ["1", "2"]),
    ("第1条および2条", ["1", "2"], ["1"]),
    ("第五百四十一条および五百四十二条", ["541", "542"], ["541"]),
    ("第五百四十一条や五百四十二条", ["541", "542"], ["541"]),
    ("第541条や第542条", ["541", "542"], ["541", "542"]),
    ("第3条～第5条", ["3", "5"], ["3", "5"]),               # a range gives its two ends, as the benchmark counts
    ("第3条〜5条", ["3", "5"], ["3"]),
    ("第一条ノ一部", ["1"], ["1"]),                          # ノ + counter is no branch
])
def test_further_reply_forms(text, full, upstream):
    assert extract_citations(text) == full
    assert extract_citations(text, "upstream") == upstream


def test_wave_dash_is_a_range():
    assert extract_citations("第3条～第5条", expand_ranges=True) == ["3", "4", "5"]
    assert extract_citations("第三条〜五条", expand_ranges=True) == ["3", "4", "5"]
    assert extract_citations("第1条および第3条", expand_ranges=True) == ["1", "3"]  # a list, not a range


# -- registry titles ---------------------------------------------------------------------------------

@pytest.mark.parametrize("title, ids", [
    ("第一条", ["1"]),
    ("第三条の二", ["3-2"]),
    ("第二百五十二条の十七の二", ["252-17-2"]),
    ("第五百十六条及び第五百十七条", ["516", "517"]),
    ("第三十八条から第八十四条まで", [str(n) for n in range(38, 85)]),
    ("第百五十五条から第百五十七条まで", ["155", "156", "157"]),
])
def test_article_ids_from_title(title, ids):
    assert article_ids_from_title(title) == ids


@pytest.mark.parametrize("ref, upstream", [
    ("Article 541.", "541"),
    ("第百二十五条の二の三", "125-2"),
    ("第五百四十一条第二項", "541"),
    ("第三十八条から第八十四条まで", "38"),
    ("第五百十六条及び第五百十七条", "516"),
    ("附則第一条", None),
    ("民法第一条", None),
    ("五百四十一条", "541"),
    ("415-2", None),
    ("５４１", "５４１"),
    ("第一〇条", None),
])
def test_normalise_upstream_edge_cases(ref, upstream):
    assert normalise_article_ref(ref, "upstream") == upstream


@pytest.mark.parametrize("ref, full", [
    ("第百二十五条の二の三", "125-2-3"),
    ("第三十八条から第八十四条まで", "38"),
    ("附則第一条", "附則1"),
    ("民法第一条", "1"),
    ("五百四十一条", "541"),
    ("五百四十一", "541"),
    ("415-2", "415-2"),
    ("0541", "541"),
    ("第一〇条", "10"),
    ("Article 541.", "541"),
    ("hello", None),
    ("条", None),
    ("", None),
    (None, None),
])
def test_normalise_full(ref, full):
    assert normalise_article_ref(ref) == full


def test_unknown_mode_is_refused():
    with pytest.raises(ValueError, match="unknown citation mode"):
        extract_citations("第一条", mode="loose")


# -- the first-release extractor ------------------------------------------------------------------------

@pytest.mark.parametrize("text, v1", [
    ("民法第二条は……第一条の規定……第二条の二……", ["2-2", "2", "1", "2"]),
    ("第二条の二", ["2-2", "2"]),
    ("第百二十五条の二の三", ["125-2", "125"]),
    ("第五条、Article 7、第五条、第三条の二", ["3-2", "5", "5", "3", "7"]),
    ("Article 541-2 and 第541条", ["541", "541-2"]),
    ("", []),
    (None, []),
])
def test_extract_citations_v1(text, v1):
    assert extract_citations_v1(text) == v1
