"""The results writer: one plain file under the size limit, the split layout above it, read back as written."""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path

import pytest
from simpleaudit import AuditResult, AuditResults

from auditpacks.core.runs.results import iter_results
from auditpacks.core.runs.results_layout import DOCUMENTS_REF, layout
from auditpacks.core.runs.run_files import split_name, stem_of
from auditpacks.runner.store.results_file import slim_result, write_results
from auditpacks.runner.store.results_reader import load_audit_results, scan_results
from auditpacks.runner.store.results_split import SplitWriter

JUDGMENTS = 4
QUESTIONS = 6
LIMIT = 9000


def result(i: int) -> dict:
    judgment = f"Aktgjykim {i // QUESTIONS}: gjykata e shpall fajtor të pandehurin. " * 30  # about 2 KB
    return {"scenario_name": f"Q{i % QUESTIONS} - domv{i // QUESTIONS}", "scenario_description": "d",
            "conversation": [{"role": "user", "content": f"question {i}", "documents": [judgment]},
                             {"role": "assistant", "content": "yes\nBecause."}],
            "severity": "pass" if i % 3 else "medium", "issues_found": [], "positive_behaviors": [],
            "summary": "s", "recommendations": [], "expected_behavior": ["Answers yes."],
            "judgment": {"choice": "yes", "severity": "pass" if i % 3 else "medium"},
            "auditor_input_tokens": 0, "auditor_output_tokens": 0, "judge_input_tokens": 0,
            "judge_output_tokens": 0, "target_input_tokens": 10, "target_output_tokens": 2}


@pytest.fixture()
def results():
    return [result(i) for i in range(JUDGMENTS * QUESTIONS)]


