"""The designed lookup tools: cases, documents, provisions, resolutions and judges of one snapshot.

Every identifier is returned in the scorer's spelling: three-digit case ids, provision keys such as
``statute:article_36``, resolution symbols as the graph spells them. Each result lists the dates
of the documents and resolutions it returns (``source_dates``) for the guard and the trace.
"""

from __future__ import annotations

import re
from functools import cached_property
from typing import Any, Iterable

from auditpacks.packs.icj.targets import normalise_case_id

LIST_CAP = 25
PASSAGE_CAP = 10
_TOKEN = re.compile(r"\w+", re.U)


def _words(text: Any) -> set[str]:
    return {w.lower() for w in _TOKEN.findall(str(text or ""))}


def _ranked(rows: Iterable[dict], query: str, fields: tuple[str, ...], limit: int) -> list[dict]:
    """Rows whose fields share words with ``query``, most shared words first (ties in table order)."""
    wanted = _words(query)
    scored = []
    for i, row in enumerate(rows):
        exact = any(str(row.get(f) or "").lower() == query.strip().lower() for f in fields)
        hits = len(wanted & set().union(*(_words(row.get(f)) for f in fields)))
        if exact or hits:
            scored.append((-(hits + 100 * exact), i, row))
    return [row for _, _, row in sorted(scored, key=lambda s: s[:2])[:limit]]


def _cap(limit: Any, cap: int) -> int:
    return max(1, min(int(limit), cap)) if isinstance(limit, int) and not isinstance(limit, bool) else cap


def _dated(rows: Iterable[dict]) -> list[str]:
    return sorted({r["date"] for r in rows if r.get("date")})


