"""Results files read one result at a time: the same results as ``json.load``, whatever the text holds, over
every part of a split file with its stored documents put back when a result is loaded."""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from simpleaudit import AuditResult, AuditResults

from auditpacks.core.runs.results_layout import LayoutError
from auditpacks.runner.store.results_file import slim_result, write_results
from auditpacks.runner.store.results_reader import load_audit_results, scan_results
from tests.support.fuzz import FUZZ


def result(name: str, reply: str, documents=None) -> dict:
    user = {"role": "user", "content": "q", **({"documents": documents} if documents else {})}
    return AuditResult(scenario_name=name, scenario_description="d", conversation=[user, {"role": "assistant",
                       "content": reply}], severity="pass", issues_found=[], positive_behaviors=[], summary="s",
                       recommendations=[], expected_behavior=["x"], judgment={"severity": "pass"}).to_dict()


TRICKY = ['    {', '    }', '  "results": [', '}\n    }\n', '"results": []', "第一条\u2028\u2029", "\\", '\r\n    },']


def written(path: Path, results: list[dict]) -> Path:
    write_results(path, [slim_result(r) for r in results], results)
    return path


def test_ranges_give_back_every_result_and_slim_copies(tmp_path):
    results = [result(f"s{i}", reply, documents=[{"title": "t", "text": reply}]) for i, reply in enumerate(TRICKY)]
    index, slim = scan_results(written(tmp_path / "r.json", results))
    assert index.whole is None and len(index) == len(results)  # read by range, not whole
    assert [index.load(i) for i in range(len(index))] == json.loads((tmp_path / "r.json").read_text())["results"]
    assert slim == [slim_result(r) for r in results]
    assert all("documents" not in m for s in slim for m in s["conversation"])


def test_simpleaudits_own_file_and_other_layouts(tmp_path):
    results = [result("a", "x"), result("b", '    }')]
    AuditResults([AuditResult(**r) for r in results]).save(str(tmp_path / "sa.json"))
    index, slim = scan_results(tmp_path / "sa.json")
    assert index.whole is None and [index.load(i) for i in range(2)] == results
    compact = tmp_path / "compact.json"
    compact.write_text(json.dumps({"summary": {}, "results": results}))
    index, slim = scan_results(compact)
    assert index.whole == results and slim == [slim_result(r) for r in results]
    empty = written(tmp_path / "empty.json", [])
    assert len(scan_results(empty)[0]) == 0


def test_a_cut_file_is_refused(tmp_path):
    path = written(tmp_path / "r.json", [result("a", "x"), result("b", "y")])
    text = path.read_text()
    path.write_text(text[: text.rindex('"severity"')])
    with pytest.raises(ValueError):
        scan_results(path)


@FUZZ
@given(st.lists(st.text(max_size=40), min_size=0, max_size=4))
def test_any_reply_text_reads_back_exactly(replies):
    with tempfile.TemporaryDirectory() as folder:
        path = written(Path(folder) / "r.json", [result(f"s{i}", r) for i, r in enumerate(replies)])
        index, _ = scan_results(path)
        assert [index.load(i) for i in range(len(index))] == json.loads(path.read_text(encoding="utf-8"))["results"]


def _split(path: Path, limit: int) -> list[dict]:
    """Three results with a long judgment each, written split at ``limit`` bytes (documents stored apart)."""
    results = [result(f"s{i}", f"reply {i}", documents=[{"title": f"t{i}", "text": str(i) * 3000}]) for i in range(3)]
    write_results(path, [slim_result(r) for r in results], results, limit=limit)
    return results


def _unreferenced(slim: list[dict]) -> list[dict]:
    """Slim copies without the keys a split file's transcripts hold where their documents were."""
    return [{**s, "conversation": [{k: v for k, v in m.items() if k != "documents_ref"} for m in s["conversation"]]}
            for s in slim]


def test_a_split_file_is_indexed_over_its_parts_and_each_result_loads_with_its_documents(tmp_path):
    path = tmp_path / "r.json"
    results = _split(path, limit=2500)
    index, slim = scan_results(path)
    assert index.path == path and index.whole is None and len(index) == 3
    assert {where.file.name for where in index.ranges} == {"r.json", "r.part2.json"}
    assert [index.load(i) for i in range(3)] == results and _unreferenced(slim) == [slim_result(r) for r in results]