def test_under_the_limit_the_file_is_simpleaudits_own(tmp_path, results):
    path = tmp_path / "m.json"
    assert write_results(path, [slim_result(r) for r in results], iter(results)) == [path]
    saved = tmp_path / "sa.json"
    AuditResults([AuditResult(**r) for r in results]).save(str(saved))
    ours, theirs = json.loads(path.read_text("utf-8")), json.loads(saved.read_text("utf-8"))
    assert ours["results"] == theirs["results"] and ours["summary"] == theirs["summary"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.json", "sa.json"]


def test_over_the_limit_documents_are_stored_once_and_every_part_is_under_it(tmp_path, results):
    path = tmp_path / "m.json"
    plain = sum(len(json.dumps(r, indent=2, ensure_ascii=False).encode()) for r in results)
    assert plain > 4 * LIMIT  # the one file would be far over
    written = write_results(path, [slim_result(r) for r in results], iter(results), limit=LIMIT)
    names = [p.name for p in written]
    assert names[0] == split_name("m.json") == "m.documents.jsonl"
    assert names[1] == "m.json" and names[2:] == [split_name("m.json", k) for k in range(2, len(names))]
    assert all(stem_of(name) == "m" for name in names)
    for part in written[1:]:
        assert part.stat().st_size <= LIMIT
        loaded = AuditResults.load(str(part))  # each part is a whole simpleaudit file
        assert len(loaded) > 0
        assert all(DOCUMENTS_REF in r.conversation[0] and "documents" not in r.conversation[0] for r in loaded)
    stored = [json.loads(line) for line in written[0].read_text("utf-8").splitlines()]
    assert len(stored) == JUDGMENTS  # one line per judgment, not per question
    assert layout(path).parts == written[1:] and layout(path).documents == written[0]
    assert [r.raw for r in iter_results(path)] == results  # read back as run, documents and all
    assert sum(len(AuditResults.load(str(p))) for p in written[1:]) == len(results)
    assert [r.to_dict() for r in load_audit_results(path)] == results
    index, slim = scan_results(path)
    assert [index.load(i) for i in range(len(index))] == results and len(slim) == len(results)


def test_a_later_smaller_write_removes_the_parts_an_earlier_one_left(tmp_path, results):
    path = tmp_path / "m.json"
    write_results(path, [slim_result(r) for r in results], iter(results), limit=LIMIT)
    assert len(list(tmp_path.iterdir())) > 3
    few = results[:2]
    assert write_results(path, [slim_result(r) for r in few], iter(few), limit=LIMIT) == [path]
    assert [p.name for p in tmp_path.iterdir()] == ["m.json"]
    assert [r.raw for r in iter_results(path)] == few


def test_a_failed_write_leaves_no_file_behind(tmp_path, results):
    def broken():
        yield from results[:10]
        raise OSError("disk gone")
    with pytest.raises(OSError):
        write_results(tmp_path / "m.json", [slim_result(r) for r in results], broken(), limit=LIMIT)
    assert list(tmp_path.iterdir()) == []


def _write(path, results, **kwargs):
    return write_results(path, [slim_result(r) for r in results], iter(results), **kwargs)


def test_a_slim_result_drops_documents_and_expected_behaviour_only():
    full = {"scenario_name": "s", "expected_behavior": ["x"], "severity": "pass",
            "conversation": [{"role": "user", "content": "q", "documents": ["long"]}, "a bare entry"]}
    assert slim_result(full) == {"scenario_name": "s", "expected_behavior": None, "severity": "pass",
                                 "conversation": [{"role": "user", "content": "q"}, "a bare entry"]}
    assert slim_result({"scenario_name": "s", "conversation": None})["conversation"] == []


def test_a_file_exactly_at_the_limit_is_one_file_and_one_byte_over_is_split(tmp_path, results):
    few = results[:3]
    size = _write(tmp_path / "plain" / "deeper" / "m.json", few)[0].stat().st_size   # folders made as needed
    assert _write(tmp_path / "at" / "m.json", few, limit=size) == [tmp_path / "at" / "m.json"]
    assert len(_write(tmp_path / "over" / "m.json", few, limit=size - 1)) > 1


def test_no_results_is_an_empty_list_and_a_plain_file_written_twice_is_replaced(tmp_path, results, capsys):
    path = tmp_path / "m.json"
    _write(path, results[:2])
    assert _write(path, []) == [path]
    assert json.loads(path.read_text("utf-8"))["results"] == [] and path.read_text("utf-8").endswith('"results": []\n}')
    captured = capsys.readouterr()
    assert (captured.out, captured.err) == ("", f"✓ Results saved to {path}\n✓ Results saved to {path}\n")


def test_parts_of_an_earlier_write_already_gone_are_no_error(tmp_path, results):
    path = tmp_path / "m.json"
    _write(path, results, limit=LIMIT)
    (tmp_path / "m.part2.json").unlink()
    assert _write(path, results[:1], limit=LIMIT) == [path] and [p.name for p in tmp_path.iterdir()] == ["m.json"]


def test_fewer_results_than_the_header_counted_is_refused_and_nothing_is_left(tmp_path, results):
    with pytest.raises(RuntimeError, match=r"^m\.json: 1 results written for 2 expected$"):
        write_results(tmp_path / "m.json", [slim_result(r) for r in results[:2]], iter(results[:1]))
    assert list(tmp_path.iterdir()) == []


def test_the_file_is_written_beside_itself_and_renamed_into_place(tmp_path, results, monkeypatch):
    renames = []
    rename = os.replace
    monkeypatch.setattr(os, "replace", lambda src, dst: renames.append((Path(src), Path(dst))) or rename(src, dst))
    _write(tmp_path / "m.json", results[:1])
    ((src, dst),) = renames
    assert src.parent == tmp_path and src.name.startswith(".m.json.") and dst == tmp_path / "m.json"


def test_a_write_that_fails_on_the_disk_names_the_file_and_a_failed_split_keeps_its_error(tmp_path, results,
                                                                                          monkeypatch):
    def full(fd):
        raise OSError(errno.ENOSPC, "No space left on device")
    with monkeypatch.context() as patch:
        patch.setattr(os, "fsync", full)
        with pytest.raises(OSError) as err:
            _write(tmp_path / "m.json", results[:1])
    assert err.value.filename == str(tmp_path / "m.json") and list(tmp_path.iterdir()) == []

    def gone(self):
        raise OSError(errno.EIO, "Input/output error", "m.part2.json")
    monkeypatch.setattr(SplitWriter, "finish", gone)
    with pytest.raises(OSError, match="Input/output error"):
        _write(tmp_path / "m.json", results, limit=LIMIT)
    assert list(tmp_path.iterdir()) == []
