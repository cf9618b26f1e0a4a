"""The run-time guard: later identifiers and dates anywhere in a result are refused."""

from __future__ import annotations

from datetime import date

import pytest

from auditpacks.packs.icj.tools.guard import Guard, LeakError

GUARD = Guard("1986-06-27", {"ICJ_X_1990", "A/RES/ES-10/14"})


@pytest.mark.parametrize("result", [
    {"rows": [["ICJ_X_1990"]]}, {"resolution": {"symbol": "A/RES/ES-10/14"}}, {"date": "1986-06-27"},
    {"rows": [[date(1990, 1, 1)]]}, {"rows": [["1999-01-01"]]}, {"source_dates": ["1950-01-01", "2001-02-03"]},
    {"judge": {"term_start": "1994"}}, {"x": {"first_date": "1986-06-27T00:00:00"}}])
def test_later_things_are_refused(result):
    with pytest.raises(LeakError, match="leak refused"):
        GUARD.check(result)


@pytest.mark.parametrize("result", [
    {"date": "1986-06-26"}, {"text": "The Court fixed 1990-01-01 as a time-limit in its text."},
    {"rows": [["ICJ_X_1990 is mentioned in passing"]]}, {"cases": [{"case_id": "070"}]}, {"date": None}])
def test_earlier_things_and_free_text_pass(result):
    assert GUARD.check(result) is result


def test_every_value_only_later_material_holds_is_refused_and_nothing_of_the_cut():
    from auditpacks.packs.icj.graph.cutoff import cut
    from auditpacks.packs.icj.graph.reader import read_graph
    from auditpacks.packs.icj.tools.guard import later_identifiers, withheld_values
    from tests.support.icj_graph import GRAPH, NICARAGUA_MERITS

    graph, cutoff = read_graph(GRAPH), "1986-06-27"
    kept = cut(graph, cutoff)
    guard = Guard(cutoff, later_identifiers(graph, cutoff) | withheld_values(graph, cutoff))
    merits = next(r for r in graph.rows("documents") if r["document_id"] == NICARAGUA_MERITS)
    later_judge = next(r for r in graph.rows("judges") if r["term_start"] and r["term_start"] >= cutoff)
    later_case = next(r for r in graph.rows("cases") if r["case_id"] == "187")  # no document before 1986
    for leaked in ({"rows": [[merits["title"]]]}, {"rows": [[later_case["name"]]]},
                   {"rows": [[later_judge["name"]]]}):
        with pytest.raises(LeakError, match="only material of the cutoff 1986-06-27 or later holds"):
            guard.check(leaked)
    for role, table in kept.tables.items():  # no false alarm: every row of the cut passes
        for row in table.to_pylist():
            guard.check({k: v for k, v in row.items() if k not in ("term_end",)})
    assert guard.check({"rows": [[merits["court"], merits["doc_type"]]]})  # shared with earlier rows: not refused
