"""Resume: a run killed with SIGKILL at random points loses and duplicates nothing; journal crash cases."""

from __future__ import annotations

import json
import os
import random
import signal
import threading

import pytest

from auditpacks.runner.store.journal import Journal
from auditpacks.runner.store.lock import LOCK_NAME, FolderBusy, FolderLock
from auditpacks.runner.display.progress import ProgressPrinter
from tests.support.fake_openai import FakeOpenAI
from tests.support.runs import journal_entries, results, run_file, run_here, start_child
from tests.support.tiny_pack import write_pack

SCENARIOS = 300
KILLS = 10


def test_kill_9_at_ten_random_points_then_resume(tmp_path, capsys):
    """Each time, while the doomed run is alive, a second run into the same folder (in this process) is refused at
    once, naming the child that holds it."""
    pack = write_pack(tmp_path / "tiny.json", SCENARIOS)
    rng = random.Random(20261201)
    with FakeOpenAI() as server:
        assert run_here(pack, tmp_path / "straight", server.base_url, "--concurrency", "4") == 0
        baseline = results(tmp_path / "straight")

        out = tmp_path / "killed"
        for _ in range(KILLS):
            server.hold, server.holding = threading.Event(), threading.Event()
            server.kill_at = {server.chat_requests + rng.randint(3, 25)}
            child = start_child(pack, out, server.base_url, "--concurrency", "4")
            server.kill_pid = child.pid
            assert server.holding.wait(120)  # the kill point is reached; the child is stalled there, alive
            capsys.readouterr()
            assert run_here(pack, out, server.base_url, "--concurrency", "4", *rng.choice([(), ("--fresh",)])) == 2
            refusal = capsys.readouterr().err.strip()
            assert len(refusal.splitlines()) == 1 and f"(process {child.pid})" in refusal, refusal
            server.hold.set()
            child.wait(timeout=120)
            assert child.returncode == -signal.SIGKILL, child.stderr.read().decode()
            child.stderr.close()
        server.kill_pid, server.hold = None, None
        finished_before = len(journal_entries(out))
        assert 0 < finished_before < SCENARIOS
        child = start_child(pack, out, server.base_url, "--concurrency", "4")  # takes over the stale lock
        child.wait(timeout=120)
        assert child.returncode == 0, child.stderr.read().decode()
        child.stderr.close()

    resumed = results(out)
    assert len(resumed) == SCENARIOS
    assert [r["scenario_name"] for r in resumed] == [r["scenario_name"] for r in baseline]
    assert resumed == baseline  # same transcripts, verdicts and token counts, in pack order
    entries = journal_entries(out)
    assert len(entries) == SCENARIOS == len({e["key"] for e in entries})  # none lost, none duplicated
    run = json.loads((out / "m.run.json").read_text())
    assert run["summary"]["resumed"] == finished_before and run["summary"]["errors"] == 0


def test_a_second_run_into_a_busy_folder_fails_at_once_naming_the_holder(tmp_path, capsys):
    pack = write_pack(tmp_path / "tiny.json", 4)
    with FakeOpenAI() as server:
        assert run_here(pack, tmp_path / "out", server.base_url) == 0
        journal = (tmp_path / "out" / "m.journal.jsonl").read_bytes()
        server.reset_counts()
        capsys.readouterr()
        with FolderLock(tmp_path / "out"):
            for extra in ((), ("--fresh",)):
                assert run_here(pack, tmp_path / "out", server.base_url, *extra) == 2
                err = capsys.readouterr().err.strip()
                assert len(err.splitlines()) == 1 and f"(process {os.getpid()})" in err and "--out" in err
        assert server.chat_requests == 0 and (tmp_path / "out" / "m.journal.jsonl").read_bytes() == journal


def test_a_lock_left_by_a_dead_process_is_taken_over(tmp_path):
    (tmp_path / LOCK_NAME).write_text("999999999\n")  # no process holds it: flock died with its owner
    with FolderLock(tmp_path):
        assert (tmp_path / LOCK_NAME).read_text() == f"{os.getpid()}\n"
        with pytest.raises(FolderBusy, match=f"process {os.getpid()}"):
            FolderLock(tmp_path).acquire()
    FolderLock(tmp_path).acquire().release()


