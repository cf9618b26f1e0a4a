"""``auditpacks merge`` refuses a shard folder that a live run still writes."""

from __future__ import annotations

from auditpacks.runner.cli.main import main
from auditpacks.runner.store.lock import FolderLock


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


def test_merge_refuses_to_write_into_one_of_its_shard_folders(tmp_path, capsys):
    shard = tmp_path / "shard-1"
    shard.mkdir()
    assert main(["merge", str(shard), "--out", str(tmp_path / "." / "shard-1")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--out is one of the shard folders" in err[0]
    assert list(shard.iterdir()) == []  # not even a lock file


def test_merge_refuses_an_output_folder_another_process_is_writing(tmp_path, capsys):
    from tests.support.tiny_pack import write_pack  # a real shard run to merge
    from tests.support.fake_openai import FakeOpenAI
    from tests.support.runs import run_here

    pack = write_pack(tmp_path / "tiny.json", 4)
    with FakeOpenAI() as server:
        assert run_here(pack, tmp_path / "s1", server.base_url, "--shard", "1/1") == 0
    with FolderLock(tmp_path / "merged"):
        assert main(["merge", str(tmp_path / "s1"), "--out", str(tmp_path / "merged")]) == 2
    assert "another run is writing this folder" in capsys.readouterr().err
    assert main(["merge", str(tmp_path / "s1"), "--out", str(tmp_path / "merged")]) == 0