class Lookups:
    """Indexes over one snapshot's tables; one method per designed tool."""

    def __init__(self, snapshot) -> None:
        self.snapshot = snapshot

    def _by(self, role: str, key: str) -> dict[str, dict]:
        return {r[key]: r for r in self.snapshot.rows(role)}

    @cached_property
    def cases(self):
        return self._by("cases", "case_id")

    @cached_property
    def documents(self):
        return self._by("documents", "document_id")

    @cached_property
    def provisions(self):
        return self._by("provisions", "provision_key")

    @cached_property
    def resolutions(self):
        return self._by("resolutions", "symbol")

    @cached_property
    def judges(self):
        return self._by("judges", "judge_id")

    def _links(self, role: str, key: str, value: str, out: str) -> list[str]:
        return sorted({r[out] for r in self.snapshot.rows(role) if r[key] == value})

    def _doc_brief(self, ids: Iterable[str]) -> list[dict]:
        docs = [self.documents[d] for d in ids if d in self.documents]
        return [{k: d[k] for k in ("document_id", "case_id", "date", "doc_type")} for d in
                sorted(docs, key=lambda d: (d["date"], d["document_id"]))]

    def find_case(self, query: str, limit: int = LIST_CAP) -> dict:
        rows = _ranked(self.cases.values(), query, ("case_id", "name"), _cap(limit, LIST_CAP))
        cases = [{"case_id": r["case_id"], "name": r["name"], "case_type": r["case_type"], "court": r["court"]}
                 for r in rows]
        return {"cases": cases, "source_dates": []}

    def get_case(self, case_id: str) -> dict:
        case = self.cases.get(normalise_case_id(str(case_id).strip()))
        if case is None:
            return {"error": "no case with that id before the cutoff", "source_dates": []}
        docs = self._doc_brief(d for d, r in self.documents.items() if r["case_id"] == case["case_id"])
        return {"case": case, "documents": docs, "source_dates": _dated(docs)}

    def get_case_citations(self, case_id: str) -> dict:
        case_id = normalise_case_id(str(case_id).strip())
        if case_id not in self.cases:
            return {"error": "no case with that id before the cutoff", "source_dates": []}
        own = [d for d, r in self.documents.items() if r["case_id"] == case_id]
        cited = sorted({c for d in own for c in self._links("document_case_links", "document_id", d, "cited_case_id")})
        provisions = sorted({p for d in own for p in self._links("document_provision_links", "document_id", d,
                                                                  "provision_key")})
        resolutions = sorted({s for d in own for s in self._links("document_resolution_links", "document_id", d,
                                                                   "symbol")})
        citing = self._doc_brief(self._links("document_case_links", "cited_case_id", case_id, "document_id"))
        return {"case_id": case_id, "cites_cases": cited, "cites_provisions": provisions,
                "cites_resolutions": resolutions, "cited_by_documents": citing[:LIST_CAP],
                "source_dates": _dated(citing[:LIST_CAP] + self._doc_brief(own))}

    def find_document(self, query: str, case_id: str | None = None, limit: int = PASSAGE_CAP) -> dict:
        hits = [h for h in self.snapshot.lexical.search(query, 4 * PASSAGE_CAP) if h["kind"] == "document"]
        if case_id:
            wanted = normalise_case_id(str(case_id).strip())
            hits = [h for h in hits if self.documents.get(h["source"], {}).get("case_id") == wanted]
        hits = hits[:_cap(limit, PASSAGE_CAP)]
        return {"passages": [{"document_id": h["source"], "date": h["date"], "text": h["text"], "score": h["score"]}
                             for h in hits], "source_dates": _dated(hits)}

    def get_document(self, document_id: str) -> dict:
        doc = self.documents.get(str(document_id).strip())
        if doc is None:
            return {"error": "no document with that id before the cutoff", "source_dates": []}
        key = doc["document_id"]
        return {"document": doc,
                "cites_cases": self._links("document_case_links", "document_id", key, "cited_case_id"),
                "cites_provisions": self._links("document_provision_links", "document_id", key, "provision_key"),
                "cites_resolutions": self._links("document_resolution_links", "document_id", key, "symbol"),
                "judges": self._links("judge_links", "document_id", key, "judge_id"),
                "source_dates": [doc["date"]]}

    def get_passages(self, document_id: str, limit: int = PASSAGE_CAP) -> dict:
        doc = self.documents.get(str(document_id).strip())
        if doc is None:
            return {"error": "no document with that id before the cutoff", "source_dates": []}
        rows = self.snapshot.rows_where("passages", "document_id", doc["document_id"])
        rows.sort(key=lambda r: int(r["ordinal"]) if str(r["ordinal"]).isdigit() else 1 << 30)
        return {"document_id": doc["document_id"], "date": doc["date"],
                "passages": [r["text"] for r in rows[:_cap(limit, PASSAGE_CAP)]], "source_dates": [doc["date"]]}

    def find_provision(self, query: str, limit: int = LIST_CAP) -> dict:
        rows = _ranked(self.provisions.values(), query, ("provision_key", "instrument_id", "label"),
                       _cap(limit, LIST_CAP))
        return {"provisions": rows, "source_dates": []}

    def get_provision(self, provision_key: str) -> dict:
        row = self.provisions.get(str(provision_key).strip())
        if row is None:
            return {"error": "no provision with that id before the cutoff", "source_dates": []}
        citing = self._doc_brief(self._links("document_provision_links", "provision_key", row["provision_key"],
                                             "document_id"))[:LIST_CAP]
        return {"provision": row, "cited_by_documents": citing, "source_dates": _dated(citing)}

    def find_resolution(self, query: str, limit: int = LIST_CAP) -> dict:
        rows = _ranked(self.resolutions.values(), query, ("symbol", "title"), _cap(limit, LIST_CAP))
        return {"resolutions": rows, "source_dates": _dated(rows)}

    def get_resolution(self, symbol: str) -> dict:
        row = self.resolutions.get(str(symbol).strip())
        if row is None:
            return {"error": "no resolution with that id before the cutoff", "source_dates": []}
        key = row["symbol"]
        cites = self._links("resolution_links", "source_symbol", key, "target_symbol")
        cited_by = self._links("resolution_links", "target_symbol", key, "source_symbol")
        citing = self._doc_brief(self._links("document_resolution_links", "symbol", key, "document_id"))[:LIST_CAP]
        dates = [self.resolutions[s] for s in cites + cited_by if s in self.resolutions] + [row] + citing
        return {"resolution": row, "cites_resolutions": cites, "cited_by_resolutions": cited_by,
                "cited_by_documents": citing, "source_dates": _dated(dates)}

    def find_judge(self, query: str, limit: int = LIST_CAP) -> dict:
        return {"judges": _ranked(self.judges.values(), query, ("judge_id", "name", "nationality"),
                                  _cap(limit, LIST_CAP)), "source_dates": []}

    def get_judge(self, judge_id: str) -> dict:
        row = self.judges.get(str(judge_id).strip())
        if row is None:
            return {"error": "no judge with that id before the cutoff", "source_dates": []}
        sat = self._doc_brief(self._links("judge_links", "judge_id", row["judge_id"], "document_id"))[:LIST_CAP]
        return {"judge": row, "sat_on": sat, "source_dates": _dated(sat)}