def test_the_scan_reads_no_documents_only_loading_a_result_does(tmp_path):
    path = tmp_path / "r.json"
    results = _split(path, limit=2500)
    (tmp_path / "r.documents.jsonl").unlink()
    index, slim = scan_results(path)          # what counts, verdicts and scores come without the documents
    assert _unreferenced(slim) == [slim_result(r) for r in results]
    with pytest.raises(LayoutError, match=r"^r\.documents\.jsonl: documents file not found$"):
        index.load(0)


def test_a_file_read_whole_puts_its_stored_documents_back(tmp_path):
    path = tmp_path / "r.json"
    results = _split(path, limit=5000)        # one part, its documents stored apart
    path.write_text(json.dumps(json.loads(path.read_text(encoding="utf-8"))), encoding="utf-8")   # one line
    index, slim = scan_results(path)
    assert index.whole == results and len(index) == 3 and index.load(2) == results[2]


@pytest.mark.parametrize("file, place", [("r.json", 1), ("r.part2.json", 0)])
def test_a_result_not_in_simpleaudits_format_is_refused_naming_its_part_and_place(tmp_path, file, place):
    _split(tmp_path / "r.json", limit=2500)        # r.json holds s0 and s1, r.part2.json s2
    part = tmp_path / file
    text = part.read_text(encoding="utf-8")
    at = text.index(f'"scenario_name": "s{place + (file == "r.part2.json") * 2}"')
    part.write_text(text[:at] + text[at:].replace('"severity": "pass"', '"severity": 3', 1), encoding="utf-8")
    with pytest.raises(ValueError, match=rf"^{re.escape(file)} result #{place}: field severity is 3, not a string$"):
        scan_results(tmp_path / "r.json")


def _dangling(path: Path, whole: bool, documents_file: bool) -> None:
    """``path`` (split, one part): its first result without documents, its last one's documents key replaced by one
    never stored; written as one line when ``whole``, its header naming no documents file unless ``documents_file``."""
    _split(path, limit=5000)
    data = json.loads(path.read_text(encoding="utf-8"))
    data["results"][0]["conversation"][0] = {"role": "user", "content": "q"}
    data["results"][2]["conversation"][0]["documents_ref"] = "0" * 16
    if not documents_file:
        del data["documents"]
    path.write_text(json.dumps(data) if whole else json.dumps(data, indent=2), encoding="utf-8")


@pytest.mark.parametrize("documents_file, message", [
    (True, "field documents_ref '0000000000000000' is not in r.documents.jsonl"),
    (False, "field documents_ref given, but the file names no documents file")])
def test_a_result_whose_documents_cannot_be_put_back_is_refused_when_loaded(tmp_path, documents_file, message):
    _dangling(tmp_path / "r.json", whole=False, documents_file=documents_file)
    index, _ = scan_results(tmp_path / "r.json")
    assert index.load(0)["conversation"][0] == {"role": "user", "content": "q"}
    with pytest.raises(LayoutError, match=rf"^r\.json result #2: {re.escape(message)}$"):
        index.load(2)
    _dangling(tmp_path / "r.json", whole=True, documents_file=documents_file)   # read whole: refused at once
    with pytest.raises(LayoutError, match=rf"^r\.json: {re.escape(message)}$"):
        scan_results(tmp_path / "r.json")


@pytest.mark.parametrize("limit", [2500, 5000])
def test_simpleaudits_results_of_a_split_file_are_every_part_with_its_documents(tmp_path, limit):
    results = _split(tmp_path / "r.json", limit)
    assert [r.to_dict() for r in load_audit_results(tmp_path / "r.json")] == results


def test_simpleaudits_results_of_one_plain_file_are_what_its_own_load_gives(tmp_path):
    lenient = {**result("a", "x"), "judgment": "graded by hand"}   # simpleaudit loads it; the run's reader would not
    path = tmp_path / "r.json"
    path.write_text(json.dumps({"summary": {}, "results": [result("b", "y"), lenient]}), encoding="utf-8")
    loaded = load_audit_results(path)
    assert [r.to_dict() for r in loaded] == [r.to_dict() for r in AuditResults.load(str(path))]
    assert [r.to_dict()["judgment"] for r in loaded] == [{"severity": "pass"}, "graded by hand"]
