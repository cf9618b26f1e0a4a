"""Where a builder's data comes from: a local folder (``hf download`` layout) or ``hf:owner/name``."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from auditpacks.core.errors import PackError
from auditpacks.core.io import sha256_file

HF_PREFIX = "hf:"


@dataclass(frozen=True)
class Source:
    """A resolved dataset folder and how to describe it in a manifest (never a machine path)."""

    root: Path
    origin: str

    def file(self, relative: str) -> Path:
        return self.root / relative


def resolve_source(spec: str | os.PathLike, *, allow_patterns: list[str] | None = None) -> Source:
    """A local dataset folder, downloading ``hf:owner/name[@revision]`` with huggingface_hub first."""
    text = str(spec)
    if text.startswith(HF_PREFIX):
        return _download(text[len(HF_PREFIX):], allow_patterns)
    root = Path(text)
    if not root.is_dir():
        raise PackError(f"{text}: source folder not found (give a local copy or hf:owner/name)")
    return Source(root=root, origin="local")


def _download(repo: str, allow_patterns: list[str] | None) -> Source:
    repo_id, _, revision = repo.partition("@")
    try:
        from huggingface_hub import snapshot_download
        from huggingface_hub.errors import GatedRepoError, RepositoryNotFoundError
    except ImportError as exc:  # pragma: no cover - a declared dependency
        raise PackError(f"hf:{repo}: huggingface_hub is not installed ({exc})") from None
    try:
        path = snapshot_download(
            repo_id, repo_type="dataset", revision=revision or None, allow_patterns=allow_patterns
        )
    except GatedRepoError:
        raise PackError(
            f"hf:{repo_id}: the dataset is gated; accept its terms on the dataset page and run `hf auth login`"
        ) from None
    except RepositoryNotFoundError:
        raise PackError(
            f"hf:{repo_id}: not found or not visible with your token (for a gated dataset run `hf auth login`)"
        ) from None
    except Exception as exc:  # network errors, offline mode, disk
        raise PackError(f"hf:{repo_id}: download failed: {type(exc).__name__}: {str(exc).splitlines()[0]}") from None
    resolved = Path(path).name  # the snapshot folder is named by the commit hash
    return Source(root=Path(path), origin=f"hf:{repo_id}@{resolved}")


def verify_checksums(root: Path, relative: list[str], sums: str = "SHA256SUMS") -> bool:
    """Check the files in ``relative`` against ``root/sums`` (``sha256sum`` format) when it exists.

    Files the list does not mention, and listed files that are absent, are not checked.
    Returns whether a checksum file was found; a mismatch is a one-line :class:`PackError`.
    """
    path = root / sums
    if not path.is_file():
        return False
    expected: dict[str, str] = {}
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        digest, _, name = line.strip().partition(" ")
        name = name.strip().lstrip("*").removeprefix("./")
        if len(digest) != 64 or not name:
            raise PackError(f"{sums} line {lineno}: not a '<sha256>  <file>' line")
        expected[name] = digest.lower()
    for name in relative:
        if name in expected and (root / name).is_file() and sha256_file(root / name) != expected[name]:
            raise PackError(f"{name}: sha256 does not match {sums}; the file differs from the published one")
    return True
