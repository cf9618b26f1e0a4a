"""The results writer: one plain file under the size limit, the split layout above it, read back as written."""

from __future__ import annotations

import json

import pytest
from simpleaudit import AuditResult, AuditResults

from auditpacks.core.runs.results import iter_results
from auditpacks.core.runs.results_layout import DOCUMENTS_REF, layout
from auditpacks.core.runs.run_files import split_name, stem_of
from auditpacks.runner.store.results_file import slim_result, write_results
from auditpacks.runner.store.results_reader import load_audit_results, scan_results

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
