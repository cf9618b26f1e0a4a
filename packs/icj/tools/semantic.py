"""Vector passage search for the Cypher + Semantic condition: the query embedded by the given encoder, scored by
cosine similarity against the vectors of the snapshot's cut corpus only (``graph/vectors.py``)."""

from __future__ import annotations

from typing import Any, Callable

from auditpacks.packs.icj.graph.vectors import VectorIndex
from auditpacks.packs.icj.tools.cypher import SEARCH_CAP

METHOD = "vector (cosine), cut corpus"


class Semantic:
    """A snapshot's vector index and the encoder that embeds a query the way the copy's passages were embedded."""

    def __init__(self, index: VectorIndex, encode: Callable[[str], Any]) -> None:
        self.index, self.encode = index, encode

    def search(self, query: str, limit: int = 10) -> dict[str, Any]:
        hits = self.index.search(self.encode(query), max(1, min(limit, SEARCH_CAP)))
        return {"method": METHOD, "passages": hits, "source_dates": sorted({h["date"] for h in hits if h["date"]})}
