"""Lexical passage search (BM25, ``bm25s``) over one snapshot's corpus, built from the cut graph only.

The index is rebuilt per cutoff, so document frequencies and the average passage length are those
of the cut corpus: a later document changes no score before its date.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from auditpacks.packs.icj.graph.reader import Graph

CORPUS = "corpus.parquet"


def corpus(graph: Graph) -> pa.Table:
    """Document and resolution passages of the (cut) graph with the date of their source."""
    docs, resolutions = graph.tables["documents"], graph.tables["resolutions"]
    dates = dict(zip(docs["document_id"].to_pylist(), docs["date"].to_pylist()))
    adopted = dict(zip(resolutions["symbol"].to_pylist(), resolutions["date"].to_pylist()))
    rows: dict[str, list[Any]] = {"kind": [], "source": [], "passage_id": [], "date": [], "text": []}
    for kind, table, key, when in (("document", graph.tables["passages"], "document_id", dates),
                                   ("resolution", graph.tables["resolution_passages"], "symbol", adopted)):
        for i, row in enumerate(table.select([key, "passage_id", "text"]).to_pylist()):
            if not row["text"]:
                continue
            rows["kind"].append(kind)
            rows["source"].append(row[key])
            rows["passage_id"].append(row["passage_id"] or f"{row[key]}#{i}")
            rows["date"].append(when.get(row[key]))
            rows["text"].append(row["text"])
    return pa.table({k: pa.array(v, pa.string()) for k, v in rows.items()})


def build_index(graph: Graph, folder: Path) -> int:
    """Write the corpus and its BM25 index to ``folder``; the number of passages indexed."""
    import bm25s

    folder.mkdir(parents=True)
    table = corpus(graph)
    pq.write_table(table, folder / CORPUS)
    if table.num_rows:
        retriever = bm25s.BM25()
        retriever.index(bm25s.tokenize(table["text"].to_pylist(), stopwords="en", show_progress=False),
                        show_progress=False)
        retriever.save(folder / "bm25", show_progress=False)
    return table.num_rows


class LexicalIndex:
    """A saved index and its corpus; ``search`` returns passages best first with their BM25 score."""

    def __init__(self, folder: Path) -> None:
        self.rows = pq.read_table(folder / CORPUS).to_pylist()
        self._retriever = None
        if self.rows:
            import bm25s

            self._retriever = bm25s.BM25.load(folder / "bm25", show_progress=False)

    def search(self, query: str, k: int = 10) -> list[dict[str, Any]]:
        import bm25s

        if self._retriever is None or k < 1:
            return []
        tokens = bm25s.tokenize([query], stopwords="en", return_ids=False, show_progress=False)[0]
        known = [t for t in tokens if t in self._retriever.vocab_dict]
        if not known:
            return []
        ids, scores = self._retriever.retrieve([known], k=min(k, len(self.rows)), show_progress=False)
        return [{**self.rows[int(i)], "score": round(float(s), 6)}
                for i, s in zip(ids[0], scores[0]) if float(s) > 0]
