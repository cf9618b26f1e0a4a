"""One writer per run folder: a second holder fails at once naming the pid; release and death free the folder."""

import os
import subprocess
import sys

import pytest

from auditpacks.runner.store.lock import LOCK_NAME, FolderBusy, FolderLock

HOLD = """
import sys, time
from auditpacks.runner.store.lock import FolderLock
FolderLock(sys.argv[1]).acquire()
print("held", flush=True)
time.sleep(60)
"""


def test_acquire_creates_the_folder_and_writes_its_pid(tmp_path):
    folder = tmp_path / "a" / "b"
    with FolderLock(folder) as lock:
        assert lock.path == folder / LOCK_NAME
        assert lock.path.read_text() == f"{os.getpid()}\n"


def test_a_second_holder_fails_at_once_and_a_released_lock_is_free_again(tmp_path):
    first = FolderLock(tmp_path).acquire()
    with pytest.raises(FolderBusy) as err:
        FolderLock(tmp_path).acquire()  # a second descriptor, even in this process
    assert str(err.value) == (f"{tmp_path}: another run is writing this folder (process {os.getpid()}); "
                              "wait for it to end or use another --out")
    first.release()
    first.release()  # twice is harmless
    with FolderLock(tmp_path):
        pass


def test_another_live_process_is_named_and_its_death_frees_the_folder(tmp_path):
    child = subprocess.Popen([sys.executable, "-c", HOLD, str(tmp_path)], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "held"
        with pytest.raises(FolderBusy, match=f"process {child.pid}\\)"):
            FolderLock(tmp_path).acquire()
    finally:
        child.kill()
        child.wait()
    with FolderLock(tmp_path) as lock:  # the kernel dropped the dead holder's lock; the stale pid is replaced
        assert lock.path.read_text() == f"{os.getpid()}\n"


def test_a_holder_without_a_readable_pid_is_another_process(tmp_path):
    first = FolderLock(tmp_path).acquire()
    (tmp_path / LOCK_NAME).write_text("not a pid")
    try:
        with pytest.raises(FolderBusy, match=r"\(another process\)"):
            FolderLock(tmp_path).acquire()
    finally:
        first.release()
