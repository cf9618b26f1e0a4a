"""Which articles exist, by hand: registry laws with and without marks, law texts, the manifest round trip."""

import json

import pytest

from auditpacks.core.errors import PackError
from auditpacks.packs.jacite.registry import (
    LawIndex,
    id_sort_key,
    is_deleted_text,
    law_text_articles,
    load_registry,
    registry_from_manifest,
    registry_to_manifest,
)


def write(path, data):
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


def test_id_order_is_numeric_then_text():
    ids = ["10", "2-2", "x", "2", "1-2-3", "2-10", "2-3"]
    assert sorted(ids, key=id_sort_key) == ["1-2-3", "2", "2-2", "2-3", "2-10", "10", "x"]


@pytest.mark.parametrize("text, deleted", [("削除", True), ("（削除）", True), ("　削除\n", True),
                                           ("削除する。", False), (None, False), ("", False)])
def test_deletion_placeholders(text, deleted):
    assert is_deleted_text(text) is deleted


def test_an_unmarked_registry_law_splits_main_and_supplementary_by_rising_titles(tmp_path):
    law = {"law_id": "L1", "title": "民法", "articles": [
        {"article": "第一条"}, {"article": "第二条の二"}, {"article": "第三十条から第三十二条まで"},
        {"article": "附則"},                       # names no article: skipped
        {"article": "第一条"}, {"article": "第二条"}]}  # titles fall back: supplementary from here
    index = load_registry(write(tmp_path / "registry.json", {"laws": [law]}))
    assert index["L1"] == LawIndex("L1", "民法", frozenset({"1", "2-2", "30", "31", "32"}),
                                   frozenset({"1", "2-2", "30", "2"}), None, frozenset({"1", "2"}))


def test_marked_entries_are_read_as_marked(tmp_path):
    law = {"law_id": "L1", "title": "t", "articles": [
        {"article": "第一条", "text": "本文"}, {"article": "第二条", "text": "削除"},
        {"article": "第三条", "caption": "削除", "deleted": False},   # the flag wins over the caption
        {"article": "第一条", "supplementary": True, "deleted": True}]}
    law_index = load_registry(write(tmp_path / "r.json", {"laws": [law]}))["L1"]
    assert law_index.ids == {"1", "2", "3"} and law_index.deleted == {"2"}
    assert law_index.supplementary == {"1"}
    assert law_index.existing() == {"1", "2", "3"}
    assert law_index.existing(deleted_as="invented") == {"1", "3"}
    assert law_index.existing(supplementary=True, deleted_as="invented") == {"1"}
    assert law_index.existing("upstream", "invented") == {"1", "3"}


def test_deleted_as_invented_needs_marks_and_known_words():
    law = LawIndex("L1", "t", frozenset({"1"}), frozenset({"1"}), None)
    with pytest.raises(PackError) as err:
        law.existing(deleted_as="invented")
    assert str(err.value) == ("registry of law L1: deleted placeholders are not marked, so deleted_as='invented' "
                              "cannot be applied")
    with pytest.raises(ValueError, match="unknown deleted_as 'gone'; expected one of real, invented"):
        law.existing(deleted_as="gone")


def test_a_law_text_folds_deleted_ranges_into_one_heading():
    data = {"law_id": "L", "articles": [
        {"article": "第一条", "caption": "（目的）"},
        {"article": "第二条", "range_deleted": True, "range_heading": "第二条から第四条まで", "deleted": True},
        {"article": "第三条", "range_deleted": True, "range_heading": "第二条から第四条まで", "deleted": True},
        {"article": "第五条", "caption": 5},
        {"article": "第一条", "supplementary": True}]}
    assert law_text_articles(data) == [
        {"article": "第一条", "caption": "（目的）", "supplementary": False, "deleted": False},
        {"article": "第二条から第四条まで", "caption": "", "supplementary": False, "deleted": True},
        {"article": "第五条", "caption": "", "supplementary": False, "deleted": False},
        {"article": "第一条", "caption": "", "supplementary": True, "deleted": False}]


def test_a_law_text_file_is_a_registry_of_one_law(tmp_path):
    data = {"law_id": "L", "title": "民法", "articles": [
        {"article": "第一条"}, {"article": "第二条", "range_deleted": True, "range_heading": "第二条及び第三条",
                                "deleted": True},
        {"article": "第一条", "supplementary": True, "deleted": True}]}
    law = load_registry(write(tmp_path / "minpo.json", data))["L"]
    assert (law.ids, law.deleted, law.supplementary) == ({"1", "2", "3"}, {"2", "3"}, {"1"})
    assert law.upstream_ids == {"1", "2"}


def test_the_bundled_law_is_the_civil_code():
    law = load_registry()["129AC0000000089"]
    assert law.title == "民法" and {"1", "2", "709"} <= law.ids and law.deleted is not None


@pytest.mark.parametrize("data, message", [
    ([], "r.json: neither a registry (field 'laws') nor a law text (fields 'law_id', 'articles')"),
    ({"laws": [{"title": "t"}]}, "r.json: laws[0] field 'law_id' is missing or not a string"),
    ({"laws": [{"law_id": "L"}]}, "r.json: laws[0] (law_id L) field 'articles' is missing or not a list"),
    ({"laws": [{"law_id": "L", "articles": [{"article": 1}]}]},
     "r.json: laws[0] (law_id L) articles[0] field 'article' is missing or not a string"),
    ({"law_id": "L", "articles": [{"article": "附則"}]}, "r.json: article '附則' names no article"),
])
def test_bad_registries_are_one_line(tmp_path, data, message):
    with pytest.raises(PackError) as err:
        load_registry(write(tmp_path / "r.json", data))
    assert str(err.value) == message


def test_the_manifest_round_trip_keeps_every_set():
    index = {"L2": LawIndex("L2", "b", frozenset({"10", "2"}), frozenset({"2"}), None),
             "L1": LawIndex("L1", "a", frozenset({"1"}), frozenset({"1"}), frozenset({"1"}), frozenset({"3"}))}
    block = registry_to_manifest(index)
    assert list(block) == ["L1", "L2"]
    assert block["L2"] == {"title": "b", "ids": ["2", "10"], "upstream_ids": ["2"], "deleted": None,
                           "supplementary_ids": []}
    assert registry_from_manifest({"grading": {"registry": json.loads(json.dumps(block))}}) == index


@pytest.mark.parametrize("manifest, message", [
    (None, "pack manifest: field grading.registry is missing; build the pack with the jacite builder"),
    ({"grading": {"registry": {}}}, "pack manifest: field grading.registry is missing; build the pack with the "
                                    "jacite builder"),
    ({"grading": {"registry": {"L": []}}}, "pack manifest: grading.registry['L'] is not an object"),
    ({"grading": {"registry": {"L": {"ids": [], "upstream_ids": []}}}},
     "pack manifest: grading.registry['L'] field 'supplementary_ids' is missing or not a list"),
    ({"grading": {"registry": {"L": {"ids": [], "upstream_ids": [], "supplementary_ids": [], "deleted": "x"}}}},
     "pack manifest: grading.registry['L'] field 'deleted' is neither a list nor null"),
])
def test_bad_manifest_registries_are_one_line(manifest, message):
    with pytest.raises(PackError) as err:
        registry_from_manifest(manifest)
    assert str(err.value) == message
