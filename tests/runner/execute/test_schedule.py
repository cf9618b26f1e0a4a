"""The group scheduler: order, lanes, each endpoint's share of the workers, re-placement after failover."""

from __future__ import annotations

import asyncio

from auditpacks.runner.execute.schedule import GroupScheduler


class Homes:
    """A placement from a fixed table; ``out`` endpoints send their keys to ``fallback``."""

    def __init__(self, table: dict[str, str], fallback: str = "") -> None:
        self.table, self.fallback, self.out = table, fallback, set()

    def home(self, key: str) -> str:
        home = self.table[key]
        return self.fallback if home in self.out else home

    def live_count(self) -> int:
        return len(set(self.table.values()) - self.out)


def run(coroutine):
    return asyncio.run(coroutine)


def test_without_placement_groups_go_in_order_and_lanes_are_reused():
    async def go():
        s = GroupScheduler([[0], [1, 2], [3]], ["a", "b", "c"], concurrency=2)
        first, second = await s.take(), await s.take()
        assert (first.members, first.lane, second.members, second.lane) == ([0], 0, [1, 2], 1)
        assert (first.key, second.key) == ("a", "b")   # the group's document key travels with it
        s.release(first)
        third = await s.take()
        assert (third.members, third.lane) == ([3], 0)   # lane 0 is free again
        s.release(second)
        s.release(third)
        assert await s.take() is None
    run(go())


def test_each_endpoint_gets_work_and_runs_only_its_share():
    homes = Homes({"a": "X", "b": "X", "c": "Y", "d": "Y"})

    async def go():
        s = GroupScheduler([[0], [1], [2], [3]], ["a", "b", "c", "d"], concurrency=2, placement=homes)
        assert s.share() == 1
        first, second = await s.take(), await s.take()
        # X's first group, then Y's (Y runs nothing; X already runs its share), both in lane 0
        assert [(first.members, first.home, first.lane), (second.members, second.home, second.lane)] == [
            ([0], "X", 0), ([2], "Y", 0)]
        waiting = asyncio.ensure_future(s.take())
        await asyncio.sleep(0)
        assert not waiting.done()          # both homes at their share: the third worker waits
        s.release(second)
        third = await waiting
        assert (third.members, third.home, third.lane) == ([3], "Y", 0)
    run(go())


def test_failover_places_waiting_groups_again_and_raises_the_share():
    homes = Homes({"a": "X", "b": "X", "c": "Y", "d": "Y"}, fallback="X")

    async def go():
        s = GroupScheduler([[0], [1], [2], [3]], ["a", "b", "c", "d"], concurrency=2, placement=homes)
        first = await s.take()
        homes.out.add("Y")               # Y is taken out: its waiting groups move to X
        second = await s.take()
        assert s.share() == 2 and s._live == 1
        assert (second.members, second.home, second.lane) == ([1], "X", 1)
        s.release(first)
        third = await s.take()
        assert (third.members, third.home, third.lane) == ([2], "X", 0)
    run(go())


def test_concurrency_above_the_endpoints_splits_evenly():
    homes = Homes({k: ("X" if i % 2 else "Y") for i, k in enumerate("abcdef")})

    async def go():
        s = GroupScheduler([[i] for i in range(6)], list("abcdef"), concurrency=4, placement=homes)
        leases = [await s.take() for _ in range(4)]
        assert sorted((lease.home, lease.lane) for lease in leases) == [("X", 0), ("X", 1), ("Y", 0), ("Y", 1)]
    run(go())


async def taken_at_once(scheduler: GroupScheduler, count: int) -> list:
    """The leases ``count`` workers get without waiting (a worker that would wait gets None)."""
    leases = []
    for _ in range(count):
        task = asyncio.ensure_future(scheduler.take())
        await asyncio.sleep(0)
        leases.append(task.result() if task.done() else None)
        if not task.done():
            task.cancel()
    return leases


def test_without_placement_every_worker_runs_at_once_and_no_more():
    async def go():
        three = await taken_at_once(GroupScheduler([[i] for i in range(5)], list("abcde"), concurrency=3), 4)
        assert [lease.lane if lease else None for lease in three] == [0, 1, 2, None]
        one = GroupScheduler([[0], [1]], ["a", "b"], concurrency=1)
        first, second = await taken_at_once(one, 2)
        assert first.members == [0] and second is None   # one worker: the second group waits
        one.release(first)
        assert (await one.take()).members == [1]
    run(go())


def test_a_release_frees_exactly_one_place():
    async def go():
        s = GroupScheduler([[i] for i in range(4)], list("abcd"), concurrency=2)
        first, _ = await taken_at_once(s, 2)
        s.release(first)
        third, fourth = await taken_at_once(s, 2)
        assert third.members == [2] and fourth is None
    run(go())


def test_the_next_group_comes_from_the_home_running_fewest_not_the_first_by_name():
    homes = Homes({"a": "A", "b": "A", "c": "B", "d": "B"})

    async def go():
        s = GroupScheduler([[0], [1], [2], [3]], list("abcd"), concurrency=4, placement=homes)
        leases = await taken_at_once(s, 4)
        assert [(lease.home, lease.lane, lease.members) for lease in leases] == [
            ("A", 0, [0]), ("B", 0, [2]), ("A", 1, [1]), ("B", 1, [3])]
    run(go())


def test_a_home_never_runs_more_than_its_share():
    homes = Homes({"a": "X", "b": "X", "c": "X", "z": "Y"})

    async def go():
        # Y's only group is listed last; X holds three; 4 workers over 2 endpoints: a share of 2
        s = GroupScheduler([[0], [1], [2], [3]], ["a", "b", "c", "z"], concurrency=4, placement=homes)
        leases = await taken_at_once(s, 4)
        assert [(lease.home, lease.members) if lease else None for lease in leases] == [
            ("X", [0]), ("Y", [3]), ("X", [1]), None]   # X's third group waits for one of X's two
    run(go())
