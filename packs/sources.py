"""Where a builder's data comes from: a local folder (``hf download`` layout) or ``hf:owner/name``."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from auditpacks.core.errors import PackError

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
