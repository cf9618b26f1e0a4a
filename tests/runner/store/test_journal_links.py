"""A journal planted as a link (to a file elsewhere, to /dev/zero) is refused in one line and nothing is written
through it."""

from __future__ import annotations

import pytest

from auditpacks.runner.store.journal import Journal, JournalError


@pytest.mark.parametrize("target", ["elsewhere", "/dev/zero"])
def test_a_linked_journal_is_refused_and_its_target_left_untouched(tmp_path, target):
    outside = tmp_path / "elsewhere"
    outside.write_text("keep\n", encoding="utf-8")
    run = tmp_path / "run"
    run.mkdir()
    (run / "m.journal.jsonl").symlink_to(outside if target == "elsewhere" else target)
    with pytest.raises(JournalError, match=r"^m.journal.jsonl: the journal is a link or not a regular file"):
        Journal(run / "m.journal.jsonl", "fp").open()
    assert outside.read_text(encoding="utf-8") == "keep\n"
    Journal(run / "other.journal.jsonl", "fp").open().close()   # the folder's lock was released
