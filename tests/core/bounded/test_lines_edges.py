"""Lines under budgets at their edges: lines of exactly the cap, newlines at chunk boundaries, the head of a
line cut across chunks, the whole cap to the byte, and small files read whole."""

import os

import pytest

from auditpacks.core.bounded import lines as bounded_lines
from auditpacks.core.bounded.lines import (HEAD_BYTES, LinesTooLarge, Overlong, capped_lines, file_lines,
                                           read_capped, size_text)
from auditpacks.core.errors import UserError


def lines(chunks, **budgets):
    return list(capped_lines(chunks, source="results", **{"max_line": 10, "max_total": 1000, **budgets}))


@pytest.mark.parametrize("chunks, expected", [
    ([b"ab", b"\ncd"], [b"ab", b"cd"]),                          # a newline opening a chunk
    ([b"ab\n", b"\n", b"cd"], [b"ab", b"", b"cd"]),              # a chunk that is only a newline
    ([b"\nab"], [b"", b"ab"]),                                   # an empty first line
    ([b"ab", b"cd"], [b"abcd"]),                                 # the last line, without newline, across chunks
    ([b"0123456789\n", b"abcdefghij"], [b"0123456789", b"abcdefghij"]),  # exactly max_line bytes: lines
    ([b"ab\n", b""], [b"ab"]),
])
def test_lines_at_chunk_boundaries(chunks, expected):
    assert lines(chunks) == expected


def test_an_overlong_line_is_marked_wherever_it_stands():
    out = lines([b"ok\n" + b"x" * 20 + b"\nnext\n" + b"y" * 11])
    assert out == [b"ok", Overlong(2, 20, b"x" * 20), b"next", Overlong(4, 11, b"y" * 11)]
    assert lines([b"01234567890"]) == [Overlong(1, 11, b"01234567890")]


def test_the_head_is_the_first_bytes_of_a_line_cut_across_chunks():
    chunks = [b"a" * 100, b"b" * HEAD_BYTES, b"c" * 100, b"\n"]
    [marker] = lines(chunks, max_line=HEAD_BYTES + 150, max_total=10 * HEAD_BYTES)
    assert marker == Overlong(1, HEAD_BYTES + 200, b"a" * 100 + b"b" * (HEAD_BYTES - 100))


@pytest.mark.parametrize("limit, text", [(100, "100 bytes"), (2**20 - 1, "1048575 bytes"), (2**20, "1 MiB"),
                                         (3 * 2**19, "1.5 MiB"), (64, "64 bytes")])
def test_size_text(limit, text):
    assert size_text(limit) == text


def test_the_whole_cap_is_exact_and_without_hint_the_message_has_none():
    assert lines([b"0123456789\n"] * 10, max_total=110) == [b"0123456789"] * 10
    with pytest.raises(LinesTooLarge) as caught:
        lines([b"0123456789\n"] * 10, max_total=109)
    assert str(caught.value) == "results: over the 109 bytes cap; the rest was not read"


def test_a_file_over_its_cap_names_the_file_what_it_is_and_the_hint(tmp_path):
    path = tmp_path / "b1.jsonl"
    path.write_bytes(b"0123456789\n" * 3)
    with pytest.raises(LinesTooLarge) as caught:
        list(file_lines(path, max_line=100, max_total=32, what="results", hint="raise it with X"))
    assert str(caught.value) == "b1.jsonl (results): over the 32 bytes cap (raise it with X); the rest was not read"
    with pytest.raises(LinesTooLarge) as caught:
        list(file_lines(path, max_line=100, max_total=32))
    assert str(caught.value) == "b1.jsonl (file): over the 32 bytes cap; the rest was not read"


def test_a_folder_is_refused_as_a_file_by_default(tmp_path):
    with pytest.raises(UserError) as caught:
        next(file_lines(tmp_path, max_line=10, max_total=100))
    assert str(caught.value) == f"{tmp_path.name}: file is not a regular file (a device, pipe or folder); not read"


def test_a_file_is_read_in_bounded_chunks(tmp_path, monkeypatch):
    """Never whole: each read asks for at most 1 MiB, so a huge file costs no more memory than its cap."""
    asked = []

    class Watched:
        def __init__(self, fh):
            self.fh = fh

        def read(self, size=-1):
            asked.append(size)
            return self.fh.read(size)

        def fileno(self):
            return self.fh.fileno()

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.fh.close()

    monkeypatch.setattr(bounded_lines, "open", lambda *a, **k: Watched(open(*a, **k)), raising=False)
    path = tmp_path / "a.jsonl"
    path.write_bytes(b"a\nb\n")
    assert list(file_lines(path, max_line=10, max_total=100)) == [b"a", b"b"]
    assert asked and all(isinstance(size, int) and 0 < size <= 2**20 for size in asked)


def test_read_capped_gives_a_small_file_s_lines(tmp_path):
    path = tmp_path / "progress.json"
    path.write_bytes(b'{"done": 3,\n "of": 9}\n')
    assert read_capped(path, 22, what="progress file") == b'{"done": 3,\n "of": 9}\n'
    path.write_bytes(b'{"done": 3}')  # no final newline: the line still counts
    assert read_capped(path, 11) == b'{"done": 3}\n'


def test_read_capped_refuses_a_file_over_its_cap_or_not_a_file(tmp_path):
    path = tmp_path / "progress.json"
    path.write_bytes(b"x" * 23)
    with pytest.raises(LinesTooLarge) as caught:
        read_capped(path, 22, what="progress file")
    assert str(caught.value) == "progress.json (progress file): over the 22 bytes cap; the rest was not read"
    with pytest.raises(LinesTooLarge, match=r"^progress.json \(file\): over the 22 bytes cap"):
        read_capped(path, 22)
    link = tmp_path / "zero.json"
    link.symlink_to(os.devnull)
    with pytest.raises(UserError, match="^zero.json: progress file is not a regular file"):
        read_capped(link, 22, what="progress file")
