"""Seeded, stratified sampling shared by builders and runs, so both pick the same scenarios."""

from __future__ import annotations

import random
from typing import Any, Callable, Sequence, TypeVar

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
