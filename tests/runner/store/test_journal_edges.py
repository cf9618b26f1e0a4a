"""The run journal at its edges: keys per round, precomputed keys, severities, damaged headers, the lock."""

from __future__ import annotations

import errno
import os

import pytest

from auditpacks.runner.store.journal import (
    Journal,
    JournalError,
    last_line_open,
    round_key,
    scenario_key,
)


class _Keyed(dict):
    """A scenario that carries its content key (as a streamed pack's stub does)."""

    content_key = "precomputed"


def test_round_keys_and_precomputed_content_keys():
    assert round_key("abc", 1) == "abc"
    assert round_key("abc", 2) == "abc#round2"
    assert round_key("abc", 10) == "abc#round10"
    assert scenario_key(_Keyed(name="a")) == "precomputed"


def test_severities_are_indexed_as_text_or_none(tmp_path):
    path = tmp_path / "m.journal.jsonl"
    with Journal(path, "fp").open() as journal:
        journal.append("k1", "a", {"severity": "ERROR"})
        journal.append("k2", "b", {"note": "no severity"})
        journal.append("k3", "c", {"severity": 3})
        assert [journal.done.severity(k) for k in ("k1", "k2", "k3")] == ["ERROR", None, "3"]
    with Journal(path, "fp").open() as reopened:
        assert [reopened.done.severity(k) for k in ("k1", "k2", "k3")] == ["ERROR", None, "3"]
        assert repr(reopened.done) == "<3 journaled results in m.journal.jsonl>"


def test_results_are_read_back_by_byte_offset(tmp_path):
    path = tmp_path / "m.journal.jsonl"
    with Journal(path, "fp").open() as journal:
        journal.append("k1", "民法", {"note": "第一条 é"})  # multi-byte text: bytes and characters differ
        journal.append("k2", "b", {"note": "x"})
        assert journal.done["k1"] == {"note": "第一条 é"} and journal.done["k2"] == {"note": "x"}


def test_a_damaged_header_with_finished_work_behind_it_stops_the_run(tmp_path):
    path = tmp_path / "m.journal.jsonl"
    path.write_text('{"fingerprint": 1}\n{"key": "k1", "name": "a", "result": {}}\n\n'
                    '{"key": "k2", "name": "b", "result": {}}\n')
    with pytest.raises(JournalError) as err:
        Journal(path, "fp").open()
    assert str(err.value) == ("m.journal.jsonl: line 1 (the header) is damaged; it holds 2 more line(s) of finished "
                              "work: restore the header line to keep them, or use --fresh (or another --out) to drop them")
    assert Journal(path, "fp").open(resume=False).done == {}  # the failed open let go of the folder's lock


def test_a_second_journal_in_a_held_folder_is_refused_in_one_line(tmp_path):
    with Journal(tmp_path / "a.journal.jsonl", "fp").open():
        with pytest.raises(JournalError) as err:
            Journal(tmp_path / "b.journal.jsonl", "fp").open()
    assert str(err.value) == (f"{tmp_path}: another run is writing this folder (process {os.getpid()}); "
                              "wait for it to end or use another --out")


@pytest.mark.parametrize("content, is_open", [(b"", False), (b"a", True), (b"\n", False), (b"ab\n", False),
                                              (b"a\nb", True), (b"\xe6\xb0\x91", True)])
def test_last_line_open_reads_the_last_byte(tmp_path, content, is_open):
    path = tmp_path / "f"
    path.write_bytes(content)
    assert last_line_open(path) is is_open


class _FullDisk:
    """An open journal file on a full disk: every write and the close refused without naming a file."""

    def tell(self) -> int:
        return 0

    def write(self, data: bytes = b"") -> int:
        raise OSError(errno.ENOSPC, "No space left on device")

    close = write  # closing flushes what a refused write left in the buffer


def test_a_refused_write_names_the_journal_at_append_and_at_close(tmp_path):
    path = tmp_path / "m.journal.jsonl"
    journal = Journal(path, "fp").open()
    journal._fh.close()
    journal._fh = _FullDisk()
    with pytest.raises(OSError) as appended:
        journal.append("k1", "a", {"severity": "pass"})
    with pytest.raises(OSError) as closed:
        journal.close()
    assert [(err.value.errno, err.value.filename) for err in (appended, closed)] == [(errno.ENOSPC, str(path))] * 2
    Journal(path, "fp").open().close()  # the folder's lock was let go
