"""Read a pack without holding it: scenarios streamed one at a time, with their byte ranges.

A pack is one JSON list of scenario objects (often hundreds of megabytes). :func:`scan`
reads it once in chunks, finds where each scenario object starts and ends (one linear pass that steps over whole
strings, so braces inside text never count), parses each
object on its own, hashes the file's bytes as they go by and, at the end, checks that
hash against the manifest's ``sha256``. Only what ``extract`` returns for each
scenario is kept, beside its byte range and a digest of its bytes, so a later
:meth:`PackIndex.load` reads one scenario back by ``seek`` and refuses bytes that are
not the ones the verified pass saw. The pack format itself is unchanged.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

from auditpacks.core.errors import PackError
from auditpacks.core.io import parse_json, read_json

CHUNK = 1 << 20
#: Outside a string: where one starts or the nesting changes.
_STRUCTURE = re.compile(rb'[{}\[\]"]')
_SPACE = b" \t\r\n"


@dataclass
class Entry:
    start: int
    end: int
    digest: bytes
    info: Any


@dataclass
class PackIndex:
    """A verified pack as byte ranges: ``entries[i]`` is scenario ``i``; ``load(i)`` reads it back."""

    path: Path
    manifest: dict[str, Any] | None
    sha256: str
    entries: list[Entry] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.path.name[:-5] if self.path.name.endswith(".json") else self.path.name

    def __len__(self) -> int:
        return len(self.entries)

    def load(self, index: int) -> dict[str, Any]:
        """Scenario ``index``, read from disk and checked against the bytes the verified pass hashed."""
        entry = self.entries[index]
        with open(self.path, "rb") as fh:
            fh.seek(entry.start)
            raw = fh.read(entry.end - entry.start)
        if _digest(raw) != entry.digest:
            raise PackError(f"{self.path.name}: record #{index} changed on disk since the pack was verified")
        return json.loads(raw)


def _digest(raw: bytes) -> bytes:
    return hashlib.blake2b(raw, digest_size=16).digest()


def manifest_path(pack_path: str | os.PathLike) -> Path:
    pack_path = Path(pack_path)
    stem = pack_path.name[:-5] if pack_path.name.endswith(".json") else pack_path.name
    return pack_path.with_name(f"{stem}.manifest.json")


def read_manifest(mpath: Path) -> dict[str, Any]:
    """A pack's manifest: a JSON object (anything else is a one-line error)."""
    manifest = read_json(mpath, "manifest")
    if not isinstance(manifest, dict):
        kind = "null" if manifest is None else f"a {type(manifest).__name__}"
        raise PackError(f"{mpath.name}: a manifest is a JSON object, found {kind}")
    return manifest


def check_digest(path: Path, sha: str, manifest: dict[str, Any] | None) -> None:
    """Refuse a pack whose sha256 is not the one its manifest records."""
    if manifest is not None and manifest.get("sha256") != sha:
        raise PackError(
            f"{path.name}: sha256 {sha[:12]}… does not match {manifest_path(path).name} field sha256 "
            f"{str(manifest.get('sha256'))[:12]}…; the pack was changed after it was built")


def scan(path: str | os.PathLike, extract: Callable[[int, dict[str, Any]], Any] = lambda i, s: None, *,
         require_manifest: bool = False) -> PackIndex:
    """Index the pack at ``path``, keeping ``extract(index, scenario)`` per scenario; verified against
    the manifest (when there is one) once the last byte has been read."""
    path = Path(path)
    if not path.is_file():
        raise PackError(f"{path}: no such pack file")
    mpath = manifest_path(path)
    manifest = read_manifest(mpath) if mpath.is_file() else None
    if manifest is None and require_manifest:
        raise PackError(f"{path.name}: no manifest {mpath.name} beside it")
    digest = hashlib.sha256()
    entries = []
    for index, (start, end, raw) in enumerate(_objects(path, digest)):
        scenario = _parse(path, index, raw)
        entries.append(Entry(start, end, _digest(raw), extract(index, scenario)))
    sha = digest.hexdigest()
    check_digest(path, sha, manifest)
    return PackIndex(path=path, manifest=manifest, sha256=sha, entries=entries)


def _parse(path: Path, index: int, raw: bytes) -> dict[str, Any]:
    try:
        scenario = parse_json(raw, f"{path.name}: record #{index}", PackError, strict=True)
    except json.JSONDecodeError as exc:
        raise PackError(f"{path.name}: record #{index}: invalid JSON at its character {exc.pos}: {exc.msg}") from None
    except UnicodeDecodeError as exc:
        raise PackError(f"{path.name}: record #{index}: not UTF-8 text ({exc.reason})") from None
    check_shape(path, index, scenario)
    return scenario


#: Fields a run reads from every scenario, and the type each must have when present.
SHAPES = {"metadata": dict, "documents": list, "decision": dict, "test_prompt": str, "expected_behavior": list}


