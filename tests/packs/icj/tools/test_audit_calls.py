"""The leak audit's calls in process, on a fake snapshot and tool box: each text tool asked every probe first, then
generated calls; a leak recorded with its call; the markers each tool returned; the guard's false alarms; the
semantic tool left out without vectors; and every cutoff audited once, in order, on one plant."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from auditpacks.packs.icj.tools import audit
from auditpacks.packs.icj.tools.canaries import Planted
from auditpacks.packs.icj.tools.catalogue import SEMANTIC, Tool
from auditpacks.packs.icj.tools.guard import Guard

CUTOFF = "1986-06-27"
TAG = "CANARYabc123N0"
TEXT = {"type": "object", "properties": {"case_id": {"type": "string"}}, "required": ["case_id"]}
GET_CASE = Tool("get_case", "d", TEXT)
ALIAS = Tool("find_case", "d", TEXT, implementation="get_case")
SCHEMA = Tool("get_schema", "d", {"type": "object", "properties": {}})
CYPHER = Tool("run_cypher", "d", {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]})
VECTORS = Tool("semantic_search", "d", {"type": "object", "properties": {"query": {"type": "string"}}})


def planted() -> Planted:
    return Planted(graph="the graph", nonce="abc123", markers={f"{TAG}X0": CUTOFF, f"{TAG}W": "1950-01-01"},
                   probes=["P1"])


class Audit:
    """``audit_cutoff`` run on fakes: ``answer(tool, arguments)`` is a tool's raw result; ``calls`` what each tool was
    asked (by the tool's name as the model sees it), in order."""

    def __init__(self, monkeypatch, answer, withheld=(), vectors=None) -> None:
        self.calls: dict[str, list[dict]] = {}
        self.boxes: list[tuple] = []
        self.snapshots: list[tuple] = []
        snapshot = SimpleNamespace(rows=lambda role: [{"case_id": "070"}] if role == "cases" else [],
                                   guard=Guard(CUTOFF, withheld))
        audit_ = self

        class Box:
            def __init__(self, snap, tools, semantic) -> None:
                assert snap is snapshot
                audit_.boxes.append((tools, semantic))
                self.tool = tools[0]

            def raw(self, name, arguments):
                assert name == self.tool.name
                audit_.calls.setdefault(name, []).append(arguments)
                return answer(self.tool, arguments)

        monkeypatch.setattr(audit, "ToolBox", Box)
        monkeypatch.setattr(audit, "snapshot_for", lambda *given: self.snapshots.append(given) or snapshot)
        ours = [("the graph", CUTOFF), (snapshot, CUTOFF), ("the graph", snapshot)]   # what each fake is asked about
        monkeypatch.setattr(audit, "later_identifiers",
                            lambda graph, cutoff: {"D9"} if (graph, cutoff) in ours else set())
        monkeypatch.setattr(audit, "_cut_texts", lambda snap, cutoff: {CUT} if (snap, cutoff) in ours else set())
        monkeypatch.setattr(audit, "vectors_for", lambda graph, snap: vectors if (graph, snap) in ours else None)
        self.report = audit.AuditReport([CUTOFF])

    def run(self, tools, examples=5) -> audit.AuditReport:
        audit.audit_cutoff(planted(), CUTOFF, tools, Path("/cache"), examples, self.report)
        return self.report


CUT = "a time-limit of 2004-07-09"   # a later date, but the cut graph's own text


def clean(tool, arguments):
    return {"rows": [], "note": CUT}


def test_each_text_tool_is_asked_every_probe_then_generated_calls_and_cypher_only_generated_ones(monkeypatch):
    fake = Audit(monkeypatch, clean)
    report = fake.run([GET_CASE, SCHEMA, CYPHER], examples=5)
    assert fake.snapshots == [("the graph", CUTOFF, Path("/cache"))]
    assert fake.boxes == [([GET_CASE], None), ([SCHEMA], None), ([CYPHER], None)]   # one box a tool
    probes = [{"case_id": probe} for probe in ("D9", "P1", "070")]   # later ids and planted probes sorted, then cases
    assert fake.calls["get_case"][:3] == probes and len(fake.calls["get_case"]) == 3 + 5
    assert all(set(call) == {"case_id"} for call in fake.calls["get_case"])
    assert fake.calls["get_schema"][0] == {}   # no text argument: one probe call without arguments
    assert all(call["query"].startswith("MATCH ") for call in fake.calls["run_cypher"])
    assert len(fake.calls["run_cypher"]) == 5
    assert report.calls == sum(map(len, fake.calls.values())) and report.leaks == [] and report.withheld_clean == 0
    assert report.seen == {}


def test_a_leak_is_recorded_with_its_call_and_every_marker_returned_is_seen_once_per_tool(monkeypatch):
    def answer(tool, arguments):
        return {"text": f"{TAG}X0 and {TAG}W"} if arguments.get("case_id") == "P1" else {"text": f"{TAG}W"}

    report = Audit(monkeypatch, answer).run([GET_CASE, ALIAS], examples=3)
    finding = f"holds a marker of material dated on or after the cutoff ({TAG}X0)"
    assert report.leaks[0] == {"cutoff": CUTOFF, "tool": "get_case", "arguments": {"case_id": "P1"}, "finding": finding}
    assert {(leak["tool"], leak["arguments"]["case_id"], leak["finding"]) for leak in report.leaks} == {
        ("get_case", "P1", finding), ("find_case (get_case)", "P1", finding)}
    assert report.seen == {(CUTOFF, f"{TAG}X0"): {"leak": True, "tools": ["get_case", "find_case (get_case)"]},
                           (CUTOFF, f"{TAG}W"): {"leak": False, "tools": ["get_case", "find_case (get_case)"]}}


def test_a_failing_call_is_counted_and_yields_nothing(monkeypatch):
    def fail(tool, arguments):
        raise ValueError(f"{TAG}X0 is not a case")

    fake = Audit(monkeypatch, fail)
    report = fake.run([GET_CASE], examples=2)
    assert report.calls == len(fake.calls["get_case"]) == 3 + 2 and report.leaks == [] and report.seen == {}


def test_a_clean_result_the_guard_would_withhold_is_counted_as_its_false_alarm(monkeypatch):
    fake = Audit(monkeypatch, lambda tool, arguments: {"title": "D-later"}, withheld={"D-later"})
    report = fake.run([GET_CASE], examples=2)
    assert report.leaks == [] and report.withheld_clean == report.calls == 5


def test_the_semantic_tool_is_audited_only_where_the_snapshot_has_vectors(monkeypatch):
    fake = Audit(monkeypatch, clean)
    fake.run([VECTORS, GET_CASE], examples=1)
    assert fake.boxes == [([GET_CASE], None)] and "semantic_search" not in fake.calls
    index = SimpleNamespace(dimensions=4)
    fake = Audit(monkeypatch, clean, vectors=index)
    fake.run([VECTORS, GET_CASE], examples=1)
    assert [tools for tools, _ in fake.boxes] == [[VECTORS], [GET_CASE]] and "semantic_search" in fake.calls
    assert all(semantic.index is index for _, semantic in fake.boxes)   # every box searches the snapshot's vectors
    for dimensions, kept in ((0, False), (4, True)):
        index = SimpleNamespace(dimensions=dimensions)
        monkeypatch.setattr(audit, "vectors_for", lambda graph, snapshot: index)
        semantic = audit._semantic("the graph", None, [VECTORS])
        assert (semantic is not None) == kept
        if kept:
            assert semantic.index is index and semantic.encode("sovereignty") != [0.0] * 4
            assert len(semantic.encode("sovereignty")) == 4
    assert VECTORS.does == SEMANTIC


@pytest.mark.parametrize("cache", [True, False])
def test_every_cutoff_is_audited_once_in_order_on_one_plant(monkeypatch, tmp_path, cache):
    planted_, audited = planted(), []
    planted_.listing = [{"tag": f"{TAG}X0"}]
    monkeypatch.setattr(audit, "plant", lambda graph, cutoffs: audited.append(("plant", graph, cutoffs)) or planted_)

    def audit_cutoff(planted, cutoff, tools, root, examples, report):
        assert planted is planted_ and root.is_dir() and report.cutoffs == ["1990-01-01", "2000-01-01"]
        audited.append((cutoff, tools, root, examples))

    monkeypatch.setattr(audit, "audit_cutoff", audit_cutoff)
    report = audit.leak_audit("g", ["2000-01-01", "1990-01-01", "2000-01-01"], [GET_CASE],
                              **({"cache": tmp_path} if cache else {}))
    assert audited[0] == ("plant", "g", ["1990-01-01", "2000-01-01"])
    root = audited[1][2]
    assert audited[1:] == [(day, [GET_CASE], root, 25) for day in ("1990-01-01", "2000-01-01")]
    assert root == tmp_path if cache else root.name.startswith("icj-leak-audit-") and not root.exists()
    assert report.planted == [{"tag": f"{TAG}X0"}] and report.calls == 0


def test_generated_cypher_asks_for_material_from_the_cutoff_on(monkeypatch):
    fake = Audit(monkeypatch, clean)
    fake.run([CYPHER], examples=40)
    dated = [call["query"] for call in fake.calls["run_cypher"] if "date(" in call["query"]]
    assert dated and all(query.endswith(f">= date('{CUTOFF}') RETURN a") for query in dated)


def test_the_generated_calls_are_the_same_on_every_run(monkeypatch):
    runs = []
    for _ in range(2):
        fake = Audit(monkeypatch, clean)
        fake.run([GET_CASE, CYPHER], examples=5)
        runs.append(fake.calls)
    assert runs[0] == runs[1]   # a leak found once is found again
