"""``auditpacks status`` over hostile run files: a journal linked to /dev/zero is refused in one line at once, a line
that never ends is skipped, a progress file that never ends is ignored."""

from __future__ import annotations

import json
import time

import pytest

from auditpacks.core.errors import UserError
from auditpacks.runner.display import watch
from auditpacks.runner.display.watch import folder_progress, journal_counts


def test_a_journal_linked_to_dev_zero_is_refused_in_one_line_naming_it(tmp_path):
    (tmp_path / "m.journal.jsonl").symlink_to("/dev/zero")
    started = time.monotonic()
    with pytest.raises(UserError, match=r"^m.journal.jsonl: journal is not a regular file"):
        folder_progress(tmp_path)
    assert time.monotonic() - started < 1


def test_a_line_over_the_cap_is_skipped_and_the_rest_counted(tmp_path, monkeypatch):
    monkeypatch.setattr(watch, "LINE_BYTES", 1000)
    entry = {"key": "k1", "result": {"severity": "pass"}}
    path = tmp_path / "m.journal.jsonl"
    path.write_text("\n".join([json.dumps({"fingerprint": "f"}), "x" * 5000, json.dumps(entry),
                               json.dumps({"key": "k2", "result": {"severity": "ERROR"}})]) + "\n", encoding="utf-8")
    assert journal_counts(path) == (2, 1)


def test_a_progress_file_linked_to_dev_zero_is_ignored(tmp_path):
    (tmp_path / "m.journal.jsonl").write_text(json.dumps({"fingerprint": "f"}) + "\n", encoding="utf-8")
    (tmp_path / "m.progress.json").symlink_to("/dev/zero")
    [row] = folder_progress(tmp_path)
    assert (row.done, row.total) == (0, None)
