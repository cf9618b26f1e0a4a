"""Lines read under budgets: each line capped, the whole capped, whatever the bytes come from.

A stream of byte chunks (a download, a file) is cut into lines without ever holding more than one
line of at most ``max_line`` bytes: a longer line is not kept but handed on as an :class:`Overlong`
marker (its number and true size), its rest read and dropped, so the caller can record it against
what it was for and go on. At ``max_total`` bytes, :class:`LinesTooLarge` stops the read, its
message naming the source and the limit. :func:`file_lines` reads a file this way and refuses what
is not a regular file (a device such as ``/dev/zero``, a pipe, a folder), which would never end;
:func:`read_capped` reads a small one whole.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator

from auditpacks.core.errors import UserError

_CHUNK = 1 << 20


class LinesTooLarge(UserError):
    """A stream of lines over its byte cap (one line: the source and the limit)."""


#: Bytes of an over-long line kept (its start, where a record's id usually stands).
HEAD_BYTES = 4096


@dataclass(frozen=True)
class Overlong:
    """A line over the cap: its number (1-based), its true size in bytes and its first :data:`HEAD_BYTES`
    bytes; the rest of it was not kept."""

    number: int
    size: int
    head: bytes = b""


def size_text(limit: int) -> str:
    """A byte count as the error lines give it (MiB from 1 MiB up)."""
    return f"{limit / 2**20:g} MiB" if limit >= 2**20 else f"{limit} bytes"


def _head(pieces: list[bytes]) -> bytes:
    head = b""
    for piece in pieces:
        head += piece[:HEAD_BYTES - len(head)]
        if len(head) >= HEAD_BYTES:
            break
    return head


def capped_lines(chunks: Iterable[bytes], *, source: str, max_line: int, max_total: int,
                 hint: str = "") -> Iterator[bytes | Overlong]:
    """Each line of ``chunks`` (its newline dropped; the last one even without a newline), or an
    :class:`Overlong` for one over ``max_line`` bytes; :class:`LinesTooLarge` past ``max_total`` bytes
    (``hint``: what raises the limit, put in the message)."""
    total, number, size, parts, head = 0, 1, 0, [], b""
    for chunk in chunks:
        total += len(chunk)
        if total > max_total:
            raise LinesTooLarge(f"{source}: over the {size_text(max_total)} cap{f' ({hint})' if hint else ''}; "
                                "the rest was not read")
        start = 0
        while start < len(chunk):
            end = chunk.find(b"\n", start)
            piece = chunk[start:] if end < 0 else chunk[start:end]
            size += len(piece)
            if size <= max_line:
                parts.append(piece)
            elif parts or not head:
                head, parts = _head([*parts, piece]), []
            if end < 0:
                break
            yield b"".join(parts) if size <= max_line else Overlong(number, size, head)
            number, size, parts, head, start = number + 1, 0, [], b"", end + 1
    if size:
        yield b"".join(parts) if size <= max_line else Overlong(number, size, head)


def file_lines(path: str | os.PathLike, *, max_line: int, max_total: int, what: str = "file",
               hint: str = "") -> Iterator[bytes | Overlong]:
    """The lines of a regular file under the budgets of :func:`capped_lines`; anything else is a one-line
    :class:`UserError` naming the file."""
    path = Path(path)
    refused = UserError(f"{path.name}: {what} is not a regular file (a device, pipe or folder); not read")
    if not stat.S_ISREG(os.stat(path).st_mode):  # before opening: opening a pipe would wait for a writer
        raise refused
    with open(path, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
            raise refused
        yield from capped_lines(iter(lambda: fh.read(_CHUNK), b""), source=f"{path.name} ({what})",
                                max_line=max_line, max_total=max_total, hint=hint)


def read_capped(path: str | os.PathLike, max_bytes: int, *, what: str = "file") -> bytes:
    """A small regular file's bytes, at most ``max_bytes`` of them; else a one-line :class:`UserError`."""
    data = b"".join(line + b"\n" for line in file_lines(path, max_line=max_bytes, max_total=max_bytes, what=what)
                    if not isinstance(line, Overlong))
    return data
