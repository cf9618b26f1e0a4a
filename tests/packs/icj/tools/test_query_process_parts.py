"""The query worker's parts in process: values as JSON, the dates found in them, rows capped in number and bytes,
an engine error in one line, the serving loop, the worker's memory limit and its line reader."""

from __future__ import annotations

import datetime as dt
import decimal
import io
import json
import os
import sys
import types

import pytest

from auditpacks.packs.icj.tools import query_process as qp

MIB = 2**20


def test_plain_gives_dates_as_iso_days_and_drops_the_engines_internal_ids():
    node = {"_ID": {"table": 0}, "_SRC": 1, "_DST": 2, "name": "x", "date": dt.date(1986, 6, 27),
            "at": dt.datetime(1986, 6, 27, 10, 30), "list": (dt.date(1970, 1, 2), [{"_ID": 3, "k": None}])}
    assert qp.plain(node) == {"name": "x", "date": "1986-06-27", "at": "1986-06-27",
                              "list": ["1970-01-02", [{"k": None}]]}
    assert qp.plain(7) == 7 and qp.plain("2001-01-01T00:00") == "2001-01-01T00:00"


def test_dates_in_finds_date_values_and_date_named_texts_at_any_depth():
    found: set[str] = set()
    qp.dates_in([{"date": "1986-06-27T00:00:00", "term_start": "1976-02-06", "term_end": "1985-02-05x",
                  "first_date": "1950-01-01", "last_date": "1960-01-01", "title": "1999-09-09", "n": 1},
                 ({"nested": {"date": dt.date(1949, 4, 9)}}, dt.datetime(2001, 2, 3, 4, 5)), "2002-02-02",
                 {"date": None}], found)
    assert found == {"1986-06-27", "1976-02-06", "1985-02-05", "1950-01-01", "1960-01-01", "1949-04-09", "2001-02-03"}


def test_a_rows_key_is_its_json_with_sorted_keys_and_text_kept():
    assert qp.row_key({"b": "é", "a": dt.date(2000, 1, 2), "c": object.__name__}) == \
        '{"a": "2000-01-02", "b": "é", "c": "object"}'
    assert qp.row_key([{1, 2}]) in ('["{1, 2}"]', '["{2, 1}"]')   # what JSON cannot hold, as its text


class Result:
    """A query result over ``rows`` that counts what was read."""

    def __init__(self, rows, columns=("x",)) -> None:
        self.rows, self.columns, self.read = list(rows), list(columns), 0

    def has_next(self) -> bool:
        return self.read < len(self.rows)

    def get_next(self):
        self.read += 1
        return self.rows[self.read - 1]

    def get_column_names(self):
        return self.columns


@pytest.mark.parametrize("count, cap, rows, truncated", [(3, 5, [[0], [1], [2]], False), (3, 3, [[0], [1], [2]], False),
                                                        (4, 3, [[0], [1], [2]], True), (2, 0, [], True)])
def test_ordered_rows_are_read_up_to_the_cap_and_kept_in_order(count, cap, rows, truncated):
    result = Result([[i] for i in range(count)])
    assert qp._rows(result, cap, True) == (rows, truncated, set())
    assert result.read == min(count, cap)   # no row past the cap is read


@pytest.mark.parametrize("cap, rows, truncated", [(5, [["a"], ["b"], ["c"]], False), (3, [["a"], ["b"], ["c"]], False),
                                                  (2, [["a"], ["b"]], True)])
def test_unordered_rows_are_all_read_then_sorted_and_capped(cap, rows, truncated):
    result = Result([["c"], ["a"], ["b"]])
    assert qp._rows(result, cap, False) == (rows, truncated, set())
    assert result.read == 3


def test_unordered_rows_stop_at_the_fetch_cap(monkeypatch):
    monkeypatch.setattr(qp, "FETCH_CAP", 3)
    result = Result([[i] for i in (5, 4, 3, 2, 1)])
    assert qp._rows(result, 10, False) == ([[3], [4], [5]], True, set())
    assert result.read == 3


