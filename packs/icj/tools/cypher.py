"""The Cypher + Lexical tools: the graph schema, read-only Cypher queries, and passage search.

Queries run on the snapshot's database opened read-only in a worker process of their own
(:mod:`~auditpacks.packs.icj.tools.query_process`: a memory limit the operating system enforces, a
kill at the time-out), with a row cap and a byte cap on what comes back. A statement
that could write or read outside the snapshot (``CREATE``, ``MERGE``, ``SET``, ``DELETE``, ``LOAD``,
``COPY``, ``ATTACH``, ``INSTALL``, ...) or that holds more than one statement is refused before it
runs; string literals and comments are removed before that check, so a name like ``'Set'`` passes.
"""

from __future__ import annotations

import atexit
import re
from pathlib import Path
from typing import Any

from auditpacks.core.errors import UserError
from auditpacks.packs.icj.graph.graphdb import NODES, RELS
from auditpacks.packs.icj.graph.snapshot import DATABASE
from auditpacks.packs.icj.tools.query_process import QueryStopped, QueryWorker

ROW_CAP = 50
_ORDER_BY = re.compile(r"\bORDER\s+BY\b", re.IGNORECASE)
TIMEOUT_MS = 5000
SEARCH_CAP = 20
REFUSED = ("CREATE", "MERGE", "SET", "DELETE", "DETACH", "REMOVE", "DROP", "ALTER", "COPY", "LOAD", "ATTACH",
           "INSTALL", "UNINSTALL", "EXPORT", "IMPORT", "USE", "CHECKPOINT", "BEGIN", "COMMIT", "ROLLBACK", "TRUNCATE",
           "UPDATE", "ANALYZE", "COMMENT", "FORCE")
ALLOWED_CALLS = ("show_tables", "table_info", "show_connection")
_STRINGS = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|//[^\n]*|/\*.*?\*/", re.S)
_WORD = re.compile(r"[A-Za-z_]+")


class QueryRefused(UserError):
    """A query the read-only tool does not run."""


def refusal(query: str) -> str | None:
    """Why ``query`` is refused, or None when it may run."""
    bare = _STRINGS.sub("''", query)
    if ";" in bare.strip().rstrip(";"):
        return "one statement at a time"
    words = [w.upper() for w in _WORD.findall(bare)]
    bad = next((w for w in words if w in REFUSED), None)
    if bad:
        return f"{bad} is not allowed: the graph is read-only"
    for i, word in enumerate(words):
        if word == "CALL" and (i + 1 >= len(words) or words[i + 1].lower() not in ALLOWED_CALLS):
            return f"CALL is limited to {', '.join(ALLOWED_CALLS)}"
    return None


def schema_text() -> dict[str, Any]:
    """The database's tables and properties (read from the snapshot), with notes on how to query it."""
    return {"nodes": {name: {"key": key} for name, (_, key) in NODES.items()},
            "relationships": {name: {"from": src, "to": dst} for name, (_, _, src, _, dst) in RELS.items()},
            "notes": ["Case is a reserved word: write it `Case` in backticks.",
                      "Dates are DATE values: compare with date('YYYY-MM-DD').",
                      "Provision keys look like statute:article_36; resolution symbols like A/RES/2625(XXV).",
                      f"Results are capped at {ROW_CAP} rows; queries stop after {TIMEOUT_MS // 1000} s.",
                      "Passages are not in the graph: use the passage search tool."]}


def schema(snapshot) -> dict[str, Any]:
    import ladybug

    out = schema_text()
    connection = ladybug.Connection(snapshot.database)
    try:
        for table in list(out["nodes"]) + list(out["relationships"]):
            rows = connection.execute(f"CALL table_info('{table}') RETURN *").get_all()
            props = [f"{r[1]} {r[2]}" for r in rows]
            (out["nodes"].get(table) or out["relationships"][table])["properties"] = props
    finally:
        connection.close()
    return out


_WORKERS: dict[Path, QueryWorker] = {}


def worker(database: Path) -> QueryWorker:
    """The query process of a snapshot's database (one per database, ended when this process ends)."""
    if database not in _WORKERS:
        if not _WORKERS:
            atexit.register(lambda: [w.close() for w in _WORKERS.values()])
        _WORKERS[database] = QueryWorker(database)
    return _WORKERS[database]


def run_query(snapshot, query: str, row_cap: int = ROW_CAP, timeout_ms: int = TIMEOUT_MS) -> dict[str, Any]:
    """Run a read-only query on the snapshot: columns, at most ``row_cap`` rows, and the dates returned. A
    query without ``ORDER BY`` gets its rows sorted (by their JSON), so a rerun returns the same rows in the
    same order (and replays from the cache)."""
    why = refusal(query)
    if why:
        raise QueryRefused(f"query refused: {why}")
    ordered = bool(_ORDER_BY.search(_STRINGS.sub("''", query)))
    try:
        answer = worker(snapshot.folder / DATABASE).run(query, row_cap=row_cap, timeout_ms=timeout_ms,
                                                        ordered=ordered)
    except QueryStopped as exc:
        raise QueryRefused(f"query failed: {exc}") from None
    if "error" in answer:
        raise QueryRefused(f"query failed: {answer['error']}")
    return answer


def search_passages(snapshot, query: str, limit: int = 10) -> dict[str, Any]:
    """BM25 search over the snapshot's document and resolution passages (lexical, not embeddings)."""
    hits = snapshot.lexical.search(query, max(1, min(limit, SEARCH_CAP)))
    dates = sorted({h["date"] for h in hits if h["date"]})
    return {"method": "bm25 (lexical)", "passages": hits, "source_dates": dates}
