"""``--batch-api``'s log at its edges, in process: a long reply kept under the cap, a blank line passed over, a batch
named by a damaged line's start (Anthropic's ids in mixed case), and a log that is a folder, a link or on a full
disk refused in one line naming it."""

from __future__ import annotations

import json
import os

import pytest

from auditpacks.core.errors import UserError
from auditpacks.runner.hosted import batch_run
from auditpacks.runner.hosted.batch_run import BatchLog
from auditpacks.runner.models.errors import RunError

NAME = "m.batches.jsonl"


def test_a_line_under_the_cap_is_read(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("AUDITPACKS_MAX_REPLY_BYTES", "100")   # a line may hold twice that and 1 MiB
    record = {"content": "x" * (2**20 + 100)}
    (tmp_path / NAME).write_text(json.dumps({"collected": "b1", "replies": {"r1": record}}) + "\n", encoding="utf-8")
    log = BatchLog(tmp_path / NAME)
    assert log.collected == {"b1"} and log.replies == {"r1": record} and capsys.readouterr().err == ""


def test_a_blank_line_is_no_damage(tmp_path, capsys):
    (tmp_path / NAME).write_text('\n{"submitted": "b1", "custom_ids": ["r1"]}\n\n', encoding="utf-8")
    assert BatchLog(tmp_path / NAME).submitted == {"b1": ["r1"]} and capsys.readouterr().err == ""


def damaged(tmp_path, capsys, line: str) -> str:
    (tmp_path / NAME).write_text(line + "\n", encoding="utf-8")
    BatchLog(tmp_path / NAME)
    return capsys.readouterr().err


def test_a_damaged_line_names_an_anthropic_batch_in_mixed_case(tmp_path, capsys):
    said = damaged(tmp_path, capsys, '{"collected": "msgbatch_01HkcTjaV5uDC8jWR4ZsDV8d", "status": "end')
    assert "(the results of msgbatch_01HkcTjaV5uDC8jWR4ZsDV8d are downloaded again)" in said


@pytest.mark.parametrize("width, named", [(4096, True), (4097, False)])
def test_a_damaged_line_names_its_batch_only_from_its_first_4096_characters(tmp_path, capsys, width, named):
    tail = '"collected": "b1"'
    head = '{"pad": "' + "x" * (width - len(tail) - len('{"pad": "", ')) + '", '
    assert len(head + tail) == width
    said = damaged(tmp_path, capsys, head + tail + ", cut")
    assert ("(the results of b1 are downloaded again)" in said) == named and "line 1 is damaged" in said


def test_a_log_that_is_a_folder_is_not_read(tmp_path):
    (tmp_path / NAME).mkdir()
    with pytest.raises(UserError, match=f"^{NAME}: batch log is not a regular file"):
        BatchLog(tmp_path / NAME)


def test_a_log_that_is_a_link_is_not_appended_to(tmp_path):
    log = BatchLog(tmp_path / NAME)
    (tmp_path / "elsewhere").write_text("", encoding="utf-8")
    (tmp_path / NAME).symlink_to(tmp_path / "elsewhere")
    with pytest.raises(RunError, match=f"^{NAME}: the batch log is a link or not a regular file; "):
        log.append({"collected": "b1"})
    assert (tmp_path / "elsewhere").read_text(encoding="utf-8") == ""


def test_a_full_disk_is_named_with_the_log(tmp_path, monkeypatch):
    def full(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(batch_run.os, "fsync", full)
    with pytest.raises(OSError) as caught:
        BatchLog(tmp_path / NAME).append({"collected": "b1"})
    assert (caught.value.errno, caught.value.filename) == (28, str(tmp_path / NAME))
    assert os.path.exists(tmp_path / NAME)
