"""File I/O every layer shares: hashes, JSON and JSONL readers with one-line errors, atomic writes."""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any, Iterator

from auditpacks.core.errors import FormatError, PackError

_CHUNK = 1 << 20


def sha256_file(path: str | os.PathLike) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(_CHUNK), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _umask_mode() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def new_temp(directory: Path, name: str) -> tuple[int, str]:
    """A temporary file beside ``name`` with the permissions a plainly created file would get."""
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{name}.", suffix=".tmp")
    try:
        os.chmod(tmp, _umask_mode())
    except BaseException:
        os.close(fd)
        Path(tmp).unlink(missing_ok=True)
        raise
    return fd, tmp


def read_json(path: str | os.PathLike, what: str = "file") -> Any:
    """A JSON file's content; a missing or malformed file is a one-line :class:`PackError`."""
    path = Path(path)
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise PackError(f"{path.name}: {what} not found") from None
    except IsADirectoryError:
        raise PackError(f"{path.name}: {what} is a folder, not a file") from None
    except json.JSONDecodeError as exc:
        raise PackError(f"{path.name}: invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    except UnicodeDecodeError as exc:
        raise PackError(f"{path.name}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None


def iter_jsonl(path: str | os.PathLike) -> Iterator[tuple[int, Any]]:
    """``(line number, value)`` for every non-blank line of a JSONL file, streamed."""
    name = os.path.basename(path)
    try:
        with open(path, encoding="utf-8") as fh:
            for lineno, line in enumerate(fh, 1):
                if line.strip():
                    try:
                        yield lineno, json.loads(line)
                    except json.JSONDecodeError as exc:
                        raise FormatError(f"{name} line {lineno}: invalid JSON: {exc.msg} (column {exc.colno})") from None
    except FileNotFoundError:
        raise FormatError(f"{path}: file not found") from None
    except IsADirectoryError:
        raise FormatError(f"{name}: a folder, not a file") from None
    except UnicodeDecodeError as exc:
        raise FormatError(f"{name}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None


def read_jsonl(path: str | os.PathLike) -> list[tuple[int, Any]]:
    """``(line number, value)`` for every non-blank line of a JSONL file."""
    return list(iter_jsonl(path))


def atomic_write_text(path: str | os.PathLike, text: str) -> None:
    """Write through a temporary file, fsync and a rename, so no half-written file is ever seen."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = new_temp(path.parent, path.name)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def atomic_write_json(path: str | os.PathLike, data: Any) -> None:
    """Write JSON (UTF-8, indented) atomically; see :func:`atomic_write_text`."""
    atomic_write_text(path, json.dumps(data, ensure_ascii=False, indent=2) + "\n")
