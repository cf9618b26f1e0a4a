"""Lines read under budgets: a long line is handed on as a marker, the whole stops at its cap, devices are refused."""

import os

import pytest

from auditpacks.core.bounded.lines import HEAD_BYTES, LinesTooLarge, Overlong, capped_lines, file_lines
from auditpacks.core.errors import UserError


def lines(chunks, **budgets):
    return list(capped_lines(chunks, source="results", **{"max_line": 10, "max_total": 1000, **budgets}))


def test_lines_split_across_chunks_come_back_whole_and_the_last_needs_no_newline():
    assert lines([b"ab", b"c\nde", b"f\n\ngh"]) == [b"abc", b"def", b"", b"gh"]


def test_a_line_over_the_cap_is_a_marker_with_its_number_true_size_and_start_and_reading_goes_on():
    out = lines([b"ok\n", b"0123456789", b"abcdef\nnext\n"])
    assert out[0] == b"ok" and out[2] == b"next"
    assert out[1] == Overlong(2, 16, b"0123456789abcdef")  # 10 + 6 bytes; the head keeps its first bytes


def test_the_head_of_an_overlong_line_is_at_most_head_bytes():
    [marker] = lines([b"x" * (HEAD_BYTES * 3)], max_line=HEAD_BYTES, max_total=10 * HEAD_BYTES)
    assert marker.size == 3 * HEAD_BYTES and marker.head == b"x" * HEAD_BYTES


def test_the_whole_stops_at_its_cap_naming_the_source_limit_and_hint():
    endless = (b"y" * 100 for _ in range(10**9))
    with pytest.raises(LinesTooLarge) as caught:
        list(capped_lines(endless, source="batch b1 results file", max_line=10, max_total=2**20, hint="VAR"))
    assert str(caught.value) == "batch b1 results file: over the 1 MiB cap (VAR); the rest was not read"


def test_a_device_or_pipe_is_refused_in_one_line_before_it_is_read(tmp_path):
    link = tmp_path / "m.journal.jsonl"
    link.symlink_to("/dev/zero")
    with pytest.raises(UserError, match=r"^m.journal.jsonl: journal is not a regular file"):
        next(file_lines(link, max_line=10, max_total=100, what="journal"))
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    with pytest.raises(UserError, match="not a regular file"):
        next(file_lines(fifo, max_line=10, max_total=100))


def test_a_regular_file_is_read_by_lines(tmp_path):
    path = tmp_path / "a.jsonl"
    path.write_bytes(b'{"a": 1}\n{"b": 2}\n')
    assert list(file_lines(path, max_line=100, max_total=100)) == [b'{"a": 1}', b'{"b": 2}']
