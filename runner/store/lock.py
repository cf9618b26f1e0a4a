"""One writer per run folder: an exclusive ``flock`` on ``DIR/.auditpacks.lock``.

The lock is taken without waiting: a second run into a folder another process is
writing fails at once, in one line naming that process's pid. The kernel releases a
``flock`` when its holder dies (even by ``kill -9``), so a lock file left by a killed
run is simply taken over; the pid inside it is only there for the message. The lock file is
opened with ``O_NOFOLLOW``: a symlink (or anything but a plain file) planted in its place is refused.
"""

from __future__ import annotations

import errno
import fcntl
import os
import stat
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Iterable, Iterator

LOCK_NAME = ".auditpacks.lock"


class FolderBusy(Exception):
    """Another live process holds the run folder (one line, names the folder and the pid)."""


class FolderLock:
    """Hold ``folder``'s lock from :meth:`acquire` until :meth:`release` (or the process ends)."""

    def __init__(self, folder: str | os.PathLike) -> None:
        self.folder = Path(folder)
        self.path = self.folder / LOCK_NAME
        self._fd: int | None = None

    def acquire(self) -> "FolderLock":
        self.folder.mkdir(parents=True, exist_ok=True)
        try:  # never through a link: a planted symlink must not truncate what it points at
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK, 0o644)
        except OSError as exc:
            raise FolderBusy(f"{self.path}: cannot open the lock file ({exc.strerror}); "
                             "remove it if it is a link or not a plain file") from None
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            raise FolderBusy(f"{self.path}: the lock file is not a plain file; remove it")
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            holder = _read_pid(fd)
            os.close(fd)
            if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                raise FolderBusy(f"{self.folder}: cannot lock the run folder: {exc.strerror}") from None
            who = f"process {holder}" if holder else "another process"
            busy = FolderBusy(f"{self.folder}: another run is writing this folder ({who}); wait for it to end "
                              "or use another --out")
            busy.holder = who
            raise busy from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        self._fd = fd
        return self

    def release(self) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)  # closing the descriptor releases the flock

    def __enter__(self) -> "FolderLock":
        return self.acquire()

    def __exit__(self, *exc) -> None:
        self.release()


@contextmanager
def holding(folders: Iterable[str | os.PathLike]) -> Iterator[None]:
    """Hold every folder's lock (existing folders only) while reading them: a folder a live run still
    writes is refused in one line naming it and its process."""
    with ExitStack() as stack:
        for folder in dict.fromkeys(Path(f).resolve() for f in folders):  # a folder named twice: locked once
            if not folder.is_dir():
                continue
            lock = FolderLock(folder)
            try:
                stack.enter_context(lock)
            except FolderBusy as exc:
                holder = getattr(exc, "holder", "another process")
                raise FolderBusy(f"{lock.folder}: a run is still writing this folder ({holder}); wait for it to "
                                 "end") from None
        yield


def _read_pid(fd: int) -> int | None:
    try:
        text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
    except OSError:
        return None
    return int(text) if text.isdigit() and len(text) < 12 else None


def held(folder: str | os.PathLike) -> bool:
    """Whether a live process holds ``folder``'s lock (a run still writing it), found without taking the lock:
    the kernel's lock table (``/proc/locks``) names the lock file's inode; elsewhere, whether the pid it holds
    is alive."""
    path = Path(folder) / LOCK_NAME
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return False
    try:
        info, pid = os.fstat(fd), _read_pid(fd)
    finally:
        os.close(fd)
    try:
        table = Path("/proc/locks").read_text(encoding="ascii", errors="replace")
    except OSError:
        table = None
    if table is not None:
        where = f"{os.major(info.st_dev):02x}:{os.minor(info.st_dev):02x}:{info.st_ino}"
        return any(fields[1:2] == ["FLOCK"] and where in fields for fields in map(str.split, table.splitlines()))
    if pid is None:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
