"""The pack folder's index and ``latest`` are data: an id that leads out of the folder is refused in one line,
a folder link planted under a good id is not resumed into, and a ``latest`` that is not a link is left alone."""

import datetime as dt
import json
from pathlib import Path

import pytest

from auditpacks.core.runs.run_files import INDEX_NAME, LATEST_NAME
from auditpacks.runner.models.errors import RunError
from tests.runner.store.test_layout import SHA, WHEN, open_here

KEY = {"fingerprint": "fp1", "pack_sha256": SHA, "shard": None, "model": "m"}


def planted_index(root: Path, run_id: str) -> None:
    root.mkdir(parents=True, exist_ok=True)
    (root / INDEX_NAME).write_text(json.dumps({"runs": [{"id": run_id, **KEY, "started": "x"}]}), encoding="utf-8")


@pytest.mark.parametrize("run_id", ["/tmp/elsewhere", "../../elsewhere", "..", "a/b", ".hidden", ""])
def test_an_id_that_is_not_a_plain_folder_name_is_refused_naming_the_index(tmp_path, monkeypatch, run_id):
    planted_index(tmp_path / "results" / "p", run_id)
    (tmp_path / "elsewhere").mkdir()
    with pytest.raises(RunError, match=r"runs.jsonl: run 0 has id .* not a folder name inside p/; move the index"):
        open_here(tmp_path, monkeypatch)
    assert list((tmp_path / "elsewhere").iterdir()) == []


def test_a_link_planted_under_a_good_id_is_not_resumed_into(tmp_path, monkeypatch):
    root = tmp_path / "results" / "p"
    planted_index(root, "m-choice-old")
    (tmp_path / "elsewhere").mkdir()
    (root / "m-choice-old").symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    folder = open_here(tmp_path, monkeypatch)
    assert folder == Path("results/p/m-choice-1203-071530") and not folder.is_symlink()


def test_a_latest_that_is_a_folder_is_left_as_it_is(tmp_path, monkeypatch):
    latest = tmp_path / "results" / "p" / LATEST_NAME
    (latest / "keep").mkdir(parents=True)
    open_here(tmp_path, monkeypatch, when=WHEN + dt.timedelta(minutes=1))
    assert (latest / "keep").is_dir() and not latest.is_symlink()
