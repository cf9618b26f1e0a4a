"""Journal lines at their caps: a line that never ends is read past in bounded chunks, reported, and the rest kept."""

from __future__ import annotations

import io
import json

import pytest

from auditpacks.runner.store import journal as journal_module
from auditpacks.runner.store.journal import Journal, JournalError


def test_a_line_over_the_cap_is_reported_and_skipped_and_the_rest_is_kept(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(journal_module, "LINE_BYTES", 1000)
    path = tmp_path / "m.journal.jsonl"
    good = [json.dumps({"key": k, "name": k, "result": {"severity": "pass"}}) for k in ("k1", "k2")]
    path.write_text("\n".join([json.dumps({"fingerprint": "fp"}), good[0], "x" * 5_000_000, good[1]]) + "\n",
                    encoding="utf-8")
    with Journal(path, "fp").open() as journal:
        assert sorted(journal.done) == ["k1", "k2"] and journal.done["k2"] == {"severity": "pass"}
    assert "m.journal.jsonl line 3: 5000001 bytes, over the 1000 bytes cap on a journal line" in capsys.readouterr().err


class _Reads(io.BytesIO):
    """A file in memory that records the size asked of every read."""

    def __init__(self, data: bytes) -> None:
        super().__init__(data)
        self.sizes: list = []

    def read(self, size=-1):
        self.sizes.append(size)
        return super().read(size)

    def readline(self, size=-1):
        self.sizes.append(size)
        return super().readline(size)


@pytest.mark.parametrize("data, found", [
    (b"x" * 10, (b"x" * 10, 10)),              # a last line of exactly the cap, with no newline
    (b"x" * 10 + b"\n", (b"x" * 10 + b"\n", 11)),  # the cap and its newline
    (b"x" * 11 + b"\nnext\n", (None, 12)),      # one byte over the cap: read past, newline included
    (b"x" * 30, (None, 30)),
])
def test_a_line_is_whole_up_to_the_cap_and_read_past_in_bounded_reads_beyond(monkeypatch, data, found):
    monkeypatch.setattr(journal_module, "LINE_BYTES", 10)
    fh = _Reads(data)
    assert journal_module._next_line(fh) == found
    assert all(isinstance(size, int) and 0 < size <= 2**21 for size in fh.sizes)


def test_the_space_left_after_a_line_is_read_in_bounded_chunks_and_the_position_kept():
    fh = _Reads(b"{bad\n" + b" \n" * 3_000_000)
    fh.seek(5)
    assert journal_module._only_space_left(fh) is True and fh.tell() == 5
    assert all(isinstance(size, int) and 0 < size <= 2**21 for size in fh.sizes)


def _journal(path, *lines: str) -> None:
    path.write_text("\n".join([json.dumps({"fingerprint": "fp"}), *lines]) + "\n", encoding="utf-8")


def _entry(key: str) -> str:
    return json.dumps({"key": key, "name": key, "result": {"severity": "pass", "of": key}})


def test_a_damaged_header_counts_a_line_over_the_cap_as_finished_work(tmp_path, monkeypatch):
    monkeypatch.setattr(journal_module, "LINE_BYTES", 1000)
    path = tmp_path / "m.journal.jsonl"
    path.write_text("{damaged\n" + "x" * 5000 + "\n", encoding="utf-8")
    with pytest.raises(JournalError, match=r"line 1 \(the header\) is damaged; it holds 1 more line\(s\)"):
        Journal(path, "fp").open()


def test_a_header_over_its_cap_is_damaged_even_when_it_is_json(tmp_path, monkeypatch):
    monkeypatch.setattr(journal_module, "HEADER_BYTES", 100)
    path = tmp_path / "m.journal.jsonl"
    path.write_text(json.dumps({"fingerprint": "fp", "pad": "x" * 200}) + "\n" + _entry("k1") + "\n", encoding="utf-8")
    with pytest.raises(JournalError, match=r"line 1 \(the header\) is damaged"):
        Journal(path, "fp").open()


def test_entries_after_a_damaged_line_are_read_back_from_their_own_offsets(tmp_path, capsys):
    path = tmp_path / "m.journal.jsonl"
    _journal(path, _entry("k1"), "{damaged", _entry("k2"), _entry("k3"))
    with Journal(path, "fp").open() as journal:
        assert {key: journal.done[key]["of"] for key in journal.done} == {"k1": "k1", "k2": "k2", "k3": "k3"}
    assert "m.journal.jsonl line 3: not JSON (JSONDecodeError); that scenario runs again" in capsys.readouterr().err
