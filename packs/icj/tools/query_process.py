"""Cypher queries in a process of their own: a memory limit the operating system enforces, a real stop at the time-out.

ladybug bounds what its storage holds (the buffer pool) and checks its query time-out between
operators, but one expression such as ``range(1, 300000000)`` builds its list whole, past both: it
took gigabytes and ran well past the time-out. So each snapshot's queries run in one worker process
(``python -m`` this module, started on first use), whose address space is capped (``RLIMIT_AS``: a
query over it fails in the worker with ``std::bad_alloc`` or takes the worker down, never the run)
and whose database is opened read-only with a small buffer pool. The caller waits at most the
time-out and a short grace, then kills the worker; the next query starts a new one. What comes back
is capped: at most ``row_cap`` rows and :data:`RESULT_BYTES` bytes of them, read back under that cap.

The protocol is one JSON line each way: ``{"query", "row_cap", "timeout_ms", "ordered"}``, answered by
``{"columns", "rows", "truncated", "source_dates"}`` or ``{"error"}``.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import threading
import time
from datetime import date, datetime
from pathlib import Path
from typing import Any

#: The buffer pool of a worker's database and the query memory above what the worker needs to start (MiB).
BUFFER_POOL_MIB = 64
QUERY_MEMORY_MIB = 192
#: The address space a worker needs before any query (Python, ladybug, its threads), measured at ~600 MiB.
BASE_MIB = 640
#: Bytes of rows a query may hand back (the model reads far less: the tool box cuts a result at 8,000 chars).
RESULT_BYTES = 256 * 1024
GRACE_S = 2.0
#: rows an unordered query reads before sorting and capping them
FETCH_CAP = 100_000
_MIB = 2**20


class QueryStopped(Exception):
    """The worker did not answer: killed at the time-out, or ended (over its memory limit)."""


def memory_limit(database: Path) -> tuple[int, int]:
    """``(max_db_size, address space limit)`` in bytes for a worker over ``database``."""
    from auditpacks.packs.icj.graph.snapshot import database_region

    region = database_region(database)
    return region, (BASE_MIB + BUFFER_POOL_MIB + QUERY_MEMORY_MIB) * _MIB + region


class QueryWorker:
    """The worker process of one database; :meth:`run` one query at a time (thread-safe)."""

    command = [sys.executable, "-m", __name__]

    def __init__(self, database: Path) -> None:
        self.database = Path(database)
        self._process: subprocess.Popen | None = None
        self._lock = threading.Lock()

    def _start(self) -> subprocess.Popen:
        if self._process is None or self._process.poll() is not None:
            region, limit = memory_limit(self.database)
            env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
            self._process = subprocess.Popen([*self.command, str(self.database), str(region), str(limit)],
                                             stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                             stderr=subprocess.DEVNULL, env=env)
        return self._process

    def run(self, query: str, *, row_cap: int, timeout_ms: int, ordered: bool = True,
            grace_s: float = GRACE_S) -> dict[str, Any]:
        """The worker's answer to ``query``; :class:`QueryStopped` when it gave none in time or ended."""
        with self._lock:
            process = self._start()
            try:
                process.stdin.write(json.dumps({"query": query, "row_cap": row_cap,
                                                "timeout_ms": timeout_ms, "ordered": ordered}).encode() + b"\n")
                process.stdin.flush()
            except OSError:
                self.close()
                raise QueryStopped("the query process ended") from None
            line, ended = _read_line(process, timeout_ms / 1000 + grace_s, RESULT_BYTES + 64 * 1024)
            if line is None:
                self.close()
                _, limit = memory_limit(self.database)
                raise QueryStopped(f"the query process ended (over its {limit // _MIB} MiB memory limit?)" if ended
                                   else f"stopped after the time-out of {timeout_ms} ms")
            return json.loads(line)

    def close(self) -> None:
        process, self._process = self._process, None
        if process is not None and process.poll() is None:
            process.kill()
        if process is not None:
            process.wait()
            for pipe in (process.stdin, process.stdout):
                try:
                    pipe.close()
                except OSError:
                    pass


