"""jacite sources in process: where the registry is found, the questions files, and what the read report records."""

from __future__ import annotations

import json
import shutil

import pytest

from auditpacks.core.errors import PackError
from auditpacks.packs.jacite import source
from auditpacks.packs.readreport import ReadReport
from auditpacks.packs.sources import Source
from tests.support.paths import FIXTURES

REGISTRY = FIXTURES / "jacite" / "registry.json"
QUESTIONS = json.loads((FIXTURES / "jacite" / "questions.json").read_text(encoding="utf-8"))
NOT_A_REGISTRY = '{"note": "not a registry"}'


def _put(root, name, text):
    (root / name).parent.mkdir(parents=True, exist_ok=True)
    (root / name).write_text(text, encoding="utf-8")
    return root / name


def _jsonl(rows):
    return "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)


def _articles():
    return sum(len(law["articles"]) for law in json.loads(REGISTRY.read_text(encoding="utf-8"))["laws"])


@pytest.mark.parametrize("origin, where", [("local", None), ("hf:raihan-js/jacite-bench", "hf:raihan-js/jacite-bench")])
def test_a_folder_without_a_registry_names_where_it_looked(tmp_path, origin, where):
    with pytest.raises(PackError) as err:
        source.locate(Source(tmp_path, origin), "registry.json", source._is_registry)
    assert str(err.value) == (f"registry.json: not found in {where or tmp_path}; looked at registry.json (absent), "
                              "data/registry.json (absent) (an `hf download` copy or a clone of the benchmark's "
                              "repository with its data/ folder)")


def test_the_registry_is_the_first_file_of_the_right_shape(tmp_path):
    _put(tmp_path, "registry.json", NOT_A_REGISTRY)
    shutil.copy(REGISTRY, _put(tmp_path, "data/registry.json", ""))
    path, data = source.locate(Source(tmp_path, "local"), "registry.json", source._is_registry)
    assert path == tmp_path / "data" / "registry.json" and [law["title"] for law in data["laws"]][0] == "民法"


@pytest.mark.parametrize("files, message", [
    ({"registry.json": NOT_A_REGISTRY, "data/registry.json": "[1]"}, "registry.json: field 'laws' is missing or not a list"),
    ({"data/registry.json": "[1]"}, "registry.json: a registry is a JSON object with a 'laws' list"),
    ({"registry.json": '{"laws": {}}'}, "registry.json: field 'laws' is missing or not a list"),
])
def test_only_files_of_the_wrong_shape_are_judged_by_the_first(tmp_path, files, message):
    for name, text in files.items():
        _put(tmp_path, name, text)
    with pytest.raises(PackError) as err:
        source.load(Source(tmp_path, "local"))
    assert str(err.value) == message


def test_the_report_records_registry_questions_and_the_stray_registry_left_out(tmp_path):
    _put(tmp_path, "registry.json", NOT_A_REGISTRY)
    shutil.copy(REGISTRY, _put(tmp_path, "data/registry.json", ""))
    _put(tmp_path, "questions.jsonl", _jsonl(QUESTIONS))
    _put(tmp_path, "extra/more_questions.jsonl", _jsonl(QUESTIONS[:1]))
    _put(tmp_path, "extra/other.jsonl", _jsonl(QUESTIONS[:1]))  # not named like a questions or registry file
    report = ReadReport(tmp_path)
    registry, questions, entries, path = source.load(Source(tmp_path, "hf:o/n"), None, report)
    assert path == tmp_path / "data" / "registry.json" and len(questions) == len(QUESTIONS)
    assert [(e["name"], e["origin"]) for e in entries] == [("data/registry.json", "hf:o/n"), ("questions.jsonl", "hf:o/n")]
    assert report.as_dict() == {
        "tables": [{"table": "registry", "files": ["data/registry.json"], "rows": _articles()},
                   {"table": "questions", "files": ["questions.jsonl"], "rows": len(QUESTIONS)}],
        "skipped": [{"file": "registry.json", "why": "data/registry.json was read instead", "looks_like_data": False},
                    {"file": "extra/more_questions.jsonl", "why": "not the questions table read",
                     "looks_like_data": True}],
        "warnings": []}


def test_without_questions_the_report_holds_the_registry_alone(tmp_path):
    shutil.copy(REGISTRY, tmp_path / "registry.json")
    report = ReadReport(tmp_path)
    assert source.load(Source(tmp_path, "local"), None, report)[1] is None
    assert report.as_dict() == {"tables": [{"table": "registry", "files": ["registry.json"], "rows": _articles()}],
                                "skipped": [], "warnings": []}


def test_questions_in_part_files_are_read_in_order_as_one_table(tmp_path):
    shutil.copy(REGISTRY, tmp_path / "registry.json")
    half = len(QUESTIONS) // 2
    _put(tmp_path, "questions-00000-of-00002.jsonl", _jsonl(QUESTIONS[:half]))
    _put(tmp_path, "questions-00001-of-00002.jsonl", _jsonl(QUESTIONS[half:]))
    report = ReadReport(tmp_path)
    _, questions, entries, _ = source.load(Source(tmp_path, "local"), {"129AC0000000089": "Civil Code"}, report)
    assert [q["id"] for q in questions] == [q["id"] for q in QUESTIONS]
    assert [e["name"] for e in entries] == ["registry.json", "questions-00000-of-00002.jsonl",
                                            "questions-00001-of-00002.jsonl"]
    assert report.tables[1]["files"] == ["questions-00000-of-00002.jsonl", "questions-00001-of-00002.jsonl"]
    assert report.tables[1]["rows"] == len(QUESTIONS)


