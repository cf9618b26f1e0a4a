"""Per-cutoff snapshots: built once, read-only, holding only the cut graph, with cut-corpus search statistics."""

from __future__ import annotations

import stat

import bm25s
import ladybug
import pyarrow.parquet as pq
import pytest

from auditpacks.core.errors import UserError
from auditpacks.packs.icj.graph import snapshot as snapshots
from auditpacks.packs.icj.graph.reader import read_graph
from tests.support.icj_graph import GRAPH, NICARAGUA_MERITS


@pytest.fixture(scope="module")
def graph():
    return read_graph(GRAPH)


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return tmp_path_factory.mktemp("cache")


def test_built_once_per_cutoff_and_reused(graph, cache, monkeypatch):
    first = snapshots.snapshot_for(graph, "1986-06-27", cache)
    calls = []
    monkeypatch.setattr(snapshots, "_build", lambda *a: calls.append(a))
    again = snapshots.snapshot_for(graph, "1986-06-27", cache)
    assert again.folder == first.folder and calls == []
    assert first.folder.name == f"1986-06-27_{graph.source_hash[:16]}"


def test_a_changed_source_gets_its_own_snapshot(graph, cache):
    changed = type(graph)(graph.tables, "0" * 64)
    assert snapshots.snapshot_for(changed, "1986-06-27", cache).folder != \
        snapshots.snapshot_for(graph, "1986-06-27", cache).folder


def test_files_are_read_only_and_the_database_refuses_writes(graph, cache):
    snap = snapshots.snapshot_for(graph, "1986-06-27", cache)
    assert all(not (p.stat().st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH)) for p in snap.folder.rglob("*"))
    connection = ladybug.Connection(snap.database)
    with pytest.raises(RuntimeError, match="read-only"):
        connection.execute("CREATE (:Document {document_id: 'x'})")


def test_the_database_holds_only_the_cut_graph(graph, cache):
    connection = ladybug.Connection(snapshots.snapshot_for(graph, "1986-06-27", cache).database)
    assert connection.execute("MATCH (d:Document) RETURN count(*)").get_all() == [[13]]
    assert connection.execute(f"MATCH (d:Document) WHERE d.document_id = '{NICARAGUA_MERITS}' "
                              "RETURN d").get_all() == []
    cited = connection.execute("MATCH (:Document)-[:CITES_CASE]->(c:`Case`) WHERE c.case_id = '001' "
                               "RETURN count(*), c.cited_by").get_all()
    assert cited == [[2, 2]]


def test_search_statistics_are_those_of_the_cut_corpus(graph, cache):
    snap = snapshots.snapshot_for(graph, "1986-06-27", cache)
    hits = snap.lexical.search("self-defence armed attack", 3)
    assert hits[0]["source"].startswith("ICJ_070_") and hits[0]["date"] == "1984-11-26"
    # the same score from an index built independently on the passages dated before the cutoff
    docs = {r["doc_id"]: r["decision_date"] for r in pq.read_table(GRAPH / "data/documents.parquet").to_pylist()}
    passages = pq.read_table(GRAPH / "data/passages").to_pylist()
    resolutions = {r["symbol"]: r["passage_text"] for r in pq.read_table(GRAPH / "data/resolution_passages.parquet")
                   .to_pylist()}
    adopted = {r["resolution_symbol"]: r["adoption_date"].date().isoformat()
               for r in pq.read_table(GRAPH / "data/resolutions.parquet").to_pylist()}
    texts = [p["text"] for p in passages if docs[p["document_id"]] < "1986-06-27"]
    texts += [t for s, t in resolutions.items() if adopted[s] < "1986-06-27"]
    expected = _top_score(texts, hits[0]["text"])
    assert hits[0]["score"] == pytest.approx(expected, rel=1e-5)
    everything = [p["text"] for p in passages] + list(resolutions.values())
    assert _top_score(everything, hits[0]["text"]) != pytest.approx(expected, rel=1e-3)


def _top_score(texts, wanted):
    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize(texts, stopwords="en", show_progress=False), show_progress=False)
    query = [t for t in bm25s.tokenize(["self-defence armed attack"], stopwords="en", return_ids=False,
                                       show_progress=False)[0] if t in retriever.vocab_dict]
    ids, scores = retriever.retrieve([query], k=len(texts), show_progress=False)
    return next(float(s) for i, s in zip(ids[0], scores[0]) if texts[int(i)] == wanted)


def test_no_passage_of_a_later_source_is_searchable(graph, cache):
    snap = snapshots.snapshot_for(graph, "1986-06-27", cache)
    assert all(hit["date"] < "1986-06-27" for hit in snap.lexical.search("nuclear weapons climate wall", 50))
    assert snap.lexical.search("nuclear", 5) == []  # only the 1996 opinion speaks of it


def test_a_bad_cutoff_is_one_line(graph, cache):
    with pytest.raises(UserError, match="'1986-13-01' is not a date"):
        snapshots.snapshot_for(graph, "1986-13-01", cache)
