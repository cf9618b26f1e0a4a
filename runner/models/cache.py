"""The response cache: content-addressed files, one per model reply, never evicted.

An entry's address is the sha256 of a canonical JSON *key* (sorted keys, no spaces,
UTF-8): model identity (name, and instead of the host the digest Ollama's ``show`` reports or the
``/models`` entry an OpenAI-compatible server gives, so replicas of one model share replies; where
no server says, the base URL), the full message list, the decoding parameters and the repeat
index (:meth:`ResponseCache.get` also reads the addresses earlier versions gave a reply). Transport
settings (time-outs, concurrency, retries) and keys are never part of it. Each entry
is written to a temporary file and renamed into place, so a crash leaves either the
whole entry or none. Entries live at ``DIR/ab/abcdef….json`` and hold the key beside
the reply, so a reader can check what it got.

URLs in a key lose their user name and password; a reply over :data:`MAX_ENTRY_BYTES`, or one
holding anything the redactor would blank out, is not stored, and a stored one that does is not
replayed.

Nothing is ever deleted: a stale entry simply stops being addressed once the model,
its digest or a parameter changes. ``DIR/models/`` remembers each Ollama model's
digest and context length so ``--cache-only`` can replay without a server.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path
from typing import Any, Mapping

from auditpacks.core.io import atomic_write_json
from auditpacks.core.redact import redact_data, without_credentials

KEY_VERSION = 1
#: Largest reply stored (its JSON, in bytes); a longer one is answered but not cached.
MAX_ENTRY_BYTES = 4 * 2**20


def storable_key(key: Mapping[str, Any]) -> dict[str, Any]:
    """``key`` as it is hashed and stored: URLs without their user name and password."""
    return {name: without_credentials(value) for name, value in key.items()}


def holds_secret(value: Any) -> bool:
    """Whether the redactor would blank anything out of ``value`` (a key, a password, a credential)."""
    return redact_data(value) != value


class CacheMiss(Exception):
    """``--cache-only`` and no entry for this request."""


def canonical(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str).encode("utf-8")


def digest(value: Any) -> str:
    return hashlib.sha256(canonical(value)).hexdigest()


class ResponseCache:
    """Replies addressed by their request; ``only=True`` turns every miss into :class:`CacheMiss`."""

    def __init__(self, root: str | os.PathLike, *, only: bool = False) -> None:
        self.root = Path(root)
        self.only = only
        self.hits = self.misses = self.writes = self.skipped = 0

    def path_for(self, key: Mapping[str, Any]) -> Path:
        address = digest({"v": KEY_VERSION, **storable_key(key)})
        return self.root / address[:2] / f"{address}.json"

    def get(self, key: Mapping[str, Any], *older: Mapping[str, Any]) -> dict[str, Any] | None:
        """The stored reply for ``key`` (else for the first of ``older``, the addresses earlier versions gave it),
        or None: one hit or one miss (an unreadable entry counts as a miss and is reported)."""
        path = self.path_for(key)
        for address in (key, *older):
            reply = self._read(address)
            if reply is not None:
                self.hits += 1
                return reply
        self.misses += 1
        if self.only:
            raise CacheMiss(f"no cached reply for this request in {self.root.name}/ (--cache-only; "
                            f"entry {path.stem[:12]}…)")
        return None

    def _read(self, key: Mapping[str, Any]) -> dict[str, Any] | None:
        path = self.path_for(key)
        try:
            entry = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValueError, RecursionError) as exc:
            print(f"auditpacks: cache entry {path.name} unreadable ({type(exc).__name__}); asking the model",
                  file=sys.stderr)
            return None
        wanted = canonical({"v": KEY_VERSION, **storable_key(key)})
        if isinstance(entry, dict) and canonical(entry.get("key")) == wanted:
            reply = entry.get("reply")
            if isinstance(reply, dict) and holds_secret(reply):  # never replay a secret into this run's files
                print(f"auditpacks: cache entry {path.name} holds a secret; asking the model", file=sys.stderr)
            elif isinstance(reply, dict) and isinstance(reply.get("content"), str):
                return reply
            else:
                print(f"auditpacks: cache entry {path.name} holds no reply; asking the model", file=sys.stderr)
        return None

    def put(self, key: Mapping[str, Any], reply: Mapping[str, Any]) -> None:
        """Store ``reply`` under ``key``, unless it is over :data:`MAX_ENTRY_BYTES` or holds anything the
        redactor would blank out (an echoed key or password): such a reply is used once and not kept."""
        entry = {"key": {"v": KEY_VERSION, **storable_key(key)}, "reply": dict(reply)}
        if len(canonical(entry["reply"])) > MAX_ENTRY_BYTES or holds_secret(entry):
            self.skipped += 1
            return
        atomic_write_json(self.path_for(key), entry)
        self.writes += 1

    # -- model facts, for replaying without a server ------------------------------------------
    def _model_path(self, base_url: str | None, model: str) -> Path:
        return self.root / "models" / f"{digest({'base_url': base_url, 'model': model})[:32]}.json"

    def remember_model(self, base_url: str | None, model: str, facts: Mapping[str, Any]) -> None:
        base_url = without_credentials(base_url)
        atomic_write_json(self._model_path(base_url, model), {"base_url": base_url, "model": model, **facts})

    def recall_model(self, base_url: str | None, model: str) -> dict[str, Any] | None:
        base_url = without_credentials(base_url)
        try:
            return json.loads(self._model_path(base_url, model).read_text(encoding="utf-8"))
        except (OSError, ValueError, RecursionError):
            return None

    def stats(self) -> dict[str, int]:
        return {"hits": self.hits, "misses": self.misses, "writes": self.writes}
