"""Progress read from hand-made run folders: journals (one half-written), progress files, run files."""

from __future__ import annotations

import json
import os
import re
import time

import pytest

from auditpacks.core.errors import UserError
from auditpacks.runner.display.watch import Progress, folder_progress, journal_counts, overall
from auditpacks.runner.store.lock import FolderLock

NOW = 1_000_000.0
HELD: list[FolderLock] = []   # the folder locks of the shards a test pretends are still running


@pytest.fixture(autouse=True)
def _release_locks():
    yield
    while HELD:
        HELD.pop().release()


def entry(key: str, severity: str = "PASS") -> str:
    return json.dumps({"key": key, "name": key, "result": {"scenario_name": key, "severity": severity}}) + "\n"


def shard(folder, lines: list[str], *, total=None, resumed=0, started=None, finished=False, tail="",
          running=True):
    folder.mkdir(parents=True)
    if running and not finished:
        HELD.append(FolderLock(folder).acquire())
    journal = folder / "m.journal.jsonl"
    journal.write_text(json.dumps({"fingerprint": "f"}) + "\n" + "".join(lines) + tail)
    if total is not None:
        (folder / "m.progress.json").write_text(json.dumps({"total": total, "resumed": resumed, "started": started}))
    if finished:
        (folder / "m.run.json").write_text("{}")
        os.utime(journal, (NOW - 10, NOW - 10))
    return folder


def test_a_journal_counts_each_key_once_and_skips_a_half_written_last_line(tmp_path):
    path = shard(tmp_path / "s", [entry("a", "ERROR"), entry("b"), entry("a")], tail='{"key": "c", "res')
    assert journal_counts(path / "m.journal.jsonl") == (2, 0)  # a's ERROR was run again and passed


def test_rate_and_eta_count_only_what_finished_since_the_start(tmp_path):
    # 10 of 30 done, 4 of them reused from an earlier start 60 s ago: 6 in 60 s = 0.1/s, 20 left = 200 s
    lines = [entry(f"k{i}", "ERROR" if i < 2 else "PASS") for i in range(10)]
    (row,) = folder_progress(shard(tmp_path / "shard-1", lines, total=30, resumed=4, started=NOW - 60), now=NOW)
    assert (row.name, row.done, row.total, row.errors, row.finished) == ("shard-1", 10, 30, 2, False)
    assert row.rate == pytest.approx(0.1) and row.eta == pytest.approx(200.0)


def test_overall_adds_counts_and_rates_and_waits_for_the_slowest(tmp_path):
    a = folder_progress(shard(tmp_path / "a", [entry("x")] * 1 + [entry("y")], total=4, started=NOW - 20), now=NOW)
    b = folder_progress(shard(tmp_path / "b", [entry("z")], total=2, started=NOW - 10), now=NOW)
    # a: 2 in 20 s = 0.1/s, 2 left = 20 s; b: 1 in 10 s = 0.1/s, 1 left = 10 s
    total = overall(a + b)
    assert (total.done, total.total, total.errors) == (3, 6, 0)
    assert total.rate == pytest.approx(0.2) and total.eta == pytest.approx(20.0) and not total.finished


def test_finished_and_not_started_runs(tmp_path):
    (done,) = folder_progress(shard(tmp_path / "done", [entry("a")], total=1, started=NOW - 5, finished=True))
    assert done.finished and done.rate is None and done.eta is None
    (tmp_path / "empty").mkdir()
    (waiting,) = folder_progress(tmp_path / "empty")
    assert (waiting.done, waiting.total, waiting.finished) == (0, None, False)
    assert overall([done, waiting]).total is None  # one shard has not said its size yet


def test_a_folder_with_two_models_gives_one_row_each(tmp_path):
    folder = shard(tmp_path / "s", [entry("a")])
    (folder / "other.journal.jsonl").write_text(json.dumps({"fingerprint": "g"}) + "\n" + entry("b") + entry("c"))
    rows = folder_progress(folder)
    assert [(r.name, r.done) for r in rows] == [("s/m", 1), ("s/other", 2)]


