"""The Cypher tool without a database: what the model reads of the schema, refusals to the word, how a query
reaches its worker (ordered or not, one worker per database, all closed at exit) and passage search's cap."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from auditpacks.packs.icj.tools import cypher
from auditpacks.packs.icj.tools.cypher import QueryRefused, refusal, run_query, schema_text, search_passages
from auditpacks.packs.icj.tools.query_process import QueryStopped


def test_the_schema_the_model_reads_before_the_snapshot_s_properties():
    assert schema_text() == {
        "nodes": {"Case": {"key": "case_id"}, "Document": {"key": "document_id"},
                  "Instrument": {"key": "instrument_id"}, "Provision": {"key": "provision_key"},
                  "Resolution": {"key": "symbol"}, "Judge": {"key": "judge_id"}},
        "relationships": {"OF_CASE": {"from": "Document", "to": "Case"},
                          "CITES_CASE": {"from": "Document", "to": "Case"},
                          "CITES_PROVISION": {"from": "Document", "to": "Provision"},
                          "CITES_RESOLUTION": {"from": "Document", "to": "Resolution"},
                          "RESOLUTION_CITES": {"from": "Resolution", "to": "Resolution"},
                          "IN_INSTRUMENT": {"from": "Provision", "to": "Instrument"},
                          "SAT_ON": {"from": "Judge", "to": "Document"}},
        "notes": ["Case is a reserved word: write it `Case` in backticks.",
                  "Dates are DATE values: compare with date('YYYY-MM-DD').",
                  "Provision keys look like statute:article_36; resolution symbols like A/RES/2625(XXV).",
                  "Results are capped at 50 rows; queries stop after 5 s.",
                  "Passages are not in the graph: use the passage search tool."]}


@pytest.mark.parametrize("query, why", [
    ("MATCH (n) RETURN n; MATCH (m) RETURN m", "one statement at a time"),
    ("MATCH (n) RETURN n;X", "one statement at a time"),
    ("MATCH (n) RETURN n CALL", "CALL is limited to show_tables, table_info, show_connection"),
    ("CALL 'show_tables'", "CALL is limited to show_tables, table_info, show_connection"),
    ("call db.labels()", "CALL is limited to show_tables, table_info, show_connection"),
    ("MATCH (n) detach DELETE n", "DETACH is not allowed: the graph is read-only"),
])
def test_a_refusal_says_why(query, why):
    assert refusal(query) == why


@pytest.mark.parametrize("query", [
    "MATCH (n) RETURN n;;", "MATCH (n) RETURN n ; ", "CALL table_info('Document')", "CALL show_tables() RETURN *",
    "CALL /* the tables */ show_tables() RETURN *", "MATCH (d) WHERE d.title = 'a;b' RETURN d",
])
def test_reads_run(query):
    assert refusal(query) is None


class Worker:
    def __init__(self, answer=None, raised=None):
        self.answer, self.raised, self.asked = answer or {"columns": [], "rows": []}, raised, []

    def run(self, query, *, row_cap, timeout_ms, ordered=True):
        self.asked.append({"query": query, "row_cap": row_cap, "timeout_ms": timeout_ms, "ordered": ordered})
        if self.raised:
            raise self.raised
        return self.answer


@pytest.fixture
def workers(monkeypatch):
    made = {}
    monkeypatch.setattr(cypher, "worker", lambda database: made.setdefault(database, made.get("next") or Worker()))
    return made


SNAPSHOT = SimpleNamespace(folder=Path("snap"))


@pytest.mark.parametrize("query, ordered", [
    ("MATCH (d:Document) RETURN d.title ORDER BY d.title", True), ("match (d) return d order  by d.date", True),
    ("MATCH (d:Document) RETURN d.title, 'x'ORDER BY d.title", True),
    ("MATCH (d:Document) RETURN d.title", False), ("MATCH (d) WHERE d.title = 'ORDER BY' RETURN d", False),
    ("MATCH (d) RETURN d // ORDER BY d.date", False), ("MATCH (d) RETURN d.border_by", False),
])
def test_a_query_reaches_the_snapshot_s_worker_ordered_or_not(workers, query, ordered):
    assert run_query(SNAPSHOT, query) == {"columns": [], "rows": []}
    assert workers[Path("snap") / "graph.lbug"].asked == [
        {"query": query, "row_cap": 50, "timeout_ms": 5000, "ordered": ordered}]


def test_a_query_that_fails_or_stops_is_one_line(workers):
    workers["next"] = Worker(raised=QueryStopped("stopped at the time-out of 1 ms"))
    with pytest.raises(QueryRefused) as err:
        run_query(SNAPSHOT, "MATCH (n) RETURN n", row_cap=5, timeout_ms=1)
    assert str(err.value) == "query failed: stopped at the time-out of 1 ms"
    assert workers[Path("snap") / "graph.lbug"].asked[0]["row_cap"] == 5
    workers.clear()
    workers["next"] = Worker(answer={"error": "Binder exception: table X does not exist"})
    with pytest.raises(QueryRefused) as err:
        run_query(SNAPSHOT, "MATCH (n:X) RETURN n")
    assert str(err.value) == "query failed: Binder exception: table X does not exist"
    with pytest.raises(QueryRefused) as err:
        run_query(SNAPSHOT, "MATCH (n) SET n.x = 1")
    assert str(err.value) == "query refused: SET is not allowed: the graph is read-only"


def test_one_worker_per_database_all_closed_when_the_process_ends(monkeypatch):
    at_exit, made = [], []

    class FakeWorker:
        def __init__(self, database):
            self.database, self.closed = database, False
            made.append(self)

        def close(self):
            self.closed = True

    monkeypatch.setattr(cypher, "_WORKERS", {})
    monkeypatch.setattr(cypher, "QueryWorker", FakeWorker)
    monkeypatch.setattr(cypher.atexit, "register", at_exit.append)
    first = cypher.worker(Path("a"))
    assert len(at_exit) == 1  # registered with the first worker
    assert cypher.worker(Path("a")) is first and cypher.worker(Path("b")) is not first
    assert [w.database for w in made] == [Path("a"), Path("b")] and len(at_exit) == 1
    at_exit[0]()
    assert all(w.closed for w in made)


class Lexical:
    def __init__(self, hits):
        self.hits, self.asked = hits, []

    def search(self, query, k):
        self.asked.append((query, k))
        return self.hits


@pytest.mark.parametrize("limit, k", [(5, 5), (20, 20), (25, 20), (0, 1), (-4, 1), (1, 1), (2, 2)])
def test_passage_search_asks_for_one_to_twenty_passages(limit, k):
    lexical = Lexical([])
    search_passages(SimpleNamespace(lexical=lexical), "mines", limit)
    assert lexical.asked == [("mines", k)]


def test_passage_search_gives_ten_passages_by_default_and_their_sources_dates():
    hits = [{"passage_id": "p1", "date": "1949-04-09"}, {"passage_id": "p2", "date": None},
            {"passage_id": "p3", "date": "1948-03-25"}, {"passage_id": "p4", "date": "1949-04-09"},
            {"passage_id": "p5", "date": ""}]
    lexical = Lexical(hits)
    assert search_passages(SimpleNamespace(lexical=lexical), "Corfu") == {
        "method": "bm25 (lexical)", "passages": hits, "source_dates": ["1948-03-25", "1949-04-09"]}
    assert lexical.asked == [("Corfu", 10)]
