"""The read-only Cypher tool: refusals, row cap, time-out, schema, and dates of what it returns."""

from __future__ import annotations

import pytest

from auditpacks.packs.icj.tools import cypher
from auditpacks.packs.icj.tools.cypher import QueryRefused, refusal, run_query
from tests.support.icj_graph import snapshots


@pytest.fixture(scope="module")
def snap(tmp_path_factory):
    return snapshots(tmp_path_factory, "1986-06-27")["1986-06-27"]


@pytest.mark.parametrize("query", [
    "MATCH (n) SET n.name = 'x'", "CREATE (:Document {document_id: 'x'})", "match (n) detach delete n",
    "LOAD FROM 'tables/documents.parquet' RETURN *", "COPY Document FROM 'x.parquet'", "ATTACH 'x' AS y",
    "MATCH (n) RETURN n; MATCH (m) DELETE m", "CALL db.labels()", "MERGE (c:`Case` {case_id: '999'})",
    "MATCH (d:Document) /* comment */ REMOVE d.title", "INSTALL httpfs"])
def test_writes_and_outside_reads_are_refused(query):
    assert refusal(query) is not None


@pytest.mark.parametrize("query", [
    "MATCH (d:Document) WHERE d.title CONTAINS 'Set' RETURN d.document_id",
    "MATCH (c:`Case`) WHERE c.name = 'DELETE; CREATE' RETURN c", "CALL show_tables() RETURN *",
    "MATCH (d:Document) RETURN d.document_id;"])
def test_reads_that_only_mention_write_words_in_strings_run(query):
    assert refusal(query) is None


def test_rows_are_capped_and_dates_reported(snap):
    result = run_query(snap, "MATCH (d:Document) RETURN d.document_id, d.date ORDER BY d.date", row_cap=5)
    assert result["truncated"] is True and len(result["rows"]) == 5
    assert result["rows"][0][1] == "1927-09-07"  # DATE values come back as ISO text
    assert result["source_dates"] == ["1927-09-07", "1947-12-01", "1948-03-25", "1948-05-28", "1949-04-09"]


def test_a_long_query_is_stopped_at_the_time_out(snap):
    with pytest.raises(QueryRefused, match="time-out of 1 ms"):
        run_query(snap, "MATCH (a)-[*1..20]-(b)-[*1..20]-(c) RETURN count(*)", timeout_ms=1)


def test_a_refused_or_broken_query_is_one_line(snap):
    with pytest.raises(QueryRefused, match="SET is not allowed"):
        run_query(snap, "MATCH (n) SET n.x = 1")
    with pytest.raises(QueryRefused, match="query failed: Parser exception"):
        run_query(snap, "MATCH (n RETURN")


def test_schema_lists_the_snapshots_tables(snap):
    schema = cypher.schema(snap)
    assert "date DATE" in schema["nodes"]["Document"]["properties"]
    assert "cited_by INT64" in schema["nodes"]["Case"]["properties"]
    assert schema["relationships"]["CITES_CASE"] == {"from": "Document", "to": "Case", "properties": []}


def test_search_says_it_is_lexical(snap):
    result = cypher.search_passages(snap, "Corfu mines", 3)
    assert result["method"] == "bm25 (lexical)"
    assert result["passages"][0]["source"].startswith("ICJ_001_")


def test_a_query_without_order_by_returns_its_rows_sorted_then_capped(snap):
    ids = sorted(r["document_id"] for r in snap.rows("documents"))  # the cut graph's own table
    result = run_query(snap, "MATCH (d:Document) RETURN d.document_id", row_cap=5)
    assert [row[0] for row in result["rows"]] == ids[:5] and result["truncated"] is True
    assert run_query(snap, "MATCH (d:Document) RETURN d.document_id", row_cap=5) == result  # a rerun: the same
    everything = run_query(snap, "match (d:Document) return d.document_id", row_cap=len(ids))
    assert [row[0] for row in everything["rows"]] == ids and everything["truncated"] is False
    newest = run_query(snap, "MATCH (d:Document) RETURN d.document_id ORDER BY d.date DESC", row_cap=1)
    assert newest["rows"][0][0] == max(snap.rows("documents"), key=lambda r: r["date"])["document_id"]


def test_no_tool_text_carries_a_fixed_date():
    import json
    import re

    from auditpacks.packs.icj.tools.catalogue import TOOLS

    text = json.dumps([cypher.schema_text(), [(d, s) for d, s, _ in TOOLS.values()]])
    assert not re.search(r"\d{4}-\d{2}-\d{2}", text)
