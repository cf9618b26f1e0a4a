"""The performance block of a merged run: the shards' blocks added up.

Counts (documents, requests, tokens, batches, per-size batch counts) are summed, lists
(decision-batching fallbacks) are joined, per-endpoint entries are added up per base URL,
and settings (prompt order, scheduling, concurrency, slot pinning, batch size) are kept
as the shards had them: one value when they agree, the list of shard values otherwise.
The cache block and the ``cost`` block add up the same way; a summed cost's cache-hit rate is
recomputed from the summed tokens, never added.
"""

from __future__ import annotations

from typing import Any, Mapping

#: Keys that hold a setting, never a count.
SETTINGS = {"prompt_order", "scheduling", "concurrency", "slot_pinning", "batch_questions", "assignment",
            "base_url", "state", "price_table_date", "way", "tokenizer"}


def sum_blocks(blocks: list[Mapping[str, Any] | None]) -> dict[str, Any] | None:
    """Any count blocks (a cache block's hits, misses and writes) as one, the way performance is summed."""
    return sum_performance(blocks)


def sum_cost(blocks: list[Mapping[str, Any] | None]) -> dict[str, Any] | None:
    """The shards' ``cost`` blocks as one: quotes, tokens and costs summed, the hit rate recomputed."""
    total = sum_performance(blocks)
    incurred = (total or {}).get("incurred")
    if isinstance(incurred, dict) and "cache_hit_rate" in incurred:
        read, sent = incurred.get("cached_input") or 0, incurred.get("input") or 0
        incurred["cache_hit_rate"] = read / sent if sent else None
    return total


def sum_performance(blocks: list[Mapping[str, Any] | None]) -> dict[str, Any] | None:
    """The shards' performance blocks (in shard order) as one."""
    present = [b for b in blocks if b]
    if not present:
        return None
    return _sum_dicts(present)


def _sum_dicts(dicts: list[Mapping[str, Any]]) -> dict[str, Any]:
    keys: dict[str, None] = {}
    for d in dicts:
        keys.update(dict.fromkeys(d))
    return {key: _sum_values(key, [d[key] for d in dicts if key in d]) for key in keys}


def _sum_values(key: str, values: list[Any]) -> Any:
    if key == "endpoints":
        return _sum_endpoints(values)
    known = [v for v in values if v is not None]
    if not known:
        return None
    if key in SETTINGS or not all(_same_kind(v, known[0]) for v in known):
        return known[0] if all(v == known[0] for v in known) else known
    first = known[0]
    if isinstance(first, Mapping):
        return _sum_dicts(known)
    if isinstance(first, list):
        return [item for v in known for item in v]
    if isinstance(first, (int, float)) and not isinstance(first, bool):
        total = sum(known)
        return round(total, 6) if isinstance(total, float) else total
    return first if all(v == first for v in known) else known


def _same_kind(value: Any, first: Any) -> bool:
    if isinstance(first, bool) or isinstance(value, bool):
        return isinstance(first, bool) and isinstance(value, bool)
    if isinstance(first, (int, float)):
        return isinstance(value, (int, float))
    return isinstance(value, type(first))


def _sum_endpoints(lists: list[Any]) -> list[dict[str, Any]]:
    """Per-endpoint entries of every shard, added up per ``base_url`` (first appearance order)."""
    by_url: dict[str, list[Mapping[str, Any]]] = {}
    for entries in lists:
        for entry in entries or []:
            by_url.setdefault(str(entry.get("base_url")), []).append(entry)
    return [_sum_dicts(group) for group in by_url.values()]
