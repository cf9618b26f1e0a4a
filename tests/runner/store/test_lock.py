"""One writer per run folder: a second holder fails at once naming the pid; release and death free the folder;
whether a live process holds a folder, read from the kernel's lock table or, without it, the pid in the file."""

import errno
import fcntl
import os
import subprocess
import sys
from pathlib import Path

import pytest

from auditpacks.runner.store.lock import LOCK_NAME, FolderBusy, FolderLock, held

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


@pytest.mark.parametrize("content, who", [
    (b"4242\n", "process 4242"),
    (b"12345678901\n", "process 12345678901"),         # eleven digits: still a pid
    (b"123456789012\n", "another process"),             # twelve: no pid
    (b"\xff\xfe4242\n", "another process"),             # not ASCII
    (b"4242" + b" " * 28 + b"7", "process 4242"),       # only the start of the file is read
])
def test_the_holder_named_is_the_pid_at_the_start_of_the_lock_file(tmp_path, content, who):
    first = FolderLock(tmp_path).acquire()
    (tmp_path / LOCK_NAME).write_bytes(content)
    try:
        with pytest.raises(FolderBusy) as err:
            FolderLock(tmp_path).acquire()
        assert err.value.holder == who
    finally:
        first.release()


def test_a_folder_is_held_while_a_lock_on_its_file_is_in_the_kernels_table(tmp_path):
    assert not held(tmp_path)                  # no lock file
    lock = FolderLock(tmp_path).acquire()
    assert held(tmp_path)
    lock.release()
    assert not held(tmp_path)                  # the file stays, with this live process's pid, but no one holds it


def _lock_table(monkeypatch, text):
    """``/proc/locks`` reads as ``text`` (None: it cannot be read, as off Linux)."""
    read = Path.read_text

    def fake(self, *args, **kwargs):
        if str(self) != "/proc/locks":
            return read(self, *args, **kwargs)
        if text is None:
            raise OSError("no /proc")
        return text
    monkeypatch.setattr(Path, "read_text", fake)


@pytest.mark.parametrize("kind, same_file, expected", [("FLOCK", True, True), ("POSIX", True, False),
                                                      ("FLOCK", False, False)])
def test_only_a_flock_on_the_lock_files_own_inode_counts(tmp_path, monkeypatch, kind, same_file, expected):
    (tmp_path / LOCK_NAME).write_text("1\n")
    info = os.stat(tmp_path / LOCK_NAME)
    # /proc/locks names a file as MAJOR:MINOR:INODE, the device numbers in two hex digits
    where = f"{os.major(info.st_dev):02x}:{os.minor(info.st_dev):02x}:{info.st_ino}" if same_file else "00:00:1"
    _lock_table(monkeypatch, f"1: {kind}  ADVISORY  WRITE 99 {where} 0 EOF\n")
    assert held(tmp_path) is expected


def test_without_the_kernels_table_a_folder_is_held_while_the_pid_in_its_lock_file_lives(tmp_path, monkeypatch):
    _lock_table(monkeypatch, None)
    probes = []

    def kill(pid, signal):
        """Processes 4242 (ours) and 1 (another user's) live; no other does."""
        probes.append(signal)
        if pid == 1:
            raise PermissionError
        if pid != 4242:
            raise ProcessLookupError
    monkeypatch.setattr(os, "kill", kill)
    for content, expected in (("4242\n", True), ("1\n", True), ("5151\n", False), ("", False)):
        (tmp_path / LOCK_NAME).write_text(content)
        assert held(tmp_path) is expected, content
    assert probes == [0, 0, 0]                 # only asked whether it lives: no signal sent


def test_a_lock_never_taken_releases_nothing_and_its_file_is_readable_by_all_writable_by_its_owner(tmp_path):
    FolderLock(tmp_path).release()
    mask = os.umask(0o022)
    try:
        with FolderLock(tmp_path) as lock:
            assert lock.path.stat().st_mode & 0o777 == 0o644
    finally:
        os.umask(mask)


def test_a_folder_the_kernel_cannot_lock_says_why(tmp_path, monkeypatch):
    def no_locks(fd, operation):
        raise OSError(errno.ENOLCK, "No locks available")
    monkeypatch.setattr(fcntl, "flock", no_locks)
    with pytest.raises(FolderBusy) as err:
        FolderLock(tmp_path).acquire()
    assert str(err.value) == f"{tmp_path}: cannot lock the run folder: No locks available"
