"""Every installed benchmark, found through its entry point, and the general graders.

A benchmark registers one :class:`~auditpacks.core.benchmark.Benchmark` object in the entry-point
group ``auditpacks.benchmarks`` of its distribution's metadata; the entry point's name is the
benchmark's name. The three bundled benchmarks register themselves the same way in
``pyproject.toml``. The group is read on first use, not at import, and each entry loads only its
declaration (the modules it names are imported when used). An entry that fails to load is left
out with one line on stderr naming it and its distribution (:func:`skipped` keeps the lines); two
benchmarks of one name stop the program with a :class:`PluginError`.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Callable

from auditpacks.core.benchmark import Benchmark, Card, JudgeFlag
from auditpacks.core.errors import UserError, first_line

#: The entry-point group benchmark plugins register in.
GROUP = "auditpacks.benchmarks"

#: Judges any pack may name: simpleaudit's ``choice_match`` and ``checklist``, and our stricter ``choice``.
#: A general judge's headline and figures are ``headline(pairs)`` and ``figures(headline)`` in its module, unless
#: the benchmark that reads its run (:func:`readers`) pools it its own way.
GENERAL_JUDGES = {
    "choice_match": "auditpacks.judges.choice_match",
    "checklist": "auditpacks.judges.checklist",
    "choice": "auditpacks.judges.choice",
}
#: Judges that need a judge model (the rest grade in code: one turn, no judge client).
MODEL_JUDGES = frozenset({"checklist"})


class PluginError(UserError):
    """Two installed benchmarks claim one name, or a plugin reads the registry while it is being filled."""


def _origin(entry: Any) -> str:
    dist = getattr(entry, "dist", None)
    return f"distribution {dist.name} {dist.version}" if dist is not None else "an unnamed distribution"


def discover(entries: Any) -> tuple[dict[str, Benchmark], list[str]]:
    """Benchmark name → Benchmark from ``entries`` (entry points), and one line per entry left out."""
    found: dict[str, Benchmark] = {}
    origins: dict[str, str] = {}
    left_out: list[str] = []
    for entry in entries:
        where = f"benchmark plugin {entry.name!r} ({entry.value}, {_origin(entry)})"
        try:
            bench = entry.load()
        except Exception as exc:  # a plugin's own bug or a missing module: reported, the others still load
            left_out.append(f"{where} not loaded: {type(exc).__name__}: {first_line(exc)}")
            continue
        if not isinstance(bench, Benchmark):
            left_out.append(f"{where} not loaded: it names a {type(bench).__name__}, not an auditpacks Benchmark")
            continue
        if entry.name in found:
            raise PluginError(f"two benchmarks named {entry.name!r}: {origins[entry.name]} and {_origin(entry)}; "
                              "uninstall one of them")
        found[entry.name], origins[entry.name] = bench, _origin(entry)
    return found, left_out


class _Installed(Mapping):
    """A mapping made by ``fill()`` on first read, so that importing a name from here loads nothing."""

    def __init__(self, fill: Callable[[], Mapping]) -> None:
        self._fill, self._data = fill, None

    def _loaded(self) -> Mapping:
        if self._data is None:
            self._data = self._fill()
        return self._data

    def __getitem__(self, key: str) -> Any:
        return self._loaded()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._loaded())

    def __len__(self) -> int:
        return len(self._loaded())

    def __repr__(self) -> str:
        return repr(dict(self._loaded()))


_skipped: list[str] = []
_filling = False


def _installed_benchmarks() -> dict[str, Benchmark]:
    global _filling
    if _filling:
        raise PluginError("a benchmark plugin read the registry while it was loading: its entry point must name a "
                          "module that only declares its Benchmark")
    from importlib.metadata import entry_points

    _filling = True
    try:
        found, left_out = discover(sorted(entry_points(group=GROUP), key=lambda entry: entry.name))
    finally:
        _filling = False
    for line in left_out:
        print(f"auditpacks: warning: {line}", file=sys.stderr)
    _skipped.extend(left_out)
    return found


def skipped() -> list[str]:
    """The lines of the installed entry points that failed to load (after the registry was first read)."""
    return list(_skipped)


#: Benchmark name → Benchmark, every installed one, by name.
BENCHMARKS: Mapping[str, Benchmark] = _Installed(_installed_benchmarks)
#: Every judge a pack may name → its module: the general ones, then each benchmark's own.
JUDGES: Mapping[str, str] = _Installed(
    lambda: {**GENERAL_JUDGES, **{name: module for b in BENCHMARKS.values() for name, module in b.judges.items()}})
#: The judges that grade in code (every judge but the model ones) → their module.
CODE_JUDGES: Mapping[str, str] = _Installed(lambda: {k: v for k, v in JUDGES.items() if k not in MODEL_JUDGES})


def modules(role: str) -> dict[str, str]:
    """Benchmark name → module for one role: ``builder``, ``score``, ``rescore``, ``export``, ``registry``,
    ``judge_items`` or ``tools``."""
    return {name: module for name, b in BENCHMARKS.items() if (module := getattr(b, role))}


def card_benchmark(name: str | None = None) -> tuple[str, Card]:
    """The benchmark whose card ``runner/run_simpleaudit.py`` runs when no ``--pack`` is given, and its card:
    ``name``, else the one installed benchmark that declares a card (none, or several without ``name``: a
    :class:`UserError` naming them)."""
    cards = {bench: b.card for bench, b in BENCHMARKS.items() if b.card is not None}
    if name is not None:
        if name not in cards:
            raise UserError(f"--card {name}: no installed benchmark of that name declares a card; "
                            f"choose from {', '.join(sorted(cards)) or 'none'}")
        return name, cards[name]
    if len(cards) != 1:
        raise UserError("no installed benchmark declares a card: pass --pack PACK.json" if not cards else
                        f"several installed benchmarks declare a card ({', '.join(sorted(cards))}): pass --card NAME "
                        "or --pack PACK.json")
    return next(iter(cards.items()))


def judge_module(judge: str) -> Any:
    """The grader module of ``judge`` (a name in :data:`JUDGES`), imported now."""
    return importlib.import_module(JUDGES[judge])


@dataclass(frozen=True)
class Readers:
    """The installed benchmarks that read one run (None: none does, the generic reading holds): ``results``
    reads its grader's results (headline, figures, verdict words, report section, comparison), ``scenarios``
    groups its pack's scenarios (documents, questions)."""

    results: str | None
    scenarios: str | None