@pytest.mark.parametrize("budget, kept", [(19, 1), (20, 2), (29, 2), (30, 3)])
def test_rows_stop_at_the_byte_budget_each_row_counted_as_its_json_and_two(monkeypatch, budget, kept):
    monkeypatch.setattr(qp, "RESULT_BYTES", budget)
    rows, truncated, _ = qp._rows(Result([["aaaa"]] * 3), 10, True)   # '["aaaa"]': 8 characters
    assert rows == [["aaaa"]] * kept and truncated is (kept < 3)


def test_rows_report_their_dates_and_come_back_plain():
    rows, _, found = qp._rows(Result([[{"date": dt.date(1986, 6, 27), "_ID": 1}], [{"date": "1975-10-16"}]]), 5, True)
    assert rows == [[{"date": "1986-06-27"}], [{"date": "1975-10-16"}]] and found == {"1986-06-27", "1975-10-16"}


class Connection:
    def __init__(self, outcome) -> None:
        self.outcome, self.timeouts, self.queries = outcome, [], []

    def set_query_timeout(self, ms: int) -> None:
        self.timeouts.append(ms)

    def execute(self, query: str):
        self.queries.append(query)
        if isinstance(self.outcome, BaseException):
            raise self.outcome
        return self.outcome


def test_an_answer_gives_columns_rows_and_their_dates_in_the_order_asked():
    connection = Connection(Result([["b", "2001-01-01"], ["a", dt.date(1999, 1, 1)]], columns=("k", "d")))
    reply = qp.answer(connection, {"query": "Q", "row_cap": "5", "timeout_ms": "1500"})
    assert reply == {"columns": ["k", "d"], "rows": [["b", "2001-01-01"], ["a", "1999-01-01"]], "truncated": False,
                     "source_dates": ["1999-01-01"]}
    assert (connection.timeouts, connection.queries) == ([1500], ["Q"])
    unordered = Connection(Result([["b"], ["a"]]))
    assert qp.answer(unordered, {"query": "Q", "row_cap": 1, "timeout_ms": 9, "ordered": False})["rows"] == [["a"]]


@pytest.mark.parametrize("error, message", [
    (RuntimeError("Interrupted.\nmore"), "stopped after the time-out of 250 ms"),
    (RuntimeError("Buffer manager: std::bad_alloc"), "stopped: the query needs more memory than a tool query may use"),
    (MemoryError(), "stopped: the query needs more memory than a tool query may use"),
    (RuntimeError("Parser exception: bad input\nline 2"), "Parser exception: bad input"),
    (RuntimeError(""), "RuntimeError"),
    (RuntimeError("x" * 400), "x" * 300),
])
def test_an_engine_error_is_one_line(error, message):
    assert qp.answer(Connection(error), {"query": "Q", "row_cap": 5, "timeout_ms": 250}) == {"error": message}


def test_other_errors_are_not_taken_for_the_engines():
    with pytest.raises(ValueError):
        qp.answer(Connection(ValueError("x")), {"query": "Q", "row_cap": 5, "timeout_ms": 1})


def test_the_worker_serves_one_json_line_per_query_under_its_memory_limit(monkeypatch, capsys):
    opened, connected, limits = [], [], []

    class Database:
        def __init__(self, *args, **kwargs) -> None:
            opened.append((args, kwargs))

    def timeout(ms):
        if ms == 666:   # memory runs out before the query starts
            raise MemoryError

    def execute(query):
        if query == "big":
            raise MemoryError
        return Result([["é", decimal.Decimal("1.5")]])

    def connect(db):
        connected.append(db)
        return types.SimpleNamespace(set_query_timeout=timeout, execute=execute)

    monkeypatch.setitem(sys.modules, "ladybug", types.SimpleNamespace(Database=Database, Connection=connect))
    monkeypatch.setattr("resource.setrlimit", lambda kind, pair: limits.append((kind, pair)))
    lines = [{"query": "ok", "row_cap": 5, "timeout_ms": 10}, {"query": "big", "row_cap": 5, "timeout_ms": 10},
             {"query": "ok", "row_cap": 5, "timeout_ms": 666}]
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"".join(json.dumps(x).encode() + b"\n"
                                                                            for x in lines))))
    qp.main(["db", "123", "456"])
    import resource

    assert limits == [(resource.RLIMIT_AS, (456, 456))]
    assert opened == [(("db",), {"read_only": True, "buffer_pool_size": 64 * MIB, "max_db_size": 123,
                                 "max_num_threads": 2})]
    assert len(connected) == 1 and isinstance(connected[0], Database)
    memory = '{"error": "stopped: the query needs more memory than a tool query may use"}\n'
    assert capsys.readouterr().out == ('{"columns": ["x"], "rows": [["é", "1.5"]], "truncated": false, '
                                       '"source_dates": []}\n' + memory + memory)


