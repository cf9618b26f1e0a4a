"""Runs of any size: the pack streamed by byte range, results kept on disk, short reprs."""

from __future__ import annotations

import asyncio
import json
import tracemalloc

import pytest
from simpleaudit import AuditResult, AuditResults

from auditpacks.core.errors import PackError
from auditpacks.packs import stream
from auditpacks.runner.execute.execute import Outcome, error_result
from auditpacks.runner.store.journal import Journal, scenario_key
from auditpacks.runner.store.results_file import slim_result, write_results
from auditpacks.runner.scenarios.scenario_source import LazyScenarios, make_stub, open_pack
from auditpacks.judges.reader import Reader
from auditpacks.runner.scenarios.shard import document_key
from tests.support.tiny_pack import tiny_scenario, write_pack


@pytest.mark.parametrize("indent", [None, 2])
def test_scan_finds_every_scenario_of_any_layout(tmp_path, monkeypatch, indent):
    monkeypatch.setattr(stream, "CHUNK", 5)  # objects, strings and escapes cut at every possible place
    scenarios = [{"name": f"n{i}", "description": 'braces } { ] [ in "text" \\ ' * i, "x": [1, {"y": "}"}]}
                 for i in range(12)]
    path = tmp_path / "p.json"
    path.write_text(json.dumps(scenarios, indent=indent, ensure_ascii=False), encoding="utf-8")
    index = stream.scan(path, lambda i, s: s["name"])
    assert [e.info for e in index.entries] == [s["name"] for s in scenarios]
    assert [index.load(i) for i in range(len(index))] == scenarios
    raw = path.read_bytes()
    assert all(json.loads(raw[e.start:e.end]) == s for e, s in zip(index.entries, scenarios))


@pytest.mark.parametrize("text, message", [
    ('[{"name": "a", "description": "b"}', "expected ',' or ']'"),
    ('[{"name": "a", "description": "b"},]', "a comma after the last record"),
    ('[{"name": "a", "description": "b"', "record #0 is cut short"),
    ('[1]', "record #0 is not a scenario object"),
    ('{"name": "a"}', "a pack is a JSON list"),
    ('[{"name": "a", "description": "b"}] []', "extra data after the list"),
    ('[{"name": "a"}]', "record #0 field 'description' is missing"),
    ('[{"name": "a", "description": "b", }]', "record #0: invalid JSON"),
])
def test_scan_refuses_broken_packs_in_one_line(tmp_path, text, message):
    path = tmp_path / "p.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(PackError, match=message):
        stream.scan(path)


def test_a_pack_changed_after_the_build_or_after_the_scan_is_refused(tmp_path):
    path = write_pack(tmp_path / "tiny.json", 6)
    pack = open_pack(path)
    assert [s["name"] for s in pack.scenarios] == [tiny_scenario(i)["name"] for i in range(6)]
    assert pack.load(pack.scenarios[4]) == json.loads(path.read_text())[4]
    data = path.read_bytes()
    path.write_bytes(data.replace(b"Case 4:", b"Case 5:"))  # same length, other bytes
    with pytest.raises(PackError, match="record #4 changed on disk"):
        pack.load(pack.scenarios[4])
    with pytest.raises(PackError, match="does not match tiny.manifest.json field sha256"):
        open_pack(path)


def test_stubs_carry_the_whole_scenarios_keys(tmp_path):
    path = write_pack(tmp_path / "tiny.json", 4, documents=True)
    pack = open_pack(path)
    whole = json.loads(path.read_text())
    judgment = Reader.of("choice_match", pack.manifest["builder"]).document   # the judgment, Iustitia's document
    for stub, scenario in zip(pack.scenarios, whole):
        assert scenario_key(stub) == scenario_key(scenario) and document_key(stub) == document_key(scenario)
        named = f"document:{stub['metadata']['verdict_id']}"
        assert document_key(stub, judgment) == document_key(scenario, judgment) == named
        assert stub["documents"] is True and stub["decision"] == {"id": None}   # the tiny decisions have no id
        assert len(json.dumps(stub)) < len(json.dumps(scenario))
    with_id = make_stub(0, {**whole[0], "decision": {**whole[0]["decision"], "id": "Q1"}})
    assert with_id["decision"] == {"id": "Q1"}


