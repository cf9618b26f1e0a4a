"""``auditpacks merge`` refuses a shard folder that a live run still writes."""

from __future__ import annotations

from auditpacks.runner.cli.main import main
from auditpacks.runner.execution.lock import FolderLock


def test_merge_refuses_a_shard_folder_whose_lock_is_held(tmp_path, capsys):
    done, running = tmp_path / "shard-1", tmp_path / "shard-2"
    done.mkdir()
    with FolderLock(running):  # a run writing shard 2 right now
        code = main(["merge", str(done), str(running), "--out", str(tmp_path / "merged")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2
    assert len(err) == 1 and str(running) in err[0] and "still writing" in err[0]
    assert not (tmp_path / "merged").exists()


def test_merge_takes_a_released_folder_and_releases_it_again(tmp_path, capsys):
    folder = tmp_path / "shard-1"
    FolderLock(folder).acquire().release()  # a run that ended
    assert main(["merge", str(folder), "--out", str(tmp_path / "merged")]) == 2
    assert "no shard run file" in capsys.readouterr().err  # got past the lock, to the folder's contents
    with FolderLock(folder):  # the merge let go of it
        pass