def test_unordered_rows_of_nodes_are_sorted_by_their_json():
    result = Result([[{"name": "b", "n": 1}], [{"name": "a", "n": 2}], [{"n": 0}]])
    # by their JSON with keys sorted: '[{"n": 0}]' < '[{"n": 1, "name": "b"}]' < '[{"n": 2, "name": "a"}]'
    assert qp._rows(result, 5, False)[0] == [[{"n": 0}], [{"name": "b", "n": 1}], [{"name": "a", "n": 2}]]


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
    database = tmp_path / "graph.lbug"
    database.write_bytes(b"x")
    worker = qp.QueryWorker(database)
    monkeypatch.setattr(worker, "command", [sys.executable, "-c", ECHO])
    try:
        first = worker.run("RETURN 1", row_cap=7, timeout_ms=4000, ordered=False)
        second = worker.run("RETURN 2", row_cap=3, timeout_ms=4000)
    finally:
        worker.close()
    assert first["argv"] == [str(database), str(64 * MIB), str(960 * MIB)]
    assert first["request"] == {"query": "RETURN 1", "row_cap": 7, "timeout_ms": 4000, "ordered": False}
    assert second["request"] == {"query": "RETURN 2", "row_cap": 3, "timeout_ms": 4000, "ordered": True}
    assert first["pid"] == second["pid"] and first["path"] == os.pathsep.join(p for p in sys.path if p)
    assert worker._process is None
    worker.close()   # closing a closed worker does nothing
    assert "worker noise" not in capfd.readouterr().err   # what the worker writes on stderr goes nowhere


def test_a_worker_that_ends_without_answering_names_its_memory_limit(tmp_path, monkeypatch):
    database = tmp_path / "graph.lbug"
    database.write_bytes(b"x")
    worker = qp.QueryWorker(database)
    monkeypatch.setattr(worker, "command", [sys.executable, "-c", "import sys; sys.stdin.readline()"])
    with pytest.raises(qp.QueryStopped) as caught:
        worker.run("RETURN 1", row_cap=5, timeout_ms=4000)
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

    database = tmp_path / "graph.lbug"
    database.write_bytes(b"x")
    worker = qp.QueryWorker(database)
    monkeypatch.setattr(worker, "command", [sys.executable, "-c", ECHO])
    worker.run("RETURN 1", row_cap=1, timeout_ms=4000)
    process, worker._process.stdin = worker._process, Broken()
    with pytest.raises(qp.QueryStopped) as caught:
        worker.run("RETURN 2", row_cap=1, timeout_ms=4000)
    assert str(caught.value) == "the query process ended"
    assert worker._process is None and process.poll() is not None   # killed, not left running


@pytest.mark.parametrize("extra, answered", [(0, True), (1, False)])
def test_a_reply_line_may_hold_the_rows_budget_and_64_kib_more(tmp_path, monkeypatch, extra, answered):
    cap = qp.RESULT_BYTES + 64 * 1024
    reply = ("import sys\nfor line in sys.stdin:\n"
             f"    print('\"' + 'x' * {cap - 2 + extra} + '\"', flush=True)\n")
    database = tmp_path / "graph.lbug"
    database.write_bytes(b"x")
    worker = qp.QueryWorker(database)
    monkeypatch.setattr(worker, "command", [sys.executable, "-c", reply])
    try:
        if answered:
            assert worker.run("RETURN 1", row_cap=1, timeout_ms=4000) == "x" * (cap - 2)
        else:
            with pytest.raises(qp.QueryStopped):
                worker.run("RETURN 1", row_cap=1, timeout_ms=4000)
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
