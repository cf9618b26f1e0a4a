"""Canaries for the leak audit: records planted on and after each cutoff, each marked ``CANARY``.

For a cutoff D the planted graph gains, dated D (the decision day itself, which is not "before")
and the day after: a document of an existing case and one of a new case, with passages that share
words with the real corpus; links from those documents to an existing case, provision and
resolution (later links between older ends); a resolution with a passage and a link to an older
resolution; an instrument with a provision; and a judge whose term begins then. None of it may
come back from a tool of the snapshot for D.
"""

from __future__ import annotations

import dataclasses
import hashlib
from datetime import date, timedelta

import pyarrow as pa

from auditpacks.packs.icj.graph.reader import Graph

MARK = "CANARY"
WORDS = "Court judgment self-defence armed attack Charter resolution treaty sovereignty"


def _first(graph: Graph, role: str, column: str, fallback: str) -> str:
    values = [v for v in graph.tables[role][column].to_pylist() if v]
    return values[0] if values else fallback


def case_ids(n: int) -> list[str]:
    """The ids of the cases planted for the ``n``-th cutoff (on the day and the day after)."""
    return [f"{MARK.lower()}-{n}-{k}" for k in range(2)]


def _rows(cutoff: str, n: int, graph: Graph) -> dict[str, list[dict]]:
    case = _first(graph, "cases", "case_id", "001")
    provision = _first(graph, "provisions", "provision_key", "statute:article_36")
    resolution = _first(graph, "resolutions", "symbol", "A/RES/1(I)")
    days = [cutoff, (date.fromisoformat(cutoff) + timedelta(days=1)).isoformat()]
    rows: dict[str, list[dict]] = {role: [] for role in graph.tables}
    for k, day in enumerate(days):
        tag = f"{MARK}{n}X{k}"
        own_case = case_ids(n)[k]
        rows["cases"].append({"case_id": own_case, "name": f"{tag} case", "case_type": "contentious"})
        for j, of_case in enumerate((case, own_case)):
            doc = f"{tag}_DOC{j}_{day}"
            rows["documents"].append({"document_id": doc, "case_id": of_case, "date": day, "doc_type": "judgment",
                                      "title": f"{tag} judgment", "court": "ICJ"})
            rows["passages"].append({"document_id": doc, "passage_id": f"{doc}#p0", "ordinal": "0",
                                     "text": f"{tag} {WORDS} {tag}"})
            rows["document_case_links"].append({"document_id": doc, "cited_case_id": case})
            rows["document_provision_links"].append({"document_id": doc, "provision_key": provision})
            rows["document_resolution_links"].append({"document_id": doc, "symbol": resolution})
            rows["judge_links"].append({"document_id": doc, "judge_id": f"{tag}_judge"})
        symbol = f"A/RES/{tag}"
        rows["resolutions"].append({"symbol": symbol, "date": day, "title": f"{tag} resolution"})
        rows["resolution_passages"].append({"symbol": symbol, "passage_id": f"{symbol}#p0",
                                            "text": f"{tag} {WORDS} resolution adopted"})
        rows["resolution_links"].append({"source_symbol": symbol, "target_symbol": resolution})
        rows["instruments"].append({"instrument_id": tag.lower(), "name": f"{tag} treaty", "date": day})
        rows["provisions"].append({"provision_key": f"{tag.lower()}:article_1", "instrument_id": tag.lower(),
                                   "label": f"{tag} Article 1"})
        rows["judges"].append({"judge_id": f"{tag}_judge", "name": f"{tag} judge", "term_start": day})
    return rows


def plant(graph: Graph, cutoffs: list[str]) -> Graph:
    """``graph`` with canaries for every cutoff added (the source hash changes with them)."""
    added: dict[str, list[dict]] = {role: [] for role in graph.tables}
    for n, cutoff in enumerate(cutoffs):
        for role, rows in _rows(cutoff, n, graph).items():
            added[role] += rows
    tables = {}
    for role, table in graph.tables.items():
        extra = pa.Table.from_pylist([{c: r.get(c) for c in table.column_names} for r in added[role]],
                                     schema=table.schema)
        tables[role] = pa.concat_tables([table, extra])
    planted = hashlib.sha256(f"{MARK}:{graph.source_hash}:{','.join(cutoffs)}".encode()).hexdigest()
    return dataclasses.replace(graph, tables=tables, source_hash=planted)
