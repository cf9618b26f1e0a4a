"""Which document group a free worker runs next, and in which slot lane.

Without a placement every group has one home: workers take groups in order of first
appearance, and a group's lane is the lowest lane no other running group holds (slot
pinning sends the lane as llama.cpp's ``id_slot``), so N workers use lanes 0..N-1.

With several endpoints, a placement (the endpoint pool) names each group's home: the
endpoint its document goes to. A free worker takes the earliest group of the home that
runs the fewest groups, and no home runs more than its share of the workers,
``ceil(concurrency / live endpoints)``. Every endpoint works from the start, and each
uses only the lanes its share needs: a replica reads the prompt head all documents share
once per lane, as one server reads it once per slot, so spreading documents over
replicas reads no more prompt tokens than one server. A worker with nothing left under
its share waits for a running group to finish. When an endpoint is taken out, the
groups still waiting are placed again among the live ones.
"""

from __future__ import annotations

import asyncio
import math
from collections import Counter, deque
from dataclasses import dataclass
from typing import Hashable, Protocol


class Placement(Protocol):
    def home(self, key: str) -> Hashable: ...
    def live_count(self) -> int: ...


@dataclass(frozen=True)
class Lease:
    """A group handed to a worker: its scenario indices, its document key, its home and its lane."""

    members: list[int]
    key: str
    home: Hashable
    lane: int


class GroupScheduler:
    """Hands out document groups to ``concurrency`` workers (see the module docstring)."""

    def __init__(self, groups: list[list[int]], keys: list[str], concurrency: int,
                 placement: Placement | None = None) -> None:
        self.concurrency = max(1, concurrency)
        self.placement = placement
        self.keys = dict(zip(map(_first, groups), keys))
        self.running: Counter = Counter()
        self.lanes: dict[Hashable, set[int]] = {}
        self._live = placement.live_count() if placement else 1
        self._changed = asyncio.Event()
        self.queues: dict[Hashable, deque[tuple[int, list[int]]]] = {}
        self._place(list(enumerate(groups)))

    def _home(self, members: list[int]) -> Hashable:
        return self.placement.home(self.keys[_first(members)]) if self.placement else None

    def _place(self, entries: list[tuple[int, list[int]]]) -> None:
        for order, members in sorted(entries, key=lambda entry: entry[0]):
            self.queues.setdefault(self._home(members), deque()).append((order, members))

    def _replace_if_endpoints_changed(self) -> None:
        live = self.placement.live_count() if self.placement else 1
        if live != self._live:
            self._live = live
            waiting = [entry for queue in self.queues.values() for entry in queue]
            self.queues = {}
            self._place(waiting)

    def share(self) -> int:
        """The most groups one home runs at once."""
        return math.ceil(self.concurrency / max(1, self._live))

    def pending(self) -> int:
        return sum(len(queue) for queue in self.queues.values())

    def _next(self) -> Lease | None:
        self._replace_if_endpoints_changed()
        share = self.share()
        open_homes = [home for home, queue in self.queues.items() if queue and self.running[home] < share]
        if not open_homes:
            return None
        home = min(open_homes, key=lambda h: (self.running[h], self.queues[h][0][0]))
        _, members = self.queues[home].popleft()
        held = self.lanes.setdefault(home, set())
        lane = next(n for n in range(len(held) + 1) if n not in held)
        held.add(lane)
        self.running[home] += 1
        return Lease(members=members, key=self.keys[_first(members)], home=home, lane=lane)

    async def take(self) -> Lease | None:
        """The next group for a free worker, waiting while every home with work is at its share; None when
        no group is left."""
        while self.pending():
            lease = self._next()
            if lease is not None:
                return lease
            self._changed.clear()
            await self._changed.wait()
        return None

    def release(self, lease: Lease) -> None:
        """The worker finished ``lease``'s group (or gave up on it)."""
        self.running[lease.home] -= 1
        self.lanes[lease.home].discard(lease.lane)
        self._changed.set()


def _first(members: list[int]) -> int:
    return members[0]
