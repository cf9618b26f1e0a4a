"""The query worker from the caller's side: its memory limit, how it is started and asked, how a reply line is read
back within its time and cap, and what a worker that ends, hangs or cannot be written to comes to."""

from __future__ import annotations

import os
import sys

import pytest

from auditpacks.packs.icj.tools import query_process as qp

MIB = 2**20


def started(tmp_path, monkeypatch, script: str) -> qp.QueryWorker:
    """A worker over a one-byte database (a 64 MiB region) that runs ``script`` instead of the query server."""
    database = tmp_path / "graph.lbug"
    database.write_bytes(b"x")
    worker = qp.QueryWorker(database)
    monkeypatch.setattr(worker, "command", [sys.executable, "-c", script])
    return worker


@pytest.mark.parametrize("size_mib, region_mib", [(0, 64), (16, 64), (20, 80), (20.1, 81)])
def test_a_workers_memory_is_its_base_pool_and_query_memory_over_the_database_region(tmp_path, size_mib, region_mib):
    database = tmp_path / "graph.lbug"
    with database.open("wb") as handle:
        handle.truncate(int(size_mib * MIB))
    assert qp.memory_limit(database) == (region_mib * MIB, (640 + 64 + 192 + region_mib) * MIB)


ECHO = ("import json, os, sys\n"
        "print('worker noise', file=sys.stderr, flush=True)\n"
        "for line in sys.stdin:\n"
        "    print(json.dumps({'argv': sys.argv[1:], 'request': json.loads(line), 'pid': os.getpid(),\n"
        "                      'path': os.environ['PYTHONPATH']}), flush=True)\n")


def test_a_worker_is_started_once_with_its_limits_and_asked_one_json_line(tmp_path, monkeypatch, capfd):
    worker = started(tmp_path, monkeypatch, ECHO)
    try:
        first = worker.run("RETURN 1", row_cap=7, timeout_ms=20000, ordered=False)
        second = worker.run("RETURN 2", row_cap=3, timeout_ms=20000)
    finally:
        worker.close()
    assert first["argv"] == [str(worker.database), str(64 * MIB), str(960 * MIB)]
    assert first["request"] == {"query": "RETURN 1", "row_cap": 7, "timeout_ms": 20000, "ordered": False}
    assert second["request"] == {"query": "RETURN 2", "row_cap": 3, "timeout_ms": 20000, "ordered": True}
    assert first["pid"] == second["pid"] and first["path"] == os.pathsep.join(p for p in sys.path if p)
    assert worker._process is None
    worker.close()   # closing a closed worker does nothing
    assert "worker noise" not in capfd.readouterr().err   # what the worker writes on stderr goes nowhere


def test_a_worker_that_ends_without_answering_names_its_memory_limit(tmp_path, monkeypatch):
    worker = started(tmp_path, monkeypatch, "import sys; sys.stdin.readline()")
    with pytest.raises(qp.QueryStopped) as caught:
        worker.run("RETURN 1", row_cap=5, timeout_ms=20000)
    assert str(caught.value) == "the query process ended (over its 960 MiB memory limit?)"
    assert worker._process is None


class Pipe:
    """A process whose stdout is a pipe this test writes."""

    def __init__(self, *chunks: bytes, ended: bool = False, alive: bool = True) -> None:
        read, write = os.pipe()
        for chunk in chunks:
            os.write(write, chunk)
        if ended:
            os.close(write)
        else:
            self.write = write
        self.stdout, self.alive = os.fdopen(read, "rb"), alive

    def poll(self):
        return None if self.alive else 0


@pytest.mark.parametrize("chunks, ended, cap, expected", [
    ([b'{"a": 1}\n{"b"'], False, 100, (b'{"a": 1}', False)),
    ([b"ab\n"], True, 2, (b"ab", False)),
    ([b"abc\n"], True, 2, (None, False)),     # longer than the cap
    ([b"abc"], True, 100, (None, True)),      # the worker ended before its line was whole
    ([], True, 100, (None, True)),
])
def test_a_line_is_read_whole_within_its_cap(chunks, ended, cap, expected):
    assert qp._read_line(Pipe(*chunks, ended=ended), 2.0, cap) == expected


@pytest.mark.parametrize("alive, ended", [(True, False), (False, True)])
def test_no_line_in_time_says_whether_the_worker_is_still_there(alive, ended):
    assert qp._read_line(Pipe(b"partial", alive=alive), 0.05, 100) == (None, ended)


def test_a_worker_that_cannot_be_written_to_is_closed_and_said_to_have_ended(tmp_path, monkeypatch):
    class Broken:
        def write(self, data):
            raise BrokenPipeError

        def close(self):
            pass

    worker = started(tmp_path, monkeypatch, ECHO)
    worker.run("RETURN 1", row_cap=1, timeout_ms=20000)
    process, worker._process.stdin = worker._process, Broken()
    with pytest.raises(qp.QueryStopped) as caught:
        worker.run("RETURN 2", row_cap=1, timeout_ms=20000)
    assert str(caught.value) == "the query process ended"
    assert worker._process is None and process.poll() is not None   # killed, not left running


@pytest.mark.parametrize("extra, answered", [(0, True), (1, False)])
def test_a_reply_line_may_hold_the_rows_budget_and_64_kib_more(tmp_path, monkeypatch, extra, answered):
    cap = qp.RESULT_BYTES + 64 * 1024
    reply = ("import sys\nfor line in sys.stdin:\n"
             f"    print('\"' + 'x' * {cap - 2 + extra} + '\"', flush=True)\n")
    worker = started(tmp_path, monkeypatch, reply)
    try:
        if answered:
            assert worker.run("RETURN 1", row_cap=1, timeout_ms=20000) == "x" * (cap - 2)
        else:
            with pytest.raises(qp.QueryStopped):
                worker.run("RETURN 1", row_cap=1, timeout_ms=20000)
    finally:
        worker.close()


class Written:
    """A finished process whose stdout is a file holding ``data`` (read in blocks, as a pipe's are)."""

    def __init__(self, path, data: bytes) -> None:
        path.write_bytes(data)
        self.stdout = path.open("rb")

    def poll(self):
        return 0


BLOCK = 65536


@pytest.mark.parametrize("data, cap, line", [
    (b"a\nb\n", 100, b"a"),                                       # the first line only
    (b"x" * 70000 + b"\n", 100000, b"x" * 70000),                 # a line over two reads, whole
    (b"x" * BLOCK + b"\nrest", 100000, b"x" * BLOCK),             # its end the first byte of the second read
    (b"x" * BLOCK + b"x" * 100 + b"\n", BLOCK + 64, None),        # the cap counts every read
])
def test_a_line_over_several_reads_is_joined_and_capped_whole(tmp_path, data, cap, line):
    assert qp._read_line(Written(tmp_path / "out", data), 2.0, cap)[0] == line


def test_a_line_ready_at_once_is_read_however_little_time_is_left():
    assert qp._read_line(Pipe(b"ab\n"), 0.5, 100) == (b"ab", False)
