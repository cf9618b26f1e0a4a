"""The split layout's pieces on their own: the documents key's canonical form, a results header read without
its results, names a header may give, lines of a documents file, and documents stored and put back."""

from __future__ import annotations

import hashlib
import json

import pytest

from auditpacks.core.errors import PackError
from auditpacks.core.runs.results_layout import (DocumentStore, LayoutError, documents_key, layout, read_header, restore,
                                            stored)


def test_the_documents_key_is_the_sha256_of_compact_sorted_json_as_written():
    canonical = '[{"relevant":true,"text":"Aktgjykimi i gjykatës"},"b"]'
    expected = hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:16]
    assert documents_key([{"text": "Aktgjykimi i gjykatës", "relevant": True}, "b"]) == expected


HEADER = '{\n  "timestamp": "2026-12-06T10:00:00",\n  "parts": [\n    "m.part2.json"\n  ],\n  "summary": {}'


@pytest.mark.parametrize("ending", ["\n", "\r\n"])
def test_the_header_is_read_without_the_results(tmp_path, ending):
    path = tmp_path / "m.json"
    cut_off = HEADER + ',\n  "results": [\n    {"scenario_name": "a", "conver'   # the results are never parsed
    path.write_bytes(cut_off.replace("\n", ending).encode("utf-8"))
    header = read_header(path)
    assert header == {"timestamp": "2026-12-06T10:00:00", "parts": ["m.part2.json"], "summary": {}}


def test_an_empty_results_list_ends_the_header_too(tmp_path):
    path = tmp_path / "m.json"
    path.write_text(HEADER + ',\n  "results": []\n}\n', encoding="utf-8")
    assert read_header(path) == {"timestamp": "2026-12-06T10:00:00", "parts": ["m.part2.json"], "summary": {}}


@pytest.mark.parametrize("text, header", [
    ('{"timestamp": "t", "results": [{"scenario_name": "a"}], "parts": []}', {"timestamp": "t", "parts": []}),
    ('[{"scenario_name": "a"}]', {}),
    ('{\n"timestamp": "t",\n"results": []\n}', {"timestamp": "t"}),   # another indentation: read whole
])
def test_a_file_laid_out_otherwise_is_read_whole(tmp_path, text, header):
    path = tmp_path / "m.json"
    path.write_text(text, encoding="utf-8")
    assert read_header(path) == header


def test_a_header_that_is_no_json_is_refused_in_one_line(tmp_path):
    path = tmp_path / "m.json"
    path.write_text('{\n  "timestamp": "t"\n  "summary": {}\n  "results": []\n}\n', encoding="utf-8")
    with pytest.raises(PackError) as err:
        read_header(path)
    assert str(err.value) == "m.json: invalid JSON at line 3 column 3: Expecting ',' delimiter"


def write_header(path, **header):
    path.write_text(json.dumps({**header, "results": []}, indent=2), encoding="utf-8")
    return path


@pytest.mark.parametrize("name, shown", [
    (5, "'5'"), (["m.part2.json"], "\"['m.part2.json']\""), ("", "''"), ("..", "'..'"), (".", "'.'"),
    ("../m.part2.json", "'../m.part2.json'"), ("../" + "x" * 100, repr("../" + "x" * 77)),
])
def test_a_part_that_is_no_file_name_beside_the_results_is_refused(tmp_path, name, shown):
    path = write_header(tmp_path / "m.json", parts=[name])
    with pytest.raises(LayoutError) as err:
        layout(path)
    assert str(err.value) == f"m.json: field parts holds {shown}, not a file name beside it"


def test_a_long_name_that_is_not_the_writer_s_is_shown_cut(tmp_path):
    path = write_header(tmp_path / "m.json", parts=["y" * 100])
    with pytest.raises(LayoutError) as err:
        layout(path)
    assert str(err.value) == f"m.json: field parts holds {'y' * 80!r}, not this file's own 'm.part2.json'"


@pytest.mark.parametrize("line, error", [
    ("[1, 2]", "m.documents.jsonl line 2: field key or documents is missing"),
    ('{"key": 5, "documents": []}', "m.documents.jsonl line 2: field key or documents is missing"),
    ('{"key": "k"}', "m.documents.jsonl line 2: field key or documents is missing"),
    ('{"documents": []}', "m.documents.jsonl line 2: field key or documents is missing"),
    ("{not json", "m.documents.jsonl line 2: not valid JSON"),
])
def test_a_bad_line_of_the_documents_file_is_one_line(tmp_path, line, error):
    path = tmp_path / "m.documents.jsonl"
    path.write_text(json.dumps({"key": "a", "documents": ["x"]}) + "\n" + line + "\n", encoding="utf-8")
    with pytest.raises(LayoutError) as err:
        DocumentStore(path).get("a", "m.json result #1")
    assert str(err.value) == error


def test_documents_are_stored_once_and_put_back_where_they_stood(tmp_path):
    judgment = [{"text": "Aktgjykimi", "relevant": True}]
    key = documents_key(judgment)
    result = {"scenario_name": "a", "conversation": ["a plain entry", {"role": "user", "content": "q",
                                                                       "documents": judgment},
                                                     {"role": "assistant", "content": "x", "documents": []}]}
    written, keep = [], set()
    kept = stored(result, keep, lambda k, d: written.append((k, d)))
    assert kept["conversation"] == ["a plain entry", {"role": "user", "content": "q", "documents_ref": key},
                                    {"role": "assistant", "content": "x", "documents": []}]
    assert written == [(key, judgment)] and keep == {key}
    stored(result, keep, lambda k, d: written.append((k, d)))
    assert len(written) == 1  # already kept: written once
    path = tmp_path / "m.documents.jsonl"
    path.write_text(json.dumps({"key": key, "documents": judgment}) + "\n", encoding="utf-8")
    assert restore(kept, DocumentStore(path), "m.json result #1") == result


def test_a_result_without_a_conversation_is_kept_as_it_is():
    result = {"scenario_name": "a", "severity": "pass"}
    assert stored(result, set(), None) == result and "conversation" not in stored(result, set(), None)
    assert stored(result, set(), None) is not result


def test_a_plain_entry_naming_the_field_in_its_text_is_no_reference(tmp_path):
    path = tmp_path / "m.documents.jsonl"
    path.write_text(json.dumps({"key": "k", "documents": ["x"]}) + "\n", encoding="utf-8")
    result = {"conversation": ["see documents_ref", {"role": "user", "documents_ref": "k"}]}
    assert restore(result, DocumentStore(path), "w")["conversation"] == ["see documents_ref",
                                                                        {"role": "user", "documents": ["x"]}]
