"""Where a builder's data comes from: local folders, hub downloads' one-line failures, and SHA256SUMS."""

import hashlib
import sys

import huggingface_hub
import pytest
from huggingface_hub.errors import GatedRepoError, RepositoryNotFoundError

from auditpacks.core.errors import PackError
from auditpacks.packs.sources import Source, resolve_source, verify_checksums


def test_a_local_folder_is_a_local_source(tmp_path):
    source = resolve_source(tmp_path)
    assert source == Source(root=tmp_path, origin="local")
    assert source.file("data/test.jsonl") == tmp_path / "data" / "test.jsonl"


def test_a_missing_folder_is_one_line(tmp_path):
    with pytest.raises(PackError) as err:
        resolve_source(tmp_path / "nope")
    assert str(err.value) == f"{tmp_path / 'nope'}: source folder not found (give a local copy or hf:owner/name)"


def test_a_download_is_named_by_its_snapshot_commit(monkeypatch, tmp_path):
    calls = []
    snapshot = tmp_path / "snapshots" / "0123abc"
    monkeypatch.setattr(huggingface_hub, "snapshot_download",
                        lambda repo_id, **kw: calls.append((repo_id, kw)) or str(snapshot))
    source = resolve_source("hf:owner/name@v1.0", allow_patterns=["data/*"])
    assert source == Source(root=snapshot, origin="hf:owner/name@0123abc")
    assert calls == [("owner/name", {"repo_type": "dataset", "revision": "v1.0", "allow_patterns": ["data/*"]})]


@pytest.mark.parametrize("error, message", [
    (GatedRepoError.__new__(GatedRepoError),
     "hf:owner/name: the dataset is gated; accept its terms on the dataset page and run `hf auth login`"),
    (RepositoryNotFoundError.__new__(RepositoryNotFoundError),
     "hf:owner/name: not found or not visible with your token (for a gated dataset run `hf auth login`)"),
    (OSError("offline\nmore detail"), "hf:owner/name: download failed: OSError: offline"),
])
def test_download_failures_are_one_line(monkeypatch, error, message):
    def fail(repo_id, **kw):
        raise error

    monkeypatch.setattr(huggingface_hub, "snapshot_download", fail)
    with pytest.raises(PackError) as err:
        resolve_source("hf:owner/name")
    assert str(err.value) == message


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def test_checksums_are_optional_and_checked_when_present(tmp_path):
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "test.jsonl").write_bytes(b"abc\n")
    (tmp_path / "other.txt").write_bytes(b"x")
    assert verify_checksums(tmp_path, ["data/test.jsonl"]) is False
    (tmp_path / "SHA256SUMS").write_text(f"# published sums\n\n{sha(b'abc' + bytes([10])).upper()}  "
                                         f"./data/test.jsonl\n{sha(b'y')} *other.txt\n{sha(b'z')}  absent.txt\n")
    assert verify_checksums(tmp_path, ["data/test.jsonl", "absent.txt", "unlisted.txt"]) is True
    with pytest.raises(PackError) as err:
        verify_checksums(tmp_path, ["other.txt"])
    assert str(err.value) == "other.txt: sha256 does not match SHA256SUMS; the file differs from the published one"


@pytest.mark.parametrize("line", ["abc  file.txt", f"{'0' * 64}", f"{'0' * 63}  f"])
def test_a_malformed_checksum_line_is_named(tmp_path, line):
    (tmp_path / "SHA256SUMS").write_text(f"{'1' * 64}  ok.txt\n{line}\n")
    with pytest.raises(PackError) as err:
        verify_checksums(tmp_path, [])
    assert str(err.value) == "SHA256SUMS line 2: not a '<sha256>  <file>' line"


@pytest.mark.parametrize("listed", ["./data/test.jsonl", "*data/test.jsonl", "data/test.jsonl", " *./data/test.jsonl"])
def test_a_listed_file_is_checked_whatever_its_prefix(tmp_path, listed):
    """``./`` and sha256sum's binary marker ``*`` do not hide a file from the check."""
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "test.jsonl").write_bytes(b"changed\n")
    (tmp_path / "SHA256SUMS").write_text(f"{sha(b'abc' + bytes([10]))} {listed}\n")
    with pytest.raises(PackError, match=r"^data/test.jsonl: sha256 does not match SHA256SUMS"):
        verify_checksums(tmp_path, ["data/test.jsonl"])


@pytest.mark.parametrize("name", ["XNLI.json", "X*.json", "x./y.json"])
def test_a_file_name_is_taken_as_written(tmp_path, name):
    (tmp_path / "x.").mkdir()
    (tmp_path / name).write_bytes(b"changed")
    (tmp_path / "SHA256SUMS").write_text(f"{sha(b'published')}  {name}\n")
    with pytest.raises(PackError, match="sha256 does not match"):
        verify_checksums(tmp_path, [name])


def test_an_indented_comment_is_skipped(tmp_path):
    (tmp_path / "SHA256SUMS").write_text(f"  # published sums\n\t# of 2026\n{sha(b'x')}  ok.txt\n")
    assert verify_checksums(tmp_path, ["ok.txt"]) is True


def test_without_huggingface_hub_a_download_is_one_line(monkeypatch):
    monkeypatch.setitem(sys.modules, "huggingface_hub", None)  # import fails as if not installed
    with pytest.raises(PackError, match=r"^hf:owner/name@v1: huggingface_hub is not installed \(.+\)$"):
        resolve_source("hf:owner/name@v1")