def builder_name(builder: Any) -> str | None:
    """The name of the builder that wrote a pack, as a run record (``pack.builder``) or a manifest keeps it."""
    name = builder.get("name") if isinstance(builder, Mapping) else builder
    return name if isinstance(name, str) and name else None


def readers(judge: str, builder: Any = None) -> Readers:
    """Which benchmark reads a run graded by ``judge`` of a pack ``builder`` wrote (the record's ``pack.builder``,
    the manifest's ``builder``; None: a pack without a manifest, such as a card's published one).

    Its results are read by the builder's benchmark when that benchmark reads ``judge``'s runs (one of its own
    graders, or a general judge it ``reads``); else by the benchmark whose grader ``judge`` is; else by the
    first that declares it reads packs graded by the general judge ``judge``. Its scenarios are grouped by the
    builder's benchmark whatever the grader, else by the one that reads its results."""
    built = builder_name(builder)
    own = BENCHMARKS.get(built) if built else None
    if own is not None and (judge in own.judges or judge in own.reads):
        results: str | None = built
    else:
        results = next((name for name, b in BENCHMARKS.items() if judge in b.judges), None) or \
            next((name for name, b in BENCHMARKS.items() if judge in b.reads), None)
    return Readers(results, built if own is not None else results)


def load(path: str) -> Any:
    """The module ``package.module``, or the function ``package.module:function``, imported now."""
    module, _, attribute = path.partition(":")
    loaded = importlib.import_module(module)
    return getattr(loaded, attribute) if attribute else loaded


def judge_flags() -> tuple[JudgeFlag, ...]:
    """Every benchmark's grader flags, in registry order."""
    return tuple(flag for b in BENCHMARKS.values() for flag in b.judge_flags)


def own_outcomes() -> tuple[str, ...]:
    """Every installed benchmark's own verdict words (its ``outcomes``), each once, in registry order."""
    return tuple(dict.fromkeys(word for b in BENCHMARKS.values() for word in b.outcomes))