def test_rerun_into_the_same_folder_makes_no_request_and_fresh_starts_over(tmp_path):
    pack = write_pack(tmp_path / "tiny.json", 6)
    with FakeOpenAI() as server:
        assert run_here(pack, tmp_path / "out", server.base_url) == 0
        first = results(tmp_path / "out")
        server.reset_counts()
        assert run_here(pack, tmp_path / "out", server.base_url, "--resume") == 0
        assert server.chat_requests == 0 and results(tmp_path / "out") == first
        assert run_here(pack, tmp_path / "out", server.base_url, "--fresh") == 0
        assert server.chat_requests == 6 and results(tmp_path / "out") == first


def test_resume_and_fresh_are_exclusive(tmp_path, capsys):
    with pytest.raises(SystemExit):
        run_here(tmp_path / "p.json", tmp_path / "out", None, "--resume", "--fresh")
    assert "not allowed with argument" in capsys.readouterr().err


def test_a_header_cut_short_with_nothing_behind_it_starts_a_new_journal(tmp_path):
    path = tmp_path / "m.journal.jsonl"
    path.write_text('{"fingerpr')  # no finished scenario to lose (see test_hostile_input for one with some)
    with Journal(path, "fp").open() as journal:
        journal.append("k1", "a", {"severity": "pass"})
    assert Journal(path, "fp").open().done == {"k1": {"severity": "pass"}}


def test_a_whole_last_line_without_newline_is_kept_and_the_next_append_is_clean(tmp_path):
    path = tmp_path / "m.journal.jsonl"
    with Journal(path, "fp").open() as journal:
        journal.append("k1", "a", {"severity": "pass"})
    with open(path, "a") as fh:
        fh.write(json.dumps({"key": "k2", "name": "b", "result": {"severity": "low"}}))  # newline never written
    with Journal(path, "fp").open() as journal:
        assert set(journal.done) == {"k1", "k2"}
        journal.append("k3", "c", {"severity": "pass"})
    assert set(Journal(path, "fp").open().done) == {"k1", "k2", "k3"}


def test_a_damaged_line_in_the_middle_is_reported_with_its_number_and_run_again(tmp_path, capsys):
    path = tmp_path / "m.journal.jsonl"
    path.write_text('{"fingerprint": "fp"}\n{"key": "k1", "name": "a", "result": {}}\nnot json\n'
                    '{"key": "k2", "name": "b", "result": {}}\n')
    assert set(Journal(path, "fp").open().done) == {"k1", "k2"}
    assert "m.journal.jsonl line 3: not JSON" in capsys.readouterr().err


def test_progress_counts_resumed_scenarios(tmp_path):
    stream = (tmp_path / "progress.txt").open("w+")
    with ProgressPrinter(5, show=None, stream=stream) as progress:
        progress.start([{"severity": "pass", "target_input_tokens": 3}, {"severity": "ERROR"}])
        progress.update({"severity": "pass"})
        progress.update(None)
        progress.update({"severity": "medium"})
    stream.seek(0)
    lines = stream.read().splitlines()
    assert lines[0] == "[2/5] resumed from the journal"
    assert lines[-1].startswith("[5/5]") and "2 errors" not in lines[-1] and "1 errors · 1 skipped" in lines[-1]


def test_work_of_an_earlier_attempt_is_counted_as_such(tmp_path, capsys):
    """A stopped attempt finished the first scenarios; the rerun counts them, and their documents, as the earlier
    attempt's, so every scenario's document is reported once somewhere."""
    pack = write_pack(tmp_path / "tiny.json", 12, documents=True)   # 3 scenarios a judgment: 4 judgments
    out = tmp_path / "out"
    with FakeOpenAI() as server:
        assert run_here(pack, out, server.base_url, "--concurrency", "1") == 0
        journal = out / "m.journal.jsonl"
        lines = journal.read_text(encoding="utf-8").splitlines(keepends=True)
        journal.write_text("".join(lines[:1 + 4]), encoding="utf-8")   # the header and four finished scenarios
        kept = [entry["name"] for entry in journal_entries(out)]
        server.reset_counts()
        capsys.readouterr()
        assert run_here(pack, out, server.base_url, "--concurrency", "1", "--resume") == 0
        assert server.chat_requests == 8
    # one worker runs the judgments in order: V0000's three scenarios, then the first of V0001's
    assert [name[:9] for name in kept] == ["Tiny 0000", "Tiny 0001", "Tiny 0002", "Tiny 0003"]
    perf = run_file(out)["performance"]
    assert perf["earlier_attempts"] == {"scenarios": 4, "documents": 2}
    assert perf["documents"] == 3   # V0001 (its other two scenarios), V0002 and V0003
    assert "4 judgments run" not in (printed := capsys.readouterr().out)
    assert "prompts: document-first, 3 judgments run (and 2 by earlier attempts: 4 scenarios resumed)" in printed
