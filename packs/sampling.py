"""Seeded, stratified sampling shared by builders and runs, so both pick the same scenarios, and the
one rule for a selection that comes out smaller than asked."""

from __future__ import annotations

import random
import sys
from typing import Any, Callable, Sequence, TypeVar

from auditpacks.core.errors import PackError

T = TypeVar("T")


def per_group(items: Sequence[T], n: int, *, seed: int, key: Callable[[T], Any]) -> list[T]:
    """At most ``n`` items per ``key(item)``, drawn with ``random.Random(seed)``; input order kept.

    Groups are visited in sorted order of their key's text, so the draw does not
    depend on the order in which groups first appear.
    """
    groups: dict[Any, list[int]] = {}
    for index, item in enumerate(items):
        groups.setdefault(key(item), []).append(index)
    rng = random.Random(seed)
    chosen = sorted(i for _, members in sorted(groups.items(), key=lambda kv: str(kv[0]))
                    for i in (members if len(members) <= n else rng.sample(members, n)))
    return [items[i] for i in chosen]


def check_count(got: int, asked: int | None, what: str, *, allow_fewer: bool = False) -> None:
    """A selection never shrinks silently: fewer than ``asked`` is a one-line :class:`PackError`, or with
    ``allow_fewer`` (``--allow-fewer``) a one-line note on stderr."""
    if asked is None or got >= asked:
        return
    message = f"{what}: asked for {asked} scenarios, the selection has {got}"
    if not allow_fewer:
        raise PackError(f"{message} (--allow-fewer accepts fewer)")
    print(f"note: {message}; going on with {got} (--allow-fewer)", file=sys.stderr)
