"""Which articles exist, the finer points: marks and their absence, upstream ids, titles left out, error lines."""

import json

import pytest

from auditpacks.core.errors import PackError
from auditpacks.packs.jacite.registry import LawIndex, is_deleted_text, law_text_articles, load_registry, \
    registry_from_manifest


def _load(tmp_path, data, name="r.json"):
    path = tmp_path / name
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return load_registry(path)


def _law(*articles, **fields):
    return {"laws": [{"law_id": "L", **fields, "articles": [a if isinstance(a, dict) else {"article": a}
                                                              for a in articles]}]}


@pytest.mark.parametrize("articles, main, suppl", [
    (["第一条", "第二条", "第一条", "第三条"], {"1", "2"}, {"1", "3"}),   # once supplementary, always
    (["第一条", "第二条", "第二条"], {"1", "2"}, {"2"}),                    # a repeated title does not rise
    (["第一条", {"article": "第二条", "supplementary": True}], {"1"}, {"2"}),  # the flag over the rising order
    (["第二条", {"article": "第一条", "supplementary": False}], {"1", "2"}, set()),
    (["第一条", {"article": "第二条", "supplementary": "no"}], {"1", "2"}, set()),  # not a flag: order decides
])
def test_supplementary_provisions_by_flag_else_by_the_first_title_that_does_not_rise(tmp_path, articles, main, suppl):
    law = _load(tmp_path, _law(*articles))["L"]
    assert (law.ids, law.supplementary) == (main, suppl)


@pytest.mark.parametrize("articles, deleted", [
    ([{"article": "第一条", "caption": "削除"}, {"article": "第二条"}], {"1"}),           # a caption alone says so
    ([{"article": "第一条", "text": "本文"}, {"article": "第二条", "text": "本文"}], set()),  # texts: marked, none deleted
    ([{"article": "第一条"}, {"article": "第二条", "caption": "（目的）"}], None),          # nothing said: unknown
])
def test_deleted_placeholders_from_text_or_caption(tmp_path, articles, deleted):
    assert _load(tmp_path, _law(*articles))["L"].deleted == deleted


def test_upstream_ids_follow_jacite_bench_rules_and_titles_default_to_empty(tmp_path):
    titles = ["第一条", "第二条の二の三", "附則第一条"]
    registry = _load(tmp_path, _law(*titles))["L"]
    text = _load(tmp_path, {"law_id": "T", "articles": [{"article": t} for t in titles[:2]]}, "t.json")["T"]
    for law in (registry, text):
        assert law.upstream_ids == {"1", "2-2"} and law.title == ""
    assert "2-2-3" in text.ids


def test_the_index_modes():
    law = LawIndex("L", "t", frozenset({"1", "2", "2-2-3"}), frozenset({"1", "2", "2-2"}), frozenset({"2", "1"}),
                   frozenset({"1"}))
    assert law.existing("upstream") == {"1", "2", "2-2"}
    assert law.existing("upstream", "invented") == {"2-2"}
    assert law.existing("upstream", "invented", supplementary=True) == {"2-2"}  # upstream knows no 附則
    assert law.existing(supplementary=True, deleted_as="invented") == {"1"}     # a deleted main article 1 aside
    unmarked = LawIndex("L", "t", frozenset({"1"}), frozenset({"1"}), None, frozenset({"1"}))
    assert unmarked.existing(supplementary=True, deleted_as="invented") == {"1"}


def test_a_manifest_law_without_a_title_has_an_empty_one():
    block = {"L": {"ids": ["1"], "upstream_ids": ["1"], "supplementary_ids": [], "deleted": None}}
    assert registry_from_manifest({"grading": {"registry": block}})["L"].title == ""


@pytest.mark.parametrize("text, deleted", [("削除X", False), ("X削除", False)])
def test_a_placeholder_is_the_word_alone(text, deleted):
    assert is_deleted_text(text) is deleted


@pytest.mark.parametrize("data, message", [
    ({"laws": {}}, "r.json: neither a registry (field 'laws') nor a law text (fields 'law_id', 'articles')"),
    ({"laws": ["民法"]}, "r.json: laws[0] field 'law_id' is missing or not a string"),
    ({"laws": [{"law_id": "L", "articles": ["第一条"]}]},
     "r.json: laws[0] (law_id L) articles[0] field 'article' is missing or not a string"),
    ({"law_id": 5, "articles": []}, "r.json field 'law_id' is missing or not a string"),
    ({"law_id": "L", "articles": [{"caption": "x"}]}, "r.json: articles[0] field 'article' is missing or not a string"),
    ({"law_id": "L", "articles": [{"article": "第一条"}, {"article": "第二条", "range_deleted": True}]},
     "r.json: articles[1] field 'range_heading' is missing or not a string"),
    ("{", "r.json: invalid JSON at line 1 column 2: Expecting property name enclosed in double quotes"),
])
def test_bad_files_are_one_line_naming_the_entry(tmp_path, data, message):
    path = tmp_path / "r.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data, ensure_ascii=False), encoding="utf-8")
    with pytest.raises(PackError) as err:
        load_registry(path)
    assert str(err.value) == message


def test_a_missing_registry_file_says_so(tmp_path):
    with pytest.raises(PackError) as err:
        load_registry(tmp_path / "registry.json")
    assert str(err.value) == "registry.json: registry file not found"


def test_a_law_text_without_articles_is_named():
    with pytest.raises(PackError) as err:
        law_text_articles({})
    assert str(err.value) == "law text: field 'articles' is missing or not a list"
