"""File I/O every layer shares: hashes, JSON and JSONL readers with one-line errors, atomic writes."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import tempfile
from pathlib import Path
from typing import Any, Iterator

from auditpacks.core.errors import FormatError, PackError

_CHUNK = 1 << 20
#: A ``\\uD800``–``\\uDFFF`` escape that is not half of a surrogate pair (text no UTF-8 file can hold).
_LONE_SURROGATE = re.compile(r"(?<!\\)\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F][0-9a-fA-F]{2})"
                             r"|(?<![0-9a-fA-F]{4})(?<!\\)\\u[dD][c-fC-F][0-9a-fA-F]{2}")


class _NotStrict(Exception):
    """What strict JSON refuses (raised inside the parser's hooks, phrased by :func:`parse_json`)."""


def _strict_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    value = dict(pairs)
    if len(value) != len(pairs):
        seen: set[str] = set()
        twice = next(key for key, _ in pairs if key in seen or seen.add(key))
        raise _NotStrict(f"key {twice[:80]!r} appears twice in one object")
    return value


def _strict_constant(name: str) -> Any:
    raise _NotStrict(f"{name} is not a JSON number")


def parse_json(text: str | bytes, where: str, error: type[Exception] = FormatError, *, strict: bool = False) -> Any:
    """``text`` parsed as JSON. What Python's parser takes but cannot use (nesting deeper than the
    interpreter's limit, an integer of thousands of digits, a lone surrogate) is one line naming ``where``
    (the file, and the record or line); with ``strict``, so are ``NaN``/``Infinity`` and a key given twice
    in one object (which JSON leaves undefined); a syntax or encoding error is left to the caller to phrase."""
    try:
        value = json.loads(text, object_pairs_hook=_strict_pairs, parse_constant=_strict_constant) if strict \
            else json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise
    except _NotStrict as exc:
        raise error(f"{where}: {exc}") from None
    except RecursionError:
        raise error(f"{where}: JSON nested too deeply to read") from None
    except ValueError as exc:  # int() refuses numbers of more than sys.get_int_max_str_digits() digits
        raise error(f"{where}: a number too long to read ({str(exc).split(':')[0]})") from None
    if isinstance(text, (bytes, bytearray)):
        text = text.decode("utf-8", "replace") if b"\\u" in text else ""
    lone = _LONE_SURROGATE.search(text) if "\\u" in text else None
    if lone:
        raise error(f"{where}: a lone UTF-16 surrogate {lone.group()} at character {lone.start()}, which is not text")
    return value


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
        return parse_json(path.read_text(encoding="utf-8"), path.name, PackError)
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
                        yield lineno, parse_json(line, f"{name} line {lineno}")
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


@contextlib.contextmanager
def writing(path: str | os.PathLike) -> Iterator[None]:
    """Name ``path`` in an ``OSError`` raised while writing it that names no file (a write to a file descriptor:
    ``[Errno 27] File too large``, ``[Errno 28] No space left on device``)."""
    try:
        yield
    except OSError as exc:
        if exc.filename is not None or exc.errno is None:
            raise
        raise OSError(exc.errno, exc.strerror or str(exc), str(path)) from None


def appendable(path: str | os.PathLike, what: str, error: type[Exception] = PackError) -> Path:
    """``path``, when it is absent or a regular file of its own: a file a run appends to is never a link (its
    writes would land elsewhere) nor a device; else a one-line ``error`` naming it."""
    path = Path(path)
    if path.is_symlink() or (path.exists() and not path.is_file()):
        raise error(f"{path.name}: the {what} is a link or not a regular file; a run writes only plain files in "
                    "its folder: move it away")
    return path


def atomic_write_text(path: str | os.PathLike, text: str) -> None:
    """Write through a temporary file, fsync and a rename, so no half-written file is ever seen."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = new_temp(path.parent, path.name)
    try:
        with writing(path), os.fdopen(fd, "w", encoding="utf-8") as fh:
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
