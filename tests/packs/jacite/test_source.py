"""jacite sources: registry and question validation, the law join, and the bundled 民法 registry."""

import hashlib
import json
import shutil

import pytest

from auditpacks.core.errors import PackError
from auditpacks.packs.jacite import source
from auditpacks.packs.sources import Source
from tests.support.paths import FIXTURES, ROOT

CIVIL, PENAL = "129AC0000000089", "140AC0000000045"
LAWS = [{"law_id": CIVIL, "title": "民法", "articles": []}, {"law_id": PENAL, "title": "刑法", "articles": []}]
ENGLISH = {CIVIL: "Civil Code", PENAL: "Penal Code"}


def registry(*laws):
    return {"laws": list(laws or LAWS)}


@pytest.mark.parametrize("record, law_id", [
    ({"law_id": PENAL, "law": "民法"}, PENAL),   # law_id wins over the name
    ({"law": "民法"}, CIVIL),
    ({"law": "Penal Code"}, PENAL),              # the English name
])
def test_join_law_by_id_then_by_name(record, law_id):
    assert source.join_law(record, LAWS, "q.json: record #0", ENGLISH)["law_id"] == law_id


def test_join_law_falls_back_to_the_only_law():
    assert source.join_law({}, LAWS[:1], "w")["law_id"] == CIVIL


@pytest.mark.parametrize("record, laws, message", [
    ({"law_id": "nope"}, LAWS, "w: field 'law_id' 'nope' is not a law of the registry"),
    ({"law_id": 7}, LAWS, "w: field 'law_id' 7 is not a law of the registry"),
    ({"law": 3}, LAWS, "w: field 'law' is int, not a law's name"),
    ({}, LAWS, "w: cannot tell which law it is about (no law_id; law None names none of the registry's 2 laws)"),
    ({"law": "憲法"}, LAWS, "w: cannot tell which law it is about (no law_id; law '憲法' names none of the "
                            "registry's 2 laws)"),
    ({"law": "民法"}, LAWS + [{"law_id": "x", "title": "民法"}],
     "w: cannot tell which law it is about (no law_id; law '民法' names several of the registry's 3 laws)"),
])
def test_join_law_errors_are_one_line(record, laws, message):
    with pytest.raises(PackError) as err:
        source.join_law(record, laws, "w", ENGLISH)
    assert str(err.value) == message


def test_questions_get_their_defaults_filled_in():
    questions = [
        {"question": "【民法】第一条の内容を教えてください。", "law_id": CIVIL, "article": "第一条"},
        {"id": 17, "question": "What does Article 199 of the Penal Code say?", "law": "Penal Code",
         "article": "第百九十九条"},
        {"question": "Which article?", "law": "民法", "gold_article": "3", "language": "ja"},
    ]
    out = source.validate_questions(questions, "questions.json", registry(), ENGLISH)
    assert [(q["id"], q["language"], q["law_id"], q["law"], q["article"], q["gold_article"]) for q in out] == [
        ("q0000", "ja", CIVIL, "民法", "第一条", "1"),                # Japanese script → ja; gold read from the title
        ("17", "en", PENAL, "Penal Code", "第百九十九条", "199"),      # id as text; the name given is kept
        ("q0002", "ja", CIVIL, "民法", "3", "3"),                      # article defaults to the gold id
    ]
    assert questions[0] == {"question": "【民法】第一条の内容を教えてください。", "law_id": CIVIL,
                            "article": "第一条"}  # input untouched


@pytest.mark.parametrize("data, message", [
    ({}, "questions.json: questions are a JSON list"),
    ([None], "questions.json: record #0 is not an object"),
    ([{"id": "a", "question": ""}], "questions.json: record #0 (a) field 'question' is missing or empty"),
    ([{"question": "x", "law": "民法"}],
     "questions.json: record #0 (?) field 'gold_article' is missing (and no 'article' title to read it from)"),
])
def test_bad_questions_are_one_line(data, message):
    with pytest.raises(PackError) as err:
        source.validate_questions(data, "questions.json", registry(), ENGLISH)
    assert str(err.value) == message


@pytest.mark.parametrize("data, message", [
    ([], "r.json: a registry is a JSON object with a 'laws' list"),
    ({"laws": {}}, "r.json: field 'laws' is missing or not a list"),
    ({"laws": [None]}, "r.json: law #0 is null, not an object"),
    ({"laws": [[]]}, "r.json: law #0 is a list, not an object"),
    ({"laws": [{"law_id": "A", "title": ""}]}, "r.json: law #0 field 'title' is missing or not a string"),
    ({"laws": [{"law_id": "A", "title": "t"}]}, "r.json: law A: field 'articles' is missing or not a list"),
    ({"laws": [{"law_id": "A", "title": "t", "articles": [{"article": 1}]}]},
     "r.json: law A article #0 field 'article' is missing or not a string"),
    ({"laws": [{"law_id": "A", "title": "t", "articles": [{"article": "第一条", "caption": None}]}]},
     "r.json: law A article #0 field 'caption' is not a string"),
])
def test_bad_registries_are_one_line(data, message):
    with pytest.raises(PackError) as err:
        source.validate_registry(data, "r.json")
    assert str(err.value) == message


def test_registry_from_minpo_keeps_titles_and_captions_in_order():
    data = {"law_id": CIVIL, "title": "民法", "source": "viewer", "articles": [
        {"article": "第一条", "caption": "（基本原則）", "text": "t", "deleted": False, "supplementary": False},
        {"article": "第二条", "caption": "", "text": "t", "deleted": False, "supplementary": False}]}
    assert source.registry_from_minpo(data) == {"source": "viewer", "laws": [
        {"law_id": CIVIL, "title": "民法", "revision_id": "viewer",
         "articles": [{"article": "第一条", "caption": "（基本原則）"}, {"article": "第二条", "caption": ""}]}]}


def test_load_without_a_source_uses_the_bundled_registry():
    registry_, questions, entries, path = source.load(None)
    assert questions is None and path == source.bundled_registry_path()
    law = registry_["laws"][0]
    assert (law["law_id"], law["title"]) == (CIVIL, "民法")
    assert law["articles"][0] == {"article": "第一条", "caption": "（基本原則）"}
    bundled = ROOT / "packs" / "data" / "minpo.json"
    assert entries == [{"name": "packs/data/minpo.json", "origin": "bundled", "bytes": bundled.stat().st_size,
                        "sha256": hashlib.sha256(bundled.read_bytes()).hexdigest()}]


def test_load_from_a_folder_reads_registry_and_questions(tmp_path):
    for name in ("registry.json", "questions.json"):
        shutil.copy(FIXTURES / "jacite" / name, tmp_path / name)
    registry_, questions, entries, path = source.load(Source(root=tmp_path, origin="hf:owner/name"))
    assert path == tmp_path / "registry.json"
    assert [law["title"] for law in registry_["laws"]] == ["民法", "刑法", "地方自治法"]
    assert len(questions) == len(json.loads((tmp_path / "questions.json").read_text()))
    assert [(e["name"], e["origin"]) for e in entries] == [("registry.json", "hf:owner/name"),
                                                          ("questions.json", "hf:owner/name")]
    (tmp_path / "questions.json").unlink()  # questions are optional
    assert source.load(Source(root=tmp_path, origin="local"))[1] is None
