"""The vector index's parts on tiny parquet files: which columns hold vectors, which rows get one, the
normalised read-only matrix beside a snapshot, the cosine search, and the stand-in encoder."""

from __future__ import annotations

import hashlib
import json
import os
import stat
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from auditpacks.packs.icj.graph import vectors as v
from auditpacks.packs.icj.graph.vectors import VectorIndex, VectorSource


def parquet(path: Path, **columns) -> Path:
    pq.write_table(pa.table(columns), path)
    return path


def found_item(path: Path, columns=None):
    """What the reader finds for one table role: its column names and its files."""
    return SimpleNamespace(columns={"passage_id": "pid"} if columns is None else columns,
                           table=SimpleNamespace(files=[path]))


def floats(rows, kind=pa.float32()):
    return pa.array(rows, pa.list_(kind))


@pytest.mark.parametrize("vector_type", [pa.list_(pa.float32()), pa.large_list(pa.float64()),
                                         pa.list_(pa.float64(), 2)])
def test_find_sources_takes_the_first_list_of_floats(tmp_path, vector_type):
    path = parquet(tmp_path / "p.parquet", pid=["a"], tags=pa.array([["x"]]), counts=pa.array([[1]]),
                   emb=pa.array([[0.5, 1.5]], vector_type), other=floats([[1.0]]))
    sources = v.find_sources({"passages": found_item(path)})
    assert sources == {"document": VectorSource((path,), "pid", "emb")}


def test_find_sources_names_each_kind_and_skips_what_cannot_hold_vectors(tmp_path):
    good = parquet(tmp_path / "r.parquet", rid=["a"], emb=floats([[1.0]]))
    plain = parquet(tmp_path / "plain.parquet", pid=["a"], text=["t"])
    csv = tmp_path / "p.csv"
    csv.write_text("pid,emb\n", encoding="utf-8")
    assert v.find_sources({"resolution_passages": found_item(good, {"passage_id": "rid"})}) == {
        "resolution": VectorSource((good,), "rid", "emb")}
    for item in (found_item(good, {"id": "rid"}), found_item(csv), found_item(plain)):
        assert v.find_sources({"passages": item}) == {}
    assert v.find_sources({}) == {}


def test_vector_dimensions_is_the_first_non_empty_vector_across_sources(tmp_path):
    empty = parquet(tmp_path / "a.parquet", pid=["a", "b"], emb=floats([None, []]))
    three = parquet(tmp_path / "b.parquet", pid=["c"], emb=floats([[1.0, 2.0, 3.0]]))
    source = VectorSource((empty,), "pid", "emb")
    assert v.vector_dimensions({"document": source}) is None
    assert v.vector_dimensions({"document": source, "resolution": VectorSource((three,), "pid", "emb")}) == 3
    assert v.vector_dimensions({}) is None


def build(tmp_path: Path, sources: dict, rows: list[dict]) -> tuple[np.ndarray, dict]:
    folder = tmp_path / "built"
    folder.mkdir()
    v._build(sources, rows, folder)
    return np.load(folder / v.MATRIX), json.loads((folder / v.INFO).read_text(encoding="utf-8"))


ROWS = [{"kind": "document", "passage_id": "1"}, {"kind": "resolution", "passage_id": "1"},
        {"kind": "document", "passage_id": "2"}, {"kind": "document", "passage_id": "3"}]


@pytest.mark.parametrize("fixed", [False, True])
def test_build_puts_each_corpus_row_s_normalised_vector_in_its_place(tmp_path, fixed):
    kind = pa.list_(pa.float64(), 2) if fixed else pa.list_(pa.float64())
    docs = pa.table({"pid": [9, 3, 1, None], "emb": pa.array([[1.0, 1.0], [0.0, 0.5], [0.3, 0.4], [1.0, 0.0]],
                                                              kind)})
    path = tmp_path / "d.parquet"
    pq.write_table(docs.slice(1), path) if fixed else pq.write_table(docs, path)
    matrix, info = build(tmp_path, {"document": VectorSource((path,), "pid", "emb")}, ROWS)
    # passage 9 is not in the corpus, a null id matches nothing, the resolution of id 1 is another passage
    assert matrix.dtype == np.float32
    np.testing.assert_allclose(matrix, [[0.6, 0.8], [0.0, 0.0], [0.0, 0.0], [0.0, 1.0]], rtol=1e-6)
    assert info == {"passages": 4, "with_vectors": 2, "dimensions": 2}