def _read_line(process: subprocess.Popen, seconds: float, cap: int) -> tuple[bytes | None, bool]:
    """One line from the worker within ``seconds`` and ``cap`` bytes, and whether the worker ended (its output
    closed) first; the line is None when none came in time, it was too long, or the worker ended."""
    fd, parts, size, until = process.stdout.fileno(), [], 0, time.monotonic() + seconds
    while True:
        left = until - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            return None, process.poll() is not None
        chunk = os.read(fd, 65536)
        if not chunk:
            return None, True
        end = chunk.find(b"\n")
        parts.append(chunk if end < 0 else chunk[:end])
        size += len(parts[-1])
        if size > cap:
            return None, False
        if end >= 0:
            return b"".join(parts), False


# -- the worker -------------------------------------------------------------------------------------------------


def plain(value: Any) -> Any:
    """A query value as JSON: dates as ISO text, nodes and relationships as their properties."""
    if isinstance(value, (date, datetime)):
        return value.isoformat()[:10]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items() if k not in ("_ID", "_SRC", "_DST")}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


def dates_in(value: Any, found: set[str]) -> None:
    """Add to ``found`` every date in a query value (DATE values, date-named text properties)."""
    if isinstance(value, (date, datetime)):
        found.add(value.isoformat()[:10])
    elif isinstance(value, dict):
        for key, item in value.items():
            if key in ("date", "term_start", "term_end", "first_date", "last_date") and isinstance(item, str):
                found.add(item[:10])
            dates_in(item, found)
    elif isinstance(value, (list, tuple)):
        for item in value:
            dates_in(item, found)


def row_key(row: Any) -> str:
    """A row's sort key: its JSON, keys sorted."""
    return json.dumps(plain(row), sort_keys=True, ensure_ascii=False, default=str)


def _rows(result: Any, row_cap: int, ordered: bool) -> tuple[list[Any], bool, set[str]]:
    """At most ``row_cap`` rows and :data:`RESULT_BYTES` bytes of them; unordered rows are all read (up to
    ``FETCH_CAP``) and sorted first, so the same query returns the same rows."""
    read, truncated = [], False
    while result.has_next():
        if len(read) == (row_cap if ordered else FETCH_CAP):
            truncated = True
            break
        read.append(result.get_next())
    if not ordered:
        read.sort(key=row_key)
        truncated = truncated or len(read) > row_cap
        read = read[:row_cap]
    rows, size, found = [], 0, set()
    for row in read:
        dates_in(row, found)
        row = plain(row)
        size += len(json.dumps(row, ensure_ascii=False, default=str)) + 2
        if size > RESULT_BYTES:
            return rows, True, found
        rows.append(row)
    return rows, truncated, found


def answer(connection: Any, request: dict[str, Any]) -> dict[str, Any]:
    """One query's answer, or ``{"error"}`` with the engine's first line."""
    timeout_ms = int(request["timeout_ms"])
    connection.set_query_timeout(timeout_ms)
    try:
        result = connection.execute(request["query"])
        columns = result.get_column_names()
        rows, truncated, found = _rows(result, int(request["row_cap"]), bool(request.get("ordered", True)))
    except (RuntimeError, MemoryError) as exc:
        message = (str(exc).splitlines() or [type(exc).__name__])[0][:300]
        if "Interrupted" in message:
            message = f"stopped after the time-out of {timeout_ms} ms"
        elif "bad_alloc" in message or isinstance(exc, MemoryError):
            message = "stopped: the query needs more memory than a tool query may use"
        return {"error": message}
    return {"columns": columns, "rows": rows, "truncated": truncated, "source_dates": sorted(found)}


def main(argv: list[str]) -> None:
    """Serve queries on stdin until it closes: ``DATABASE MAX_DB_SIZE ADDRESS_SPACE_LIMIT``."""
    import resource

    database, region, limit = argv[0], int(argv[1]), int(argv[2])
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    import ladybug

    db = ladybug.Database(database, read_only=True, buffer_pool_size=BUFFER_POOL_MIB * _MIB, max_db_size=region,
                          max_num_threads=2)
    connection = ladybug.Connection(db)
    for line in sys.stdin.buffer:
        try:
            reply = answer(connection, json.loads(line))
        except MemoryError:
            reply = {"error": "stopped: the query needs more memory than a tool query may use"}
        sys.stdout.write(json.dumps(reply, ensure_ascii=False, default=str) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main(sys.argv[1:])