def check_shape(path: Path, index: int, scenario: Any) -> None:
    """Refuse, in one line, a record a run could not read: not an object, no name or description, or a
    field of :data:`SHAPES` of another type (``auditpacks check`` says more; this holds even with --no-check)."""
    if not isinstance(scenario, dict):
        raise PackError(f"{path.name}: record #{index} is {_kind(scenario)}, not a scenario object")
    for key in ("name", "description"):
        if not isinstance(scenario.get(key), str):
            raise PackError(f"{path.name}: record #{index} field {key!r} is missing or not a string")
    for key, kind in SHAPES.items():
        if scenario.get(key) is not None and not isinstance(scenario[key], kind):
            raise PackError(f"{path.name}: record #{index} field {key!r} is {_kind(scenario[key])}, "
                            f"not {'an object' if kind is dict else 'a ' + kind.__name__}")


def _kind(value: Any) -> str:
    return "null" if value is None else f"a {type(value).__name__}"


class _Reader:
    """A window on the file: ``buf`` holds the bytes from file offset ``base`` on."""

    def __init__(self, fh, digest) -> None:
        self.fh, self.digest = fh, digest
        self.buf, self.base = bytearray(), 0  # grown in place: a huge object is copied once, not per chunk

    def more(self, keep: int) -> bool:
        """Read the next chunk, forgetting the bytes before file offset ``keep``; False at the end."""
        chunk = self.fh.read(CHUNK)
        if not chunk:
            return False
        self.digest.update(chunk)
        if keep > self.base:
            del self.buf[:keep - self.base]
            self.base = keep
        self.buf += chunk
        return True

    def next_byte(self, at: int) -> tuple[int, bytes]:
        """The offset and value of the first non-space byte at or after ``at`` (``b""`` at the end)."""
        while True:
            i, n = at - self.base, len(self.buf)
            while i < n and self.buf[i] in _SPACE:
                i += 1
            at = self.base + i
            if i < n:
                return at, bytes(self.buf[i:i + 1])
            if not self.more(at):
                return at, b""


def _objects(path: Path, digest) -> Iterator[tuple[int, int, bytes]]:
    """``(start, end, bytes)`` of each element of the top-level JSON list; the whole file goes into ``digest``."""
    with open(path, "rb") as fh:
        reader = _Reader(fh, digest)
        at, byte = reader.next_byte(0)
        if byte == b"\xef" and reader.buf[:3] == b"\xef\xbb\xbf":
            at, byte = reader.next_byte(3)
        if byte != b"[":
            raise PackError(f"{path.name}: a pack is a JSON list of scenarios")
        at, byte = reader.next_byte(at + 1)
        index = 0
        while byte != b"]":
            if byte != b"{":
                raise PackError(f"{path.name}: record #{index} is not a scenario object"
                                + (" (the file ends inside the list)" if not byte else ""))
            end = _object_end(reader, at)
            if end is None:
                raise PackError(f"{path.name}: record #{index} is cut short (the file ends inside it)")
            yield at, end, bytes(reader.buf[at - reader.base:end - reader.base])
            index += 1
            at, byte = reader.next_byte(end)
            if byte == b",":
                at, byte = reader.next_byte(at + 1)
                if byte == b"]":
                    raise PackError(f"{path.name}: a comma after the last record, at byte {at}")
            elif byte != b"]":
                raise PackError(f"{path.name}: after record #{index - 1}: expected ',' or ']' at byte {at}")
        at, byte = reader.next_byte(at + 1)
        if byte:
            raise PackError(f"{path.name}: extra data after the list at byte {at}")


def _object_end(reader: _Reader, start: int) -> int | None:
    """The file offset just past the object starting at ``start`` (reading more as needed).

    One pass, whatever the object holds: the scan keeps its place (depth, inside a string, an escape
    cut by the chunk's end) across reads, so a 50 MB string or a run of backslashes is read once."""
    depth, in_string, escaped, at = 0, False, False, start
    while True:
        buf, base = reader.buf, reader.base
        i = at - base
        while i < len(buf):
            if escaped:
                i, escaped = i + 1, False
            elif in_string:  # the next quote ends the string unless an odd run of backslashes precedes it
                quote = buf.find(b'"', i)
                stop = len(buf) if quote < 0 else quote
                backslashes = (stop - i) - len(buf[i:stop].rstrip(b"\\"))
                if quote < 0:
                    i, escaped = stop, backslashes % 2 == 1
                else:
                    i, in_string = quote + 1, backslashes % 2 == 1
            else:
                found = _STRUCTURE.search(buf, i)
                if found is None:
                    i = len(buf)
                    break
                i, token = found.end(), found.group()
                if token == b'"':
                    in_string = True
                    continue
                depth += 1 if token in (b"{", b"[") else -1
                if depth == 0:
                    return base + i
        at = base + i
        if not reader.more(start):
            return None