@pytest.mark.parametrize("files, label", [
    ({"questions.jsonl": "\n"}, "questions.jsonl"),
    ({"questions-00000-of-00002.jsonl": "\n", "questions-00001-of-00002.jsonl": "\n"}, "questions (2 files)"),
])
def test_an_empty_questions_table_is_refused_not_replaced(tmp_path, files, label):
    shutil.copy(REGISTRY, tmp_path / "registry.json")
    for name, text in files.items():
        _put(tmp_path, name, text)
    with pytest.raises(PackError) as err:
        source.load(Source(tmp_path, "local"))
    assert str(err.value) == (f"{label}: read 0 questions (an empty table); remove it to use questions made "
                              "from the registry")


def test_questions_are_validated_with_the_english_law_names(tmp_path):
    shutil.copy(REGISTRY, tmp_path / "registry.json")
    _put(tmp_path, "questions.jsonl", _jsonl([{"question": "What does Article 1 say?", "law": "Civil Code",
                                                "gold_article": "1"}]))
    _, questions, _, _ = source.load(Source(tmp_path, "local"), {"129AC0000000089": "Civil Code"})
    assert (questions[0]["law_id"], questions[0]["id"]) == ("129AC0000000089", "q0000")
    with pytest.raises(PackError, match=r"^questions\.jsonl: record #0 \(\?\): cannot tell which law"):
        source.load(Source(tmp_path, "local"))


def test_a_bundled_file_that_is_not_an_object_is_one_line(tmp_path, monkeypatch):
    path = _put(tmp_path, "minpo.json", "[]")
    monkeypatch.setattr(source, "bundled_registry_path", lambda: path)
    with pytest.raises(PackError) as err:
        source.load(None)
    assert str(err.value) == "minpo.json: expected an object with 'articles'"


def test_the_bundled_registry_is_named_by_its_file():
    assert source.registry_from_minpo({"articles": []}) == {
        "source": None, "laws": [{"law_id": None, "title": None, "revision_id": None, "articles": []}]}
    with pytest.raises(PackError, match=r"^minpo\.json: field 'articles'"):
        source.registry_from_minpo({})


def _clone_with_questions(tmp_path, text):
    shutil.copy(REGISTRY, _put(tmp_path, "data/registry.json", ""))
    _put(tmp_path, "data/questions.jsonl", text)
    return Source(tmp_path, "local")


def test_a_clone_names_its_questions_file_by_its_path_in_entries_and_errors(tmp_path):
    entries = source.load(_clone_with_questions(tmp_path, _jsonl(QUESTIONS)))[2]
    assert [e["name"] for e in entries] == ["data/registry.json", "data/questions.jsonl"]
    (tmp_path / "data" / "questions.jsonl").write_text('{"question": "x"\n', encoding="utf-8")
    with pytest.raises(PackError, match=r"^data/questions\.jsonl: cannot read: "):
        source.load(Source(tmp_path, "local"))


def test_questions_in_two_formats_are_one_line(tmp_path):
    shutil.copy(REGISTRY, tmp_path / "registry.json")
    _put(tmp_path, "questions.jsonl", _jsonl(QUESTIONS))
    _put(tmp_path, "questions.parquet", "")
    with pytest.raises(PackError) as err:
        source.load(Source(tmp_path, "local"))
    assert str(err.value) == "questions (2 files): mixed or unknown file formats (.jsonl, .parquet)"


def test_a_registry_file_left_unread_is_reported(tmp_path):
    shutil.copy(REGISTRY, tmp_path / "registry.json")
    _put(tmp_path, "old/registry-2023.jsonl", "{}\n")
    report = ReadReport(tmp_path)
    source.load(Source(tmp_path, "local"), None, report)
    assert report.skipped == [{"file": "old/registry-2023.jsonl", "why": "not the questions table read",
                               "looks_like_data": True}]


def test_a_bad_bundled_file_is_named_by_its_file(tmp_path, monkeypatch):
    path = _put(tmp_path, "law.json", json.dumps({"law_id": "L", "articles": [{"caption": "x"}]}))
    monkeypatch.setattr(source, "bundled_registry_path", lambda: path)
    with pytest.raises(PackError) as err:
        source.load(None)
    assert str(err.value) == "law.json: articles[0] field 'article' is missing or not a string"


def test_a_gold_article_is_read_from_the_title_by_jacite_bench_rules_or_refused():
    registry = {"laws": [{"law_id": "L", "title": "民法", "articles": []}]}
    questions = [{"question": "第二条の二の三とは。", "article": "第二条の二の三"}]
    assert source.validate_questions(questions, "q.json", registry)[0]["gold_article"] == "2-2"  # one branch level
    with pytest.raises(PackError) as err:
        source.validate_questions([{"id": "a", "question": "x", "gold_article": 5}], "q.json", registry)
    assert str(err.value) == "q.json: record #0 (a) field 'gold_article' is missing (and no 'article' title to read it from)"
