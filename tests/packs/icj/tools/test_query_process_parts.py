"""The query worker's side in process: values as JSON, the dates found in them, rows capped in number and bytes,
an engine error in one line, and the serving loop."""

from __future__ import annotations

import datetime as dt
import decimal
import io
import json
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
