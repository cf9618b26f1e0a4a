"""The run's view of a pack: small stubs to select, split and schedule; whole scenarios read one at a time.

:func:`open_pack` streams the pack once (verified against its manifest, see
:mod:`auditpacks.packs.stream`) and keeps, per scenario, a :class:`Stub`: its name,
its metadata without the judge notes, whether it has documents and a decision, and
its journal key and document key computed from the whole scenario. Selection,
sharding and grouping work on stubs; :class:`LazyScenarios` hands the executor one
whole scenario at a time, read back from disk by byte range. A full-size pack (about
a gigabyte of JSON) is therefore never held in memory.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from pathlib import Path
from typing import Any, Iterator

from auditpacks.packs.checks import Finding, PackChecker
from auditpacks.packs.stream import PackIndex, scan
from auditpacks.runner.store.journal import scenario_key
from auditpacks.runner.scenarios.shard import document_key


class Stub(dict):
    """A scenario reduced to ``name``, ``metadata`` (less ``judge_notes``), ``documents`` (``True`` when
    present) and ``decision`` (its ``id`` only, when present). ``index`` is its place in the pack;
    ``content_key`` and ``doc_key`` are the journal key and the generic document key (by content, else by
    name) of the whole scenario (``scenario_key`` and ``document_key`` use them)."""

    __slots__ = ("index", "content_key", "doc_key")


def make_stub(index: int, scenario: dict[str, Any]) -> Stub:
    metadata = scenario.get("metadata")
    if isinstance(metadata, dict):
        metadata = {k: v for k, v in metadata.items() if k != "judge_notes"}
    stub = Stub(name=scenario["name"], metadata=metadata)
    if scenario.get("documents"):
        stub["documents"] = True
    decision = scenario.get("decision")
    if decision:
        stub["decision"] = {"id": decision.get("id") if isinstance(decision, dict) else None}
    stub.index, stub.content_key, stub.doc_key = index, scenario_key(scenario), document_key(scenario)
    return stub


@dataclass
class StreamedPack:
    """A verified pack: ``scenarios`` are stubs (pack order); :meth:`load` reads one whole scenario."""

    index: PackIndex
    scenarios: list[Stub]
    findings: list[Finding] = dataclass_field(default_factory=list)  # ``auditpacks check``'s, when asked for

    @property
    def path(self) -> Path:
        return self.index.path

    @property
    def manifest(self) -> dict[str, Any] | None:
        return self.index.manifest

    @property
    def sha256(self) -> str:
        return self.index.sha256

    @property
    def name(self) -> str:
        return self.index.name

    def load(self, stub: Stub) -> dict[str, Any]:
        return self.index.load(stub.index)

    def lazy(self, stubs: list[Stub]) -> "LazyScenarios":
        return LazyScenarios(self, list(stubs))


def open_pack(path: str | os.PathLike, *, check: bool = False) -> StreamedPack:
    """The pack as stubs, verified against its manifest; with ``check``, the pack checks run as it streams."""
    checker = PackChecker() if check else None

    def extract(index: int, scenario: dict[str, Any]) -> Stub:
        if checker is not None:
            checker.add(scenario)
        return make_stub(index, scenario)

    index = scan(path, extract)
    return StreamedPack(index=index, scenarios=[entry.info for entry in index.entries],
                        findings=checker.finish() if checker else [])


class LazyScenarios(Sequence):
    """Scenarios read from disk when asked for; ``stubs`` are what the executor groups and keys by."""

    def __init__(self, pack: StreamedPack, stubs: list[Stub]) -> None:
        self.pack, self.stubs = pack, stubs

    def __len__(self) -> int:
        return len(self.stubs)

    def __getitem__(self, position):  # type: ignore[override]
        if isinstance(position, slice):
            return LazyScenarios(self.pack, self.stubs[position])
        return self.pack.load(self.stubs[position])

    def __iter__(self) -> Iterator[dict[str, Any]]:
        for stub in self.stubs:
            yield self.pack.load(stub)

    def __repr__(self) -> str:
        return f"<{len(self.stubs)} scenarios of {self.pack.path.name}>"