def test_a_shard_no_process_writes_any_more_is_stopped_with_no_rate_or_eta(tmp_path):
    lines = [entry(f"k{i}") for i in range(3)]
    (cancelled,) = folder_progress(shard(tmp_path / "c", lines, total=6, started=NOW - 30, running=False), now=NOW)
    assert cancelled.stopped and not cancelled.finished and cancelled.rate is None and cancelled.eta is None
    (live,) = folder_progress(shard(tmp_path / "l", lines, total=6, started=NOW - 30), now=NOW)
    assert not live.stopped and live.rate == pytest.approx(0.1)  # 3 in 30 s
    HELD.pop().release()  # the live run ends without its run file (killed): stopped from now on
    assert folder_progress(tmp_path / "l", now=NOW)[0].stopped


def _running(folder, done: int, plan) -> Progress:
    """The row of a running shard with ``done`` scenarios and ``plan`` as its progress file (JSON text or value)."""
    shard(folder, [entry(f"k{i}") for i in range(done)])
    (folder / "m.progress.json").write_text(plan if isinstance(plan, str) else json.dumps(plan))
    (row,) = folder_progress(folder, now=NOW)
    return row


@pytest.mark.parametrize("plan, total, rate, eta", [
    ({"total": 10, "started": NOW - 40}, 10, 0.1, 60.0),                  # nothing said about reuse: none reused
    ({"total": 10, "started": NOW - 40, "resumed": 4}, 10, 0.0, None),    # nothing finished since the restart
    ({"total": 4, "started": NOW - 40}, 4, 0.1, 0.0),                     # all done, the run file not yet written
    ({"total": "10", "started": NOW - 40}, None, 0.1, None),              # a size that is no count: unknown
    ({"started": NOW}, None, None, None),                                 # started this very moment: no rate yet
    ("[4, 10]", None, None, None),                                        # a progress file that is no object
])
def test_rate_and_eta_from_what_the_progress_file_says(tmp_path, plan, total, rate, eta):
    row = _running(tmp_path / "s", 4, plan)
    assert (row.total, row.rate, row.eta) == (total, pytest.approx(rate) if rate else rate, eta)


def test_the_clock_is_read_when_no_time_is_given(tmp_path, monkeypatch):
    monkeypatch.setattr(time, "time", lambda: NOW)
    shard(tmp_path / "s", [entry("a"), entry("b")], total=4, started=NOW - 20)
    assert folder_progress(tmp_path / "s")[0].rate == pytest.approx(0.1)


def test_a_run_file_written_in_the_same_instant_as_the_last_journal_line_means_finished(tmp_path):
    folder = shard(tmp_path / "s", [entry("a")], total=1, started=NOW - 5, running=False)
    (folder / "m.run.json").write_text("{}")
    for path in (folder / "m.journal.jsonl", folder / "m.run.json"):
        os.utime(path, (NOW, NOW))
    assert folder_progress(folder)[0].finished


def test_a_damaged_line_is_skipped_and_the_lines_after_it_still_count(tmp_path):
    path = shard(tmp_path / "s", [entry("a"), "not json\n", entry("b", "ERROR")]) / "m.journal.jsonl"
    assert journal_counts(path) == (2, 1)


def test_a_run_not_started_and_a_path_that_is_no_folder(tmp_path):
    assert folder_progress(tmp_path / "queued") == [Progress("queued", 0, None, 0, None, None, False, False)]
    (tmp_path / "file").write_text("")
    with pytest.raises(UserError, match=rf"^{re.escape(str(tmp_path / 'file'))}: not a folder$"):
        folder_progress(tmp_path / "file")


def _row(rate=None, eta=None, finished=False, total=2):
    return Progress("r", 1, total, 1, rate, eta, finished)


@pytest.mark.parametrize("rows, rate, eta, finished", [
    ([_row(finished=True), _row(finished=True)], None, None, True),            # nothing runs: no rate
    ([_row(finished=True), _row(0.5, 0.5)], 0.5, 0.5, False),                  # a finished run waits for none
    ([_row(0.5, 0.5), _row(0.5, 4.0, total=None)], 1.0, None, False),         # a size unknown: no ETA
    ([_row(0.5, 0.5), _row()], 0.5, None, False),                              # a run stopped: no ETA
])
def test_overall_rate_eta_and_finished(rows, rate, eta, finished):
    total = overall(rows)
    assert (total.name, total.done, total.errors, total.rate, total.eta, total.finished) == (
        "total", 2, 2, rate, eta, finished)
    assert total.as_dict() == {"name": "total", "done": 2, "total": total.total, "errors": 2, "rate": rate,
                               "eta": eta, "finished": finished, "stopped": False}
