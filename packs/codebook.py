"""``codebook.yaml``: the questions, templates and settings builders read declaratively."""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from auditpacks.core.errors import PackError

DEFAULT_PATH = Path(__file__).resolve().parent / "codebook.yaml"


def codebook_path() -> Path:
    return Path(os.environ.get("AUDITPACKS_CODEBOOK", DEFAULT_PATH))


@lru_cache(maxsize=4)
def _load(path: Path) -> dict[str, Any]:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise PackError(f"{path}: codebook not found") from None
    except yaml.YAMLError as exc:
        raise PackError(f"{path.name}: invalid YAML: {str(exc).splitlines()[0]}") from None
    if not isinstance(data, dict):
        raise PackError(f"{path.name}: the codebook must be a mapping of benchmark sections")
    return data


def section(name: str) -> dict[str, Any]:
    """One benchmark's section of the codebook."""
    path = codebook_path()
    data = _load(path)
    if not isinstance(data.get(name), dict):
        raise PackError(f"{path.name}: no section {name!r}")
    return data[name]
