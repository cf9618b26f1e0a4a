"""Per-cutoff snapshots: built once, read-only, holding only the cut graph, with cut-corpus search statistics."""

from __future__ import annotations

import errno
import json
import os
import re
import shutil
import stat

import bm25s
import ladybug
import pyarrow.parquet as pq
import pytest

from auditpacks.core.errors import UserError
from auditpacks.packs.icj.graph import snapshot as snapshots
from auditpacks.packs.icj.graph.reader import read_graph
from auditpacks.packs.icj.tools.guard import later_identifiers, withheld_values
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


def test_a_fresh_snapshot_records_what_it_holds_and_what_it_withholds(graph, tmp_path):
    snap = snapshots.snapshot_for(graph, "1986-06-27", tmp_path / "new" / "cache")    # folders made as needed
    text = (snap.folder / "snapshot.json").read_text(encoding="utf-8")
    info = json.loads(text)
    assert text == json.dumps(info, indent=2, sort_keys=True)
    counts = {p.stem: pq.read_table(p).num_rows for p in (snap.folder / "tables").glob("*.parquet")}
    assert info["counts"] == counts and counts["documents"] == 13 and len(counts) == len(graph.tables)
    # the passages of the 13 documents before the cutoff and the resolutions adopted before it
    passages = counts["passages"] + counts["resolution_passages"]
    assert {k: info[k] for k in ("cutoff", "source_hash", "lexical", "read_report")} == {
        "cutoff": "1986-06-27", "source_hash": graph.source_hash, "read_report": graph.report,
        "lexical": {"method": "bm25", "library": "bm25s", "passages": passages}}
    assert isinstance(info["build_seconds"], float) and 0 <= info["build_seconds"] < 600
    assert round(info["build_seconds"], 3) == info["build_seconds"]
    withheld = json.loads((snap.folder / "withheld.json").read_text(encoding="utf-8"))
    assert withheld and withheld == sorted(later_identifiers(graph, "1986-06-27")
                                           | withheld_values(graph, "1986-06-27"))
    assert snap.cutoff == "1986-06-27" and [p.name for p in snap.folder.parent.iterdir()] == [snap.folder.name]


def test_every_file_is_read_only_and_every_folder_only_listable(graph, tmp_path):
    snap = snapshots.snapshot_for(graph, "1986-06-27", tmp_path)
    modes = {stat.S_IMODE(p.stat().st_mode) for p in snap.folder.rglob("*") if p.is_file()}
    folders = {stat.S_IMODE(p.stat().st_mode) for p in [snap.folder, *snap.folder.rglob("*")] if p.is_dir()}
    assert (modes, folders) == ({0o444}, {0o555})


def test_rows_are_read_once_and_rows_where_reads_the_matching_ones(graph, cache):
    snap = snapshots.snapshot_for(graph, "1986-06-27", cache)
    documents = snap.rows("documents")
    assert len(documents) == 13 and snap.rows("documents") is documents
    first = documents[0]["document_id"]
    assert snap.rows_where("documents", "document_id", first) == [d for d in documents if d["document_id"] == first]
    assert snap.rows_where("documents", "document_id", NICARAGUA_MERITS) == []   # after the cutoff


@pytest.mark.parametrize("content", [None, "{not json"])
def test_a_folder_without_a_readable_snapshot_file_is_refused(tmp_path, content):
    if content is not None:
        (tmp_path / "snapshot.json").write_text(content, encoding="utf-8")
    with pytest.raises(UserError, match=rf"^{re.escape(str(tmp_path))}: not a built snapshot "
                                        r"\(no readable snapshot\.json\)$"):
        snapshots.Snapshot(tmp_path)


def test_a_build_that_fails_leaves_nothing_and_one_another_process_finished_first_is_used(graph, tmp_path,
                                                                                           monkeypatch):
    def broken(*args):
        raise OSError("disk gone")
    with monkeypatch.context() as patch:
        patch.setattr(snapshots, "build_index", broken)
        with pytest.raises(OSError, match="disk gone"):
            snapshots.snapshot_for(graph, "1986-06-27", tmp_path)
    assert list(tmp_path.iterdir()) == []
    renamed = os.rename

    def beaten(staging, folder):
        """Another process renames its own copy into place just before this one."""
        shutil.copytree(staging, folder)
        raise OSError(errno.ENOTEMPTY, "Directory not empty")
    monkeypatch.setattr(os, "rename", beaten)
    snap = snapshots.snapshot_for(graph, "1986-06-27", tmp_path)
    assert [p.name for p in tmp_path.iterdir()] == [snap.folder.name] and snap.cutoff == "1986-06-27"

    def refused(staging, folder):
        raise OSError(errno.EACCES, "Permission denied")
    monkeypatch.setattr(os, "rename", refused)
    with pytest.raises(OSError, match="Permission denied"):
        snapshots.snapshot_for(graph, "1986-06-26", tmp_path)
    monkeypatch.setattr(os, "rename", renamed)
    assert [p.name for p in tmp_path.iterdir()] == [snap.folder.name]     # the failed one's staging is gone


@pytest.mark.parametrize("sizes, region", [
    ([1], 64), ([20 * 2**20], 80), ([16 * 2**20 + 1], 65), ([10 * 2**20, 10 * 2**20], 80)])
def test_a_database_reserves_four_times_its_size_in_whole_mib_and_at_least_64(tmp_path, sizes, region):
    for i, size in enumerate(sizes):
        with open(tmp_path / f"part{i}", "wb") as fh:
            fh.truncate(size)                   # sparse: the size without the bytes
    database = tmp_path / "part0" if len(sizes) == 1 else tmp_path
    assert snapshots.database_region(database) == region * 2**20


def test_a_snapshot_is_built_in_a_hidden_folder_beside_its_place(graph, tmp_path, monkeypatch):
    built, build = [], snapshots._build
    monkeypatch.setattr(snapshots, "_build", lambda g, cutoff, folder: built.append(folder) or build(g, cutoff, folder))
    snap = snapshots.snapshot_for(graph, "1986-06-27", tmp_path)
    (staging,) = built
    assert staging.parent == tmp_path and staging.name.startswith(f".{snap.folder.name}.") and not staging.exists()
