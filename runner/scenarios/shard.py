"""Deterministic shards of a run's selection, split by document.

``--shard i/n`` (shards numbered 1..n) runs one part of the selected scenarios. All
scenarios about one document stay in the same shard, so per-document statistics
(clustered errors) never straddle shards. The document key of a scenario is the source
document its benchmark names (``document(scenario)``: the run's reader, see
:class:`~auditpacks.judges.reader.Reader`), else the sha256 of its ``documents``, else
its name. Documents are dealt out in selection order, each to the shard holding the
fewest scenarios so far (ties: the lowest number), so the shards are balanced and
every machine computes the same split.

The run file records the spec, the selection's size and hash and each result's
position in the full selection; :mod:`runner.merge` checks these.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any, Callable, Mapping

from auditpacks.runner.models.errors import RunError
from auditpacks.runner.store.journal import scenario_key


@dataclass(frozen=True)
class ShardSpec:
    index: int   # 1-based
    count: int

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


def parse_spec(text: str) -> ShardSpec:
    """``"2/3"`` → ShardSpec(2, 3); shards are numbered from 1."""
    try:
        index, count = (int(part) for part in text.split("/"))
    except ValueError:
        raise RunError(f"--shard {text!r}: expected i/n, e.g. 1/4") from None
    if count < 1 or not 1 <= index <= count:
        raise RunError(f"--shard {text!r}: shards are numbered 1..n (got {index} of {count})")
    return ShardSpec(index, count)


#: The source document a scenario belongs to, as its benchmark names it (None: none named).
Document = Callable[[Mapping[str, Any]], Any]


def document_key(scenario: Mapping[str, Any], document: Document | None = None) -> str:
    """The key of the document a scenario is about: ``document(scenario)`` where that names one, else its
    documents' content (a stub's precomputed key), else its name."""
    named = document(scenario) if document is not None else None
    if named not in (None, ""):
        return f"document:{named}"
    precomputed = getattr(scenario, "doc_key", None)
    if precomputed:
        return precomputed
    if scenario.get("documents"):
        blob = json.dumps(scenario["documents"], sort_keys=True, ensure_ascii=False, default=str)
        return "documents:" + hashlib.sha256(blob.encode("utf-8")).hexdigest()
    return "name:" + str(scenario.get("name"))


def assign(scenarios: list[Mapping[str, Any]], count: int, document: Document | None = None) -> list[int]:
    """The shard (1-based) of each scenario."""
    shard_of: dict[str, int] = {}
    sizes = [0] * count
    out = []
    for scenario in scenarios:
        key = document_key(scenario, document)
        if key not in shard_of:
            shard_of[key] = min(range(count), key=lambda i: (sizes[i], i))
        sizes[shard_of[key]] += 1
        out.append(shard_of[key] + 1)
    return out


def selection_hash(scenarios: list[Mapping[str, Any]]) -> str:
    """One hash over the whole selection (content keys, in order)."""
    return hashlib.sha256("\n".join(scenario_key(s) for s in scenarios).encode()).hexdigest()


def take(scenarios: list[dict[str, Any]], spec: ShardSpec,
         document: Document | None = None) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """This shard's scenarios and the record the run file keeps about it."""
    shards = assign(scenarios, spec.count, document)
    positions = [i for i, shard in enumerate(shards) if shard == spec.index]
    record = {
        "spec": str(spec), "index": spec.index, "count": spec.count, "split_by": "document",
        "selected": len(scenarios), "selection_sha256": selection_hash(scenarios), "positions": positions,
    }
    return [scenarios[i] for i in positions], record


def produced(record: dict[str, Any], assigned: list[dict[str, Any]], kept: list[dict[str, Any]]) -> dict[str, Any]:
    """The shard record with ``positions`` narrowed to the scenarios that have a result (some may be skipped)."""
    position = {id(s): p for s, p in zip(assigned, record["positions"])}
    return {**record, "assigned": len(assigned), "positions": [position[id(s)] for s in kept]}
