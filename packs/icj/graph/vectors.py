"""Optional vector search over one snapshot's passages, when the graph copy holds passage vectors.

The card's Cypher + Semantic searches passages by embedding similarity. A copy whose passage tables
carry a list-of-floats column (and a ``passage_id`` column to join on) has those vectors; nothing
else needs them, and the reader never loads them. For a semantic condition, ``vectors_for(graph,
snapshot)`` writes, beside the snapshot, the vectors of exactly the passages in the snapshot's cut
corpus (``<snapshot>.vectors/``, streamed from the copy, L2-normalised float32, read-only), so a later
passage is never in the matrix a query is scored against. Queries are embedded by an encoder the
caller gives (the model that made the copy's vectors, served at an embeddings endpoint).
:func:`hashing_encoder` is a stand-in used by the leak audit: any query vector can only rank
passages that are in the matrix.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

MATRIX, INFO = "vectors.npy", "vectors.json"
_WORD = re.compile(r"\w+", re.U)


@dataclass(frozen=True)
class VectorSource:
    """Where a passage kind's vectors are: the copy's files, its passage id column and its vector column."""

    files: tuple[Path, ...]
    id_column: str
    vector_column: str


def find_sources(found: dict) -> dict[str, VectorSource]:
    """Passage kind (``document``, ``resolution``) → its vector source, from the reader's found tables (schemas
    only)."""
    import pyarrow.types as t

    out = {}
    for kind, role in (("document", "passages"), ("resolution", "resolution_passages")):
        item = found.get(role)
        if item is None or "passage_id" not in item.columns or item.table.files[0].suffix != ".parquet":
            continue
        schema = pq.read_schema(item.table.files[0])
        lists = [f for f in schema if t.is_list(f.type) or t.is_large_list(f.type) or t.is_fixed_size_list(f.type)]
        vector = next((f.name for f in lists if t.is_floating(f.type.value_type)), None)
        if vector:
            out[kind] = VectorSource(tuple(item.table.files), item.columns["passage_id"], vector)
    return out


def vector_dimensions(sources: dict[str, VectorSource]) -> int | None:
    """The length of the copy's first non-empty passage vector (streamed), or None when it holds none."""
    for source in sources.values():
        for path in source.files:
            for batch in pq.ParquetFile(path).iter_batches(columns=[source.vector_column]):
                for vector in batch.column(0):
                    if vector.is_valid and len(vector):
                        return len(vector)
    return None


def vectors_for(graph, snapshot) -> "VectorIndex | None":
    """The vector index of ``snapshot``'s corpus, built on first use from ``graph``'s copy (None: it has no
    vectors)."""
    if not graph.vector_sources:
        return None
    folder = snapshot.folder.with_name(snapshot.folder.name + ".vectors")
    if not (folder / INFO).is_file():
        staging = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=snapshot.folder.parent))
        try:
            _build(graph.vector_sources, snapshot.lexical.rows, staging)
            for path in staging.iterdir():
                path.chmod(0o444)
            staging.chmod(0o555)
            try:
                os.rename(staging, folder)
            except OSError:  # another process finished it first
                if not (folder / INFO).is_file():
                    raise
        finally:
            if staging.exists():
                staging.chmod(0o755)
                shutil.rmtree(staging)
    return VectorIndex(folder, snapshot.lexical.rows)


def _build(sources: dict[str, VectorSource], rows: list[dict], folder: Path) -> None:
    """The vectors of the corpus ``rows`` (in their order), streamed from the copy; rows without one stay zero."""
    wanted = {(r["kind"], r["passage_id"]): i for i, r in enumerate(rows)}
    matrix: np.ndarray | None = None
    found = 0
    for kind, source in sources.items():
        for path in source.files:
            for batch in pq.ParquetFile(path).iter_batches(columns=[source.id_column, source.vector_column]):
                vectors = batch.column(1)
                if not isinstance(vectors, pa.FixedSizeListArray):
                    vectors = vectors.cast(pa.list_(pa.float32()))
                offsets = np.asarray(vectors.offsets) if not isinstance(vectors, pa.FixedSizeListArray) else \
                    np.arange(len(vectors) + 1) * vectors.type.list_size + vectors.offset * vectors.type.list_size
                flat = vectors.values.to_numpy(zero_copy_only=False)
                for j, passage in enumerate(batch.column(0).to_pylist()):
                    row = wanted.get((kind, None if passage is None else str(passage)))
                    start, end = int(offsets[j]), int(offsets[j + 1])
                    if row is None or end == start or not vectors[j].is_valid:
                        continue
                    if matrix is None:
                        matrix = np.zeros((len(rows), end - start), np.float32)
                    if end - start == matrix.shape[1]:
                        matrix[row] = flat[start:end]
                        found += 1
    matrix = np.zeros((len(rows), 0), np.float32) if matrix is None else matrix
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    np.save(folder / MATRIX, np.divide(matrix, norms, out=np.zeros_like(matrix), where=norms > 0))
    (folder / INFO).write_text(json.dumps({"passages": len(rows), "with_vectors": found,
                                           "dimensions": int(matrix.shape[1])}), encoding="utf-8")


class VectorIndex:
    """A snapshot's passage vectors; ``search(vector, k)`` gives passages best first by cosine similarity."""

    def __init__(self, folder: Path, rows: list[dict]) -> None:
        self.rows = rows
        self.matrix = np.load(folder / MATRIX, mmap_mode="r")
        self.info = json.loads((folder / INFO).read_text(encoding="utf-8"))
        self.has_vector = (np.linalg.norm(self.matrix, axis=1) > 0 if self.matrix.shape[1]
                           else np.zeros(len(rows), bool))

    @property
    def dimensions(self) -> int:
        return int(self.matrix.shape[1])

    def search(self, vector: Any, k: int = 10) -> list[dict[str, Any]]:
        query = np.asarray(vector, np.float32).ravel()
        if k < 1 or not self.has_vector.any() or query.shape[0] != self.dimensions or not np.linalg.norm(query):
            return []
        scores = np.where(self.has_vector, self.matrix @ (query / np.linalg.norm(query)), -np.inf)
        best = np.argsort(-scores, kind="stable")[: min(k, int(self.has_vector.sum()))]
        return [{**self.rows[int(i)], "score": round(float(scores[i]), 6)} for i in best]


def hashing_encoder(dimensions: int) -> Callable[[str], list[float]]:
    """A stand-in query encoder: each word adds 1 to a bucket chosen by its hash (no model, deterministic)."""
    def encode(text: str) -> list[float]:
        vector = [0.0] * dimensions
        for word in _WORD.findall(str(text).lower()):
            vector[int(hashlib.sha256(word.encode()).hexdigest()[:8], 16) % dimensions] += 1.0
        return vector
    return encode
