"""Reading a split results file: its parts and documents named in its header, bad ones refused in one line."""

from __future__ import annotations

import json
import re

import pytest

from auditpacks.core.runs.results import ResultsError, iter_results
from auditpacks.core.runs.results_layout import LayoutError, documents_key, layout, viewer_command


def result(name: str, ref: str | None = None) -> dict:
    user = {"role": "user", "content": "q"}
    if ref:
        user["documents_ref"] = ref
    return {"scenario_name": name, "severity": "pass", "judgment": {}, "conversation": [user]}


def part(path, results, **header):
    path.write_text(json.dumps({"timestamp": "t", "summary": {}, **header, "results": results}, indent=2),
                    encoding="utf-8")
    return path


def test_documents_key_is_the_canonical_sha256_prefix():
    key = documents_key(["a", {"text": "b", "relevant": True}])
    assert key == documents_key(["a", {"relevant": True, "text": "b"}])
    assert len(documents_key(["a"])) == 16 and documents_key(["a"]) != documents_key(["b"])


def test_parts_are_read_in_order_and_documents_put_back(tmp_path):
    key = documents_key(["judgment one"])
    (tmp_path / "m.documents.jsonl").write_text(json.dumps({"key": key, "documents": ["judgment one"]}) + "\n",
                                                encoding="utf-8")
    part(tmp_path / "m.part2.json", [result("c", key)], documents="m.documents.jsonl")
    first = part(tmp_path / "m.json", [result("a", key), result("b")], documents="m.documents.jsonl",
                 parts=["m.part2.json"])
    assert layout(first).parts == [first, tmp_path / "m.part2.json"]
    read = [r.raw for r in iter_results(first)]
    assert [r["scenario_name"] for r in read] == ["a", "b", "c"]
    assert read[0]["conversation"][0] == {"role": "user", "content": "q", "documents": ["judgment one"]}
    kept = [r.raw for r in iter_results(first, documents=False)]
    assert kept[2]["conversation"][0]["documents_ref"] == key


@pytest.mark.parametrize("header, files, message", [
    ({"parts": ["m.part2.json"]}, {}, "m.part2.json: results file not found"),
    ({"parts": ["../elsewhere.json"]}, {}, "m.json: field parts holds '../elsewhere.json', not a file name beside it"),
    ({"parts": "m.part2.json"}, {}, "m.json: field parts is not a list"),
    ({"documents": "m.documents.jsonl"}, {}, "m.documents.jsonl: documents file not found"),
    ({"documents": "m.documents.jsonl"}, {"m.documents.jsonl": '{"key": "other", "documents": []}\n'},
     "m.json result #0: field documents_ref 'abc' is not in m.documents.jsonl"),
    ({"documents": "m.documents.jsonl"}, {"m.documents.jsonl": "not json\n"},
     "m.documents.jsonl line 1: not valid JSON"),
    ({}, {}, "m.json result #0: field documents_ref given, but the file names no documents file"),
])
def test_a_broken_split_file_is_one_line_naming_file_and_field(tmp_path, header, files, message):
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    first = part(tmp_path / "m.json", [result("a", "abc" if "parts" not in header else None)], **header)
    with pytest.raises(ResultsError) as err:
        list(iter_results(first))
    assert str(err.value) == message


def test_the_viewer_command_is_studios_and_quotes_the_folder():
    studio = "uvx simpleaudit-studio --visualize-only --results_dir"
    assert viewer_command("results/iustitia") == f"{studio} results/iustitia"
    assert viewer_command("my results") == f"{studio} 'my results'"


def test_a_header_naming_files_its_writer_would_not_is_refused(tmp_path):
    for header, message in [({"parts": ["other.json"]}, "field parts holds 'other.json', not this file's own "
                                                        "'m.part2.json'"),
                            ({"parts": ["m.part3.json"]},
                             "field parts holds 'm.part3.json', not this file's own 'm.part2.json'"),
                            ({"documents": "m.journal.jsonl"}, "field documents holds 'm.journal.jsonl', not this "
                                                               "file's own 'm.documents.jsonl'"),
                            ({"documents": ".."}, "field documents holds '..', not a file name beside it")]:
        first = part(tmp_path / "m.json", [result("a")], **header)
        with pytest.raises(LayoutError, match=f"^m.json: {re.escape(message)}"):
            layout(first)
    later = part(tmp_path / "m.part2.json", [result("a")], documents="m.documents.jsonl")
    assert layout(later).documents == tmp_path / "m.documents.jsonl"   # a later part names its first's documents
