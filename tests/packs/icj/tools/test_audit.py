"""The leak audit on the fixture graph: it passes with the cutoff filter and fails without it."""

from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.compute as pc
import pytest

from auditpacks.packs.icj.graph import cutoff as cutoffs
from auditpacks.packs.icj.graph.reader import read_graph
from auditpacks.packs.icj.graph.snapshot import snapshot_for
from auditpacks.packs.icj.tools.audit import leak_audit
from auditpacks.packs.icj.tools.canaries import plant
from auditpacks.packs.icj.tools.catalogue import conditions
from auditpacks.packs.icj.tools.toolbox import WITHHELD, ToolBox
from tests.support.icj_graph import GRAPH

ALL_TOOLS = conditions()["Cypher + Lexical"] + conditions()["Designed Tools Only"]


@pytest.fixture(scope="module")
def graph():
    return read_graph(GRAPH)


def test_the_audit_passes_on_the_fixture_graph(graph):
    report = leak_audit(graph, ["1949-12-15", "1986-06-27", "2025-07-23"], ALL_TOOLS, examples=8)
    assert report.passed, report.summary()
    assert report.withheld_clean == 0  # the guard withheld no clean result
    assert report.calls > 3 * len(ALL_TOOLS) * 8  # fixed probes plus the generated calls


def test_the_audit_fails_when_the_cutoff_filter_is_removed(graph, monkeypatch):
    monkeypatch.setattr(cutoffs, "cut", lambda graph, cutoff: graph)
    report = leak_audit(graph, ["1986-06-27"], ALL_TOOLS, examples=5)
    assert not report.passed
    tools = {leak["tool"] for leak in report.leaks}
    assert {"run_cypher", "search_passages", "get_case", "find_judge"} <= tools


def test_the_audit_fails_when_the_cutoff_day_itself_is_let_through(graph, monkeypatch):
    monkeypatch.setattr(cutoffs, "before", lambda dates, cutoff: pc.fill_null(
        pc.less_equal(dates, pa.scalar(cutoff)), False))
    report = leak_audit(graph, ["1986-06-27"], ALL_TOOLS, examples=5)
    assert not report.passed
    findings = {leak["finding"] for leak in report.leaks}
    assert "holds a canary (CANARY0X0)" in findings  # the canaries dated on the cutoff day
    assert not any("X1" in f for f in findings)  # those of the day after stay out


def test_without_the_filter_the_run_time_guard_still_withholds_later_material(graph, monkeypatch, tmp_path):
    monkeypatch.setattr(cutoffs, "cut", lambda graph, cutoff: graph)
    snapshot = snapshot_for(plant(graph, ["1986-06-27"]), "1986-06-27", tmp_path)
    box = ToolBox(snapshot, ALL_TOOLS)
    for name, arguments in [("run_cypher", {"query": "MATCH (d:Document) RETURN d.document_id, d.date"}),
                            ("find_judge", {"query": "CANARY0X1"}), ("get_case", {"case_id": "070"})]:
        result = box.call(name, arguments)
        assert result.leak and json.loads(result.content) == {"error": WITHHELD}, name
