"""Vector search over a snapshot: only the cut corpus's passages are in the matrix; the nearest passage comes first;
a copy without vectors has none; the leak audit covers the semantic tool and fails without the cutoff filter."""

from __future__ import annotations

import shutil

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from auditpacks.packs.icj.graph import cutoff as cutoffs
from auditpacks.packs.icj.graph.reader import read_graph
from auditpacks.packs.icj.graph.snapshot import snapshot_for
from auditpacks.packs.icj.graph.vectors import hashing_encoder, vectors_for
from auditpacks.packs.icj.tools.audit import leak_audit
from auditpacks.packs.icj.tools.catalogue import conditions
from auditpacks.packs.icj.tools.semantic import Semantic
from tests.support.icj_graph import with_word_vectors

ENCODE = hashing_encoder(64)


@pytest.fixture(scope="module")
def copy(tmp_path_factory):
    return with_word_vectors(tmp_path_factory.mktemp("graph") / "graph", ENCODE)


def test_only_the_cut_corpus_is_searched_and_the_nearest_passage_comes_first(copy, tmp_path):
    graph = read_graph(copy)
    snapshot = snapshot_for(graph, "1986-06-27", tmp_path)
    index = vectors_for(graph, snapshot)
    # 43 passages in the cut corpus: 36 of documents (with vectors) and 7 of resolutions (the copy has none)
    assert index.info == {"passages": 43, "with_vectors": 36, "dimensions": 64}
    assert (snapshot.folder.parent / f"{snapshot.folder.name}.vectors").is_dir()
    target = next(r for r in snapshot.lexical.rows if r["kind"] == "document")
    found = Semantic(index, ENCODE).search(target["text"], limit=50)
    assert found["method"] == "vector (cosine), cut corpus"
    assert found["passages"][0]["passage_id"] == target["passage_id"] and found["passages"][0]["score"] == 1.0
    assert len(found["passages"]) == 20  # the search cap
    assert all(p["kind"] == "document" and p["date"] < "1986-06-27" for p in found["passages"])
    assert max(found["source_dates"]) < "1986-06-27"


def test_a_copy_without_vectors_has_no_vector_index(copy, tmp_path):
    plain = tmp_path / "plain"
    shutil.copytree(copy, plain)
    for path in (plain / "data" / "passages").glob("*.parquet"):
        pq.write_table(pq.read_table(path).drop_columns(["embedding"]), path)
    graph = read_graph(plain)
    assert graph.vector_sources == {}
    assert vectors_for(graph, snapshot_for(graph, "1986-06-27", tmp_path / "c")) is None


def test_the_leak_audit_covers_semantic_search(copy, monkeypatch):
    graph = read_graph(copy)
    tools = [t for t in conditions()["Cypher + Semantic"] if t.name == "search_passages"]
    assert leak_audit(graph, ["1949-12-15", "1986-06-27"], tools, examples=6).passed
    monkeypatch.setattr(cutoffs, "cut", lambda graph, cutoff: graph)
    report = leak_audit(graph, ["1986-06-27"], tools, examples=6)
    assert not report.passed and report.leaks[0]["tool"] == "search_passages (semantic_search)"
    assert report.leaks[0]["finding"].endswith("not before the cutoff 1986-06-27")


def test_fixed_size_double_vectors_are_read_too(copy, tmp_path):
    other = tmp_path / "fixed"
    shutil.copytree(copy, other)
    for path in (other / "data" / "passages").glob("*.parquet"):
        table = pq.read_table(path)
        fixed = table["embedding"].cast(pa.list_(pa.float64(), 64))
        pq.write_table(table.set_column(table.column_names.index("embedding"), "embedding", fixed), path)
    graph = read_graph(other)
    snapshot = snapshot_for(graph, "1986-06-27", tmp_path / "c")
    index = vectors_for(graph, snapshot)
    assert index.info == {"passages": 43, "with_vectors": 36, "dimensions": 64}
    target = next(r for r in snapshot.lexical.rows if r["kind"] == "document")
    assert Semantic(index, ENCODE).search(target["text"], limit=1)["passages"][0]["passage_id"] == target["passage_id"]