@pytest.mark.parametrize("scenario, metadata, decision", [
    ({"metadata": {"verdict_id": "V1", "judge_notes": "the answer is B"}}, {"verdict_id": "V1"}, None),
    ({"metadata": {"JUDGE_NOTES": "kept"}, "decision": {"id": "Q7", "answer": "B"}}, {"JUDGE_NOTES": "kept"},
     {"id": "Q7"}),
    ({"metadata": None, "decision": "B"}, None, {"id": None}),
    ({"decision": {}}, None, None),
])
def test_a_stub_keeps_no_judge_notes_and_only_the_decisions_id(scenario, metadata, decision):
    stub = make_stub(3, {"name": "n", "description": "d", **scenario})
    assert stub["metadata"] == metadata and stub.get("decision") == decision and stub.index == 3


def test_the_pack_checks_run_only_when_asked_for(tmp_path):
    path = write_pack(tmp_path / "tiny.json", 3)   # each tiny scenario has one expected behaviour, not 3 to 7
    assert open_pack(path).findings == []
    found = open_pack(path, check=True).findings
    assert [(f.level, f.record[:2], f.field) for f in found if f.record != "pack"] == \
        [("WARN", f"#{i}", "expected_behavior") for i in range(3)]
    assert any(str(f).startswith("INFO pack [-]: 3 scenarios;") for f in found)


def test_lazy_scenarios_read_whole_scenarios_from_the_stubs_given(tmp_path):
    path = write_pack(tmp_path / "tiny.json", 4)
    pack, whole = open_pack(path), json.loads(path.read_text())
    stubs = pack.scenarios[1:3]
    lazy = pack.lazy(stubs)
    stubs.clear()
    assert len(lazy) == 2 and list(lazy) == whole[1:3] and lazy[1] == whole[2]
    part = lazy[1:]
    assert isinstance(part, LazyScenarios) and part.stubs == [pack.scenarios[2]] and list(part) == whole[2:3]
    assert repr(part) == "<1 scenarios of tiny.json>"


def test_the_results_file_is_byte_for_byte_simpleaudits(tmp_path):
    results = [error_result(tiny_scenario(i), RuntimeError(f"boom {i}")).to_dict() for i in range(3)]
    results[1].update(severity="pass", conversation=[{"role": "user", "content": "q\nä"}], target_input_tokens=7)
    expected = AuditResults([AuditResult(**r) for r in results])
    expected.save(str(tmp_path / "simpleaudit.json"))
    write_results(tmp_path / "ours.json", [slim_result(r) for r in results], iter(results))
    ours, theirs = ((tmp_path / name).read_text(encoding="utf-8") for name in ("ours.json", "simpleaudit.json"))
    stamps = [json.loads(text)["timestamp"] for text in (ours, theirs)]
    assert ours.replace(stamps[0], stamps[1], 1) == theirs
    write_results(tmp_path / "empty.json", [], iter([]))
    assert AuditResults.load(str(tmp_path / "empty.json")).results == []


def test_the_journal_keeps_results_on_disk(tmp_path):
    path = tmp_path / "m.journal.jsonl"
    with Journal(path, "fp").open() as journal:
        journal.append("k1", "a", {"severity": "pass", "conversation": ["x" * 1000]})
        journal.append("k2", "b", {"severity": "ERROR"})
    reopened = Journal(path, "fp").open()
    assert reopened.done.severity("k2") == "ERROR"
    assert reopened.done["k1"] == {"severity": "pass", "conversation": ["x" * 1000]}
    assert "1000" not in repr(reopened.done) and len(repr(reopened.done)) < 100
    reopened.close()


def test_leaving_asyncio_run_does_not_format_every_result():
    """asyncio.run formats its main task's result (reprlib.repr calls the full repr, then cuts it):
    an Outcome's repr must not grow with the run, or a large run pays gigabytes and a minute for it."""
    results = [{"severity": "pass", "summary": "x" * 2000} for _ in range(5000)]  # about 10 MB of text
    outcome = Outcome(scenarios=[{"name": str(i)} for i in range(5000)], results=results, keys=["k"] * 5000)

    async def finish():
        return outcome

    tracemalloc.start()
    try:
        asyncio.run(finish())
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 2_000_000, f"asyncio.run peaked at {peak} bytes for the result's repr"
    assert len(repr(outcome)) < 100