def test_build_skips_null_empty_and_other_length_vectors(tmp_path):
    path = parquet(tmp_path / "d.parquet", pid=["2", "1", "2", "2", None],
                   emb=floats([[], [2.0, 0.0], None, [1.0, 2.0, 3.0], [7.0, 7.0]]))
    late = parquet(tmp_path / "e.parquet", pid=["3"], emb=floats([[0.0, 5.0]], pa.float64()))
    rows = [*ROWS, {"kind": "document", "passage_id": "None"}]   # a null id is no passage's, not "None"'s
    matrix, info = build(tmp_path, {"document": VectorSource((path, late), "pid", "emb")}, rows)
    assert matrix.tolist() == [[1.0, 0.0], [0.0, 0.0], [0.0, 0.0], [0.0, 1.0], [0.0, 0.0]]
    assert info == {"passages": 5, "with_vectors": 2, "dimensions": 2}


def test_build_reads_a_batch_that_starts_inside_its_arrays(tmp_path, monkeypatch):
    """A batch may be a slice of larger arrays (a non-zero offset): its rows are read from where it starts."""
    table = pa.table({"pid": ["0", "1", "3"],
                      "emb": pa.array([[9.0, 9.0], [3.0, 4.0], [0.0, 2.0]], pa.list_(pa.float32(), 2))})
    sliced = table.to_batches()[0].slice(1)
    monkeypatch.setattr(v.pq, "ParquetFile", lambda path: SimpleNamespace(iter_batches=lambda columns: [sliced]))
    matrix, info = build(tmp_path, {"document": VectorSource((tmp_path / "d.parquet",), "pid", "emb")}, ROWS)
    np.testing.assert_allclose(matrix, [[0.6, 0.8], [0.0, 0.0], [0.0, 0.0], [0.0, 1.0]], rtol=1e-6)


def test_a_vector_with_a_missing_component_does_not_stop_the_build(tmp_path):
    path = parquet(tmp_path / "d.parquet", pid=["1", "3"], emb=floats([[1.0, None], [0.0, 2.0]]))
    matrix, _ = build(tmp_path, {"document": VectorSource((path,), "pid", "emb")}, ROWS)
    assert matrix[3].tolist() == [0.0, 1.0]


def test_build_without_any_vector_writes_an_empty_matrix(tmp_path):
    path = parquet(tmp_path / "d.parquet", pid=["7"], emb=floats([[1.0]]))
    matrix, info = build(tmp_path, {"document": VectorSource((path,), "pid", "emb")}, ROWS[:2])
    assert matrix.shape == (2, 0) and matrix.dtype == np.float32 and info == {"passages": 2, "with_vectors": 0, "dimensions": 0}


def snapshot_and_graph(tmp_path: Path):
    folder = tmp_path / "cache" / "1986-06-27_abc"
    folder.mkdir(parents=True)
    path = parquet(tmp_path / "d.parquet", pid=["1", "2"], emb=floats([[0.0, 3.0], [4.0, 0.0]]))
    rows = [{"kind": "document", "passage_id": "2", "text": "b"}, {"kind": "document", "passage_id": "1"}]
    snapshot = SimpleNamespace(folder=folder, lexical=SimpleNamespace(rows=rows))
    return SimpleNamespace(vector_sources={"document": VectorSource((path,), "pid", "emb")}), snapshot


def test_vectors_for_writes_a_read_only_index_beside_the_snapshot_once(tmp_path, monkeypatch):
    graph, snapshot = snapshot_and_graph(tmp_path)
    index = v.vectors_for(graph, snapshot)
    folder = tmp_path / "cache" / "1986-06-27_abc.vectors"
    assert sorted(p.name for p in folder.iterdir()) == [v.INFO, v.MATRIX]
    assert stat.S_IMODE(folder.stat().st_mode) == 0o555
    assert {stat.S_IMODE(p.stat().st_mode) for p in folder.iterdir()} == {0o444}
    assert sorted(p.name for p in folder.parent.iterdir()) == ["1986-06-27_abc", "1986-06-27_abc.vectors"]
    assert index.rows is snapshot.lexical.rows and index.info["with_vectors"] == 2
    monkeypatch.setattr(v, "_build", lambda *a: pytest.fail("built again"))
    assert v.vectors_for(graph, snapshot).matrix.tolist() == [[1.0, 0.0], [0.0, 1.0]]
    assert v.vectors_for(SimpleNamespace(vector_sources={}), snapshot) is None


def test_a_failed_build_leaves_no_staging_folder(tmp_path, monkeypatch):
    """The index is built in a hidden folder beside the snapshot (renamed into place on one file system)."""
    graph, snapshot = snapshot_and_graph(tmp_path)
    staged = []

    def half_built(sources, rows, folder):
        staged.append(folder)
        (folder / v.MATRIX).write_bytes(b"")
        raise OSError("disk full")

    monkeypatch.setattr(v, "_build", half_built)
    with pytest.raises(OSError, match="disk full"):
        v.vectors_for(graph, snapshot)
    assert [p.name for p in snapshot.folder.parent.iterdir()] == ["1986-06-27_abc"]
    assert staged[0].parent == snapshot.folder.parent and staged[0].name.startswith(".1986-06-27_abc.vectors.")


