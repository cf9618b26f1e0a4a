"""Records listed more than once, undated records and cited-only cases under the cutoff (module docstring rules)."""

from __future__ import annotations

import pyarrow as pa
import pytest

from auditpacks.packs.icj.graph.cutoff import cut, latest_rows
from auditpacks.packs.icj.graph.reader import read_graph
from tests.support.icj_graph import GRAPH

CORFU_1947 = "ICJ_001_CorfuChannel_GBR_ALB_1947-12-01_WRI_01_NA_00_EN"


@pytest.fixture(scope="module")
def graph():
    return read_graph(GRAPH)


def with_rows(graph, role: str, *rows: dict):
    """``graph`` with ``rows`` appended to its table ``role`` (missing columns null)."""
    table = graph.tables[role]
    extra = pa.Table.from_pylist([{name: row.get(name) for name in table.column_names} for row in rows], table.schema)
    return type(graph)(dict(graph.tables, **{role: pa.concat_tables([table, extra])}), graph.source_hash)


ROWS = pa.table({"id": ["a", "a", "b", "b", None, "c", "c", "d"],
                 "date": ["2001-01-01", "2003-01-01", None, "2002-01-01", "2005-01-01", "2004-01-01", "2004-01-01",
                          "2000-01-01"], "row": list(range(8))})


@pytest.mark.parametrize("undated_last, kept", [
    (True, [1, 2, 5, 7]),    # b's undated row counts as its latest; c's tie keeps the first; keyless rows skipped
    (False, [1, 3, 5, 7]),   # b's dated row wins
])
def test_latest_rows_keeps_each_keys_latest_row_in_table_order(undated_last, kept):
    assert latest_rows(ROWS, "id", "date", undated_last=undated_last) == ROWS.take(kept)


def test_latest_rows_counts_an_undated_row_as_latest_by_default():
    assert latest_rows(ROWS, "id", "date") == ROWS.take([1, 2, 5, 7])


def test_an_undated_instrument_stays_and_a_dated_row_of_one_wins_over_its_undated_row(graph):
    g = with_rows(graph, "instruments", {"instrument_id": "treaty-x", "name": "An undated treaty"},
                  {"instrument_id": "vclt", "name": "Vienna Convention, undated copy"})
    kept = {r["instrument_id"]: r["date"] for r in cut(g, "1948-05-28").rows("instruments")}
    assert kept == {"statute": "1945-06-26", "charter": "1945-06-26", "rules": "1946-05-06", "treaty-x": None}


def test_a_document_with_an_undated_row_counts_as_later_than_any_cutoff(graph):
    first = graph.tables["documents"].slice(0, 1).to_pylist()[0]
    g = with_rows(graph, "documents", {**first, "date": None})
    ids = cut(g, "1948-05-28").tables["documents"]["document_id"].to_pylist()
    assert sorted(ids) == ["ICJ_001_CorfuChannel_GBR_ALB_1948-03-25_JUD_01_PO_00_EN", "PCIJ_A10_Lotus_1927-09-07"]


def test_judges_an_undated_judge_only_when_seated_and_a_dated_row_wins(graph):
    g = with_rows(graph, "judges", {"judge_id": "unseated", "name": "Never sat"},
                  {"judge_id": "later", "name": "Dated", "term_start": "1950-01-01"},
                  {"judge_id": "later", "name": "Undated copy"})
    rows = graph.tables["judges"].to_pylist()
    rows[0]["term_start"] = None   # guerrero, who sat on the Corfu Channel judgments
    g = type(g)(dict(g.tables, judges=pa.concat_tables([pa.Table.from_pylist(rows, graph.tables["judges"].schema),
                                                         g.tables["judges"].slice(len(rows))])), g.source_hash)
    judges = {r["judge_id"]: r["term_start"] for r in cut(g, "1986-06-27").rows("judges")}
    assert judges["guerrero"] is None and judges["later"] == "1950-01-01" and "unseated" not in judges


def test_a_case_kept_only_because_it_is_cited_has_no_documents_and_no_dates(graph):
    g = with_rows(graph, "cases", {"case_id": "ext-1", "name": "An arbitration", "court": "PCA"})
    g = with_rows(g, "document_case_links", {"document_id": CORFU_1947, "cited_case_id": "ext-1"})
    case = next(r for r in cut(g, "1948-05-28").rows("cases") if r["case_id"] == "ext-1")
    assert (case["documents"], case["cited_by"], case["first_date"], case["last_date"]) == (0, 1, None, None)
