"""The leak audit on the fixture graph: it passes with the cutoff filter and fails without it."""

from __future__ import annotations

import json
import re

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
    assert any(re.search(r"dated on or after the cutoff \(CANARY[0-9a-f]{6}N0X0\)", f) for f in findings)
    assert not any("X1" in f for f in findings)  # the markers of the day after stay out


def test_without_the_filter_the_run_time_guard_still_withholds_later_material(graph, monkeypatch, tmp_path):
    monkeypatch.setattr(cutoffs, "cut", lambda graph, cutoff: graph)
    planted = plant(graph, ["1986-06-27"])
    snapshot = snapshot_for(planted.graph, "1986-06-27", tmp_path)
    box = ToolBox(snapshot, ALL_TOOLS)
    later = f"CANARY{planted.nonce}N0X1"
    for name, arguments in [("run_cypher", {"query": "MATCH (d:Document) RETURN d.document_id, d.date"}),
                            ("run_cypher", {"query": "MATCH (d:Document) RETURN d.title"}),  # no id, no date
                            ("find_judge", {"query": later}), ("get_case", {"case_id": "070"})]:
        result = box.call(name, arguments)
        assert result.leak and json.loads(result.content) == {"error": WITHHELD}, name


def test_the_report_lists_what_was_planted_and_what_was_seen(graph):
    cutoffs_ = ["1949-12-15", "1986-06-27"]
    summary = leak_audit(graph, cutoffs_, ALL_TOOLS, examples=3).summary()
    assert summary["passed"], summary["first_leaks"]
    planted = sorted((p["cutoff"], re.sub(r"^CANARY[0-9a-f]{6}", "", p["tag"])) for p in summary["planted"])
    # per cutoff n: the day's and the next day's markers, the witnesses, an early row of a later real document
    assert planted == sorted((c, f"N{n}{t}") for n, c in enumerate(cutoffs_) for t in ("X0", "X1", "W", "E"))
    assert {p["date"] for p in summary["planted"] if p["tag"].endswith("N1X1")} == {"1986-06-28"}
    earlier = [f for f in summary["found"] if f["cutoff"] == "1986-06-27" and re.search("N0(X0|X1|W)$", f["tag"])]
    assert earlier and not any(f["leak"] for f in earlier)  # the 1949 markers, seen in 1986: allowed
    assert not any(f["leak"] for f in summary["found"])


def test_the_audit_fails_when_the_cut_keeps_the_first_row_of_a_twice_listed_document(graph, monkeypatch):
    def first_row(table, key, column, cutoff, *, undated=False):  # the old cut: filter by date, then first row
        mask = cutoffs.before(table[column], cutoff)
        kept = table.filter(pc.or_(pc.is_null(table[column]), mask) if undated else mask)
        return cutoffs.one_per_key(kept, key)

    monkeypatch.setattr(cutoffs, "_dated_before", first_row)
    report = leak_audit(graph, ["1986-06-27"], ALL_TOOLS, examples=5)
    assert not report.passed
    findings = " ".join(leak["finding"] for leak in report.leaks)
    assert re.search(r"N0X1\b", findings)  # the day after's marker: only its twin's earlier row lets it through
    assert re.search(r"N0E\b", findings)  # the early row added to the copy's own later document


def test_the_audit_fails_when_derived_counts_come_from_later_material(graph, monkeypatch):
    monkeypatch.setattr(cutoffs, "_counts_for", lambda keys, cited: [1] * len(keys))
    report = leak_audit(graph, ["1986-06-27"], ALL_TOOLS, examples=5)
    assert not report.passed
    assert any(leak["finding"].startswith("witness ") for leak in report.leaks)


def test_the_audit_reads_dates_in_free_text(graph, monkeypatch):
    from auditpacks.packs.icj.tools import cypher

    text = cypher.schema_text

    def dated_help():
        out = text()
        out["notes"] = out["notes"] + ["Dates are DATE values: compare with date('1950-01-31')."]
        return out

    monkeypatch.setattr(cypher, "schema_text", dated_help)
    report = leak_audit(graph, ["1949-12-15"], conditions()["Cypher + Lexical"], examples=2)
    assert not report.passed
    assert any(leak["tool"] == "get_schema" and "free text dated 1950-01-31" in leak["finding"]
               for leak in report.leaks)
