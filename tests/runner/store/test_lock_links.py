"""A planted lock file: a symlink (or a folder, or a FIFO) in its place is refused, and nothing it points at
is touched."""

from __future__ import annotations

import os

import pytest

from auditpacks.runner.store.journal import Journal, JournalError
from auditpacks.runner.store.lock import LOCK_NAME, FolderBusy, FolderLock, held


def test_a_symlinked_lock_file_is_refused_and_its_target_kept(tmp_path):
    target = tmp_path / "precious.txt"
    target.write_text("keep me")
    folder = tmp_path / "run"
    folder.mkdir()
    (folder / LOCK_NAME).symlink_to(target)
    with pytest.raises(FolderBusy, match="cannot open the lock file"):
        FolderLock(folder).acquire()
    assert target.read_text() == "keep me"
    with pytest.raises(JournalError, match=LOCK_NAME):  # a run into that folder says so in one line
        Journal(folder / "m.journal.jsonl", "fp").open()
    assert target.read_text() == "keep me"


def test_a_dangling_symlink_creates_nothing(tmp_path):
    (tmp_path / LOCK_NAME).symlink_to(tmp_path / "elsewhere")
    with pytest.raises(FolderBusy):
        FolderLock(tmp_path).acquire()
    assert not (tmp_path / "elsewhere").exists()


@pytest.mark.parametrize("plant", ["folder", "fifo"])
def test_a_lock_path_that_is_not_a_plain_file_is_refused(tmp_path, plant):
    path = tmp_path / LOCK_NAME
    path.mkdir() if plant == "folder" else os.mkfifo(path)
    with pytest.raises(FolderBusy):
        FolderLock(tmp_path).acquire()


@pytest.mark.parametrize("plant, message", [
    ("link", "cannot open the lock file (Too many levels of symbolic links); remove it if it is a link or not a "
             "plain file"),
    ("folder", "cannot open the lock file (Is a directory); remove it if it is a link or not a plain file"),
    ("fifo", "the lock file is not a plain file; remove it"),
])
def test_the_refusal_names_the_lock_file_and_what_to_do(tmp_path, plant, message):
    path = tmp_path / LOCK_NAME
    {"link": lambda: path.symlink_to(tmp_path / "elsewhere"), "folder": path.mkdir,
     "fifo": lambda: os.mkfifo(path)}[plant]()
    with pytest.raises(FolderBusy) as err:
        FolderLock(tmp_path).acquire()
    assert str(err.value) == f"{path}: {message}"


def test_a_folder_whose_lock_file_links_to_a_held_one_is_not_held(tmp_path):
    lock = FolderLock(tmp_path / "running").acquire()
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / LOCK_NAME).symlink_to(lock.path)
    try:
        assert held(tmp_path / "running") and not held(tmp_path / "other")
    finally:
        lock.release()