def test_another_process_finishing_first_is_used_and_a_failed_rename_otherwise_raises(tmp_path, monkeypatch):
    graph, snapshot = snapshot_and_graph(tmp_path)
    folder = snapshot.folder.with_name("1986-06-27_abc.vectors")
    real_rename = os.rename

    def lose_the_race(src, dst):
        real_rename(src, dst)     # the other process's copy lands first ...
        raise OSError("exists")   # ... so this one's rename fails

    monkeypatch.setattr(v.os, "rename", lose_the_race)
    assert v.vectors_for(graph, snapshot).info["passages"] == 2 and (folder / v.INFO).is_file()
    assert sorted(p.name for p in folder.parent.iterdir()) == ["1986-06-27_abc", "1986-06-27_abc.vectors"]
    other, snapshot = snapshot_and_graph(tmp_path / "again")
    monkeypatch.setattr(v.os, "rename", lambda src, dst: (_ for _ in ()).throw(OSError("read-only")))
    with pytest.raises(OSError, match="read-only"):
        v.vectors_for(other, snapshot)
    assert [p.name for p in snapshot.folder.parent.iterdir()] == ["1986-06-27_abc"]


def index_of(tmp_path: Path, matrix: list[list[float]]) -> VectorIndex:
    folder = tmp_path / "index"
    folder.mkdir()
    array = np.asarray(matrix, np.float32).reshape(len(matrix), -1)
    np.save(folder / v.MATRIX, array)
    (folder / v.INFO).write_text(json.dumps({"passages": len(matrix)}), encoding="utf-8")
    return VectorIndex(folder, [{"passage_id": str(i)} for i in range(len(matrix))])


def test_search_ranks_by_cosine_best_first_and_only_rows_with_a_vector(tmp_path):
    index = index_of(tmp_path, [[1.0, 0.0], [0.0, 0.0], [0.6, 0.8], [0.0, 1.0], [0.6, 0.8]])
    assert index.dimensions == 2 and index.info == {"passages": 5}
    assert isinstance(index.matrix, np.memmap) and not index.matrix.flags.writeable   # read, never loaded whole
    found = index.search([0.0, 2.0], k=10)   # the query's length does not matter
    assert [(p["passage_id"], p["score"]) for p in found] == [("3", 1.0), ("2", 0.8), ("4", 0.8), ("0", 0.0)]
    assert [p["passage_id"] for p in index.search([[3.0, 4.0]], k=2)] == ["2", "4"]
    assert [p["score"] for p in index.search([3.0, 4.0])] == [1.0, 1.0, 0.8, 0.6]   # float32 sums, rounded


def test_search_gives_ten_by_default_and_keeps_the_corpus_order_among_ties(tmp_path):
    index = index_of(tmp_path, [[1.0, 0.0], [0.0, 1.0]] * 20)
    assert [p["passage_id"] for p in index.search([1.0, 0.0])] == [str(i) for i in range(0, 20, 2)]


@pytest.mark.parametrize("query, k", [([1.0, 0.0], 0), ([1.0, 0.0], -1), ([1.0, 0.0, 0.0], 3), ([0.0, 0.0], 3)])
def test_search_finds_nothing_for_no_room_a_wrong_length_or_a_zero_query(tmp_path, query, k):
    assert index_of(tmp_path, [[1.0, 0.0], [0.0, 1.0]]).search(query, k) == []


@pytest.mark.parametrize("matrix", [[[0.0, 0.0], [0.0, 0.0]], [[], []]])
def test_an_index_without_vectors_finds_nothing(tmp_path, matrix):
    index = index_of(tmp_path, matrix)
    assert index.search([1.0, 0.0][:index.dimensions] or [1.0]) == [] and not index.has_vector.any()
    assert len(index.has_vector) == 2 and index.has_vector.dtype == bool


def test_the_hashing_encoder_counts_words_into_their_hash_buckets():
    encode = v.hashing_encoder(16)
    bucket = int(hashlib.sha256(b"state").hexdigest()[:8], 16) % 16   # the hex hash the docstring names
    assert encode("state") == [1.0 if i == bucket else 0.0 for i in range(16)]
    vector = encode("State, state; the STATE held")
    assert len(vector) == 16 and sum(vector) == 5.0 and vector[bucket] >= 3.0
    assert encode(1986) == encode("1986") and encode("") == [0.0] * 16
