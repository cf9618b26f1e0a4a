"""The Cypher + Lexical tools: the graph schema, read-only Cypher queries, and passage search.

Queries run on the snapshot's database opened read-only, with a time-out and a row cap. A statement
that could write or read outside the snapshot (``CREATE``, ``MERGE``, ``SET``, ``DELETE``, ``LOAD``,
``COPY``, ``ATTACH``, ``INSTALL``, ...) or that holds more than one statement is refused before it
runs; string literals and comments are removed before that check, so a name like ``'Set'`` passes.
"""

from __future__ import annotations

import json
import re
from datetime import date, datetime
from typing import Any

from auditpacks.core.errors import UserError
from auditpacks.packs.icj.graph.graphdb import NODES, RELS

ROW_CAP = 50
#: rows an unordered query reads before sorting and capping them
FETCH_CAP = 100_000
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


def plain(value: Any) -> Any:
    """A query value as JSON: dates as ISO text, nodes and relationships as their properties."""
    if isinstance(value, (date, datetime)):
        return value.isoformat()[:10]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items() if k not in ("_ID", "_SRC", "_DST")}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


def _dates(value: Any, found: set[str]) -> None:
    if isinstance(value, (date, datetime)):
        found.add(value.isoformat()[:10])
    elif isinstance(value, dict):
        for key, item in value.items():
            if key in ("date", "term_start", "term_end", "first_date", "last_date") and isinstance(item, str):
                found.add(item[:10])
            _dates(item, found)
    elif isinstance(value, (list, tuple)):
        for item in value:
            _dates(item, found)


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


def _row_key(row: Any) -> str:
    return json.dumps(plain(row), sort_keys=True, ensure_ascii=False, default=str)


def run_query(snapshot, query: str, row_cap: int = ROW_CAP, timeout_ms: int = TIMEOUT_MS) -> dict[str, Any]:
    """Run a read-only query on the snapshot: columns, at most ``row_cap`` rows, and the dates returned. A
    query without ``ORDER BY`` gets its rows sorted (by their JSON), so a rerun returns the same rows in the
    same order (and replays from the cache)."""
    import ladybug

    why = refusal(query)
    if why:
        raise QueryRefused(f"query refused: {why}")
    ordered = bool(_ORDER_BY.search(_STRINGS.sub("''", query)))
    connection = ladybug.Connection(snapshot.database)
    connection.set_query_timeout(timeout_ms)
    try:
        result = connection.execute(query)
        columns = result.get_column_names()
        rows, truncated = [], False
        while result.has_next():  # unordered: every row (up to FETCH_CAP) is read, sorted, then capped
            if len(rows) == (row_cap if ordered else FETCH_CAP):
                truncated = True
                break
            rows.append(result.get_next())
        if not ordered:
            rows = sorted(rows, key=_row_key)
            truncated = truncated or len(rows) > row_cap
            rows = rows[:row_cap]
    except RuntimeError as exc:
        message = str(exc).splitlines()[0][:300]
        if "Interrupted" in message:
            message = f"stopped after the time-out of {timeout_ms} ms"
        raise QueryRefused(f"query failed: {message}") from None
    finally:
        connection.close()
    found: set[str] = set()
    _dates(rows, found)
    return {"columns": columns, "rows": plain(rows), "truncated": truncated, "source_dates": sorted(found)}


def search_passages(snapshot, query: str, limit: int = 10) -> dict[str, Any]:
    """BM25 search over the snapshot's document and resolution passages (lexical, not embeddings)."""
    hits = snapshot.lexical.search(query, max(1, min(limit, SEARCH_CAP)))
    dates = sorted({h["date"] for h in hits if h["date"]})
    return {"method": "bm25 (lexical)", "passages": hits, "source_dates": dates}
