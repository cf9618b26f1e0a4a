"""A run's figures for people, as typed values: headline figures, report tables and plots, verdict words.

Each grader's ``headline`` returns its own shape, the values a run record keeps; the benchmark
that reads a run (:class:`~auditpacks.judges.reader.Reader`) turns them into :class:`Figure`
rows, and both travel as one :class:`Headline` to the terminal table, ``--json``, the report
and the exports. A value that is undefined (nothing to divide by) stays ``None`` and is shown
as ``n/a``. A benchmark's report section is a :class:`Section` of :class:`Table` and
:class:`Plot` values that one generic template renders. Verdict words (:func:`outcome`)
say what a result was (correct, wrong, a benchmark's own words, ungraded, error) instead
of simpleaudit's severity.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from functools import cached_property
from typing import Any, Callable, Mapping, Protocol, Sequence

from auditpacks.core.registry import own_outcomes
from auditpacks.core.runs.run_files import is_error

#: The generic verdict words: a graded result is correct or wrong, an ungraded one ungraded, a failed one an error.
CORRECT, WRONG, UNGRADED, ERROR = "correct", "wrong", "ungraded", "error"


@dataclass
class Figure:
    name: str
    value: float | int | None
    unit: str = "%"                 # % (a share, shown as a percentage), count, p (a p-value), ratio
    interval: tuple[float, float] | None = None
    interval_name: str | None = None
    meaning: str = ""
    group: str = ""                 # e.g. a language or a citation family
    better: str = ""                # higher or lower: which way is better ("" for a count, a p-value, a test)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["interval"] = list(self.interval) if self.interval else None
        return data


@dataclass(frozen=True)
class Headline:
    """A run's (or round's) headline: the grader's own ``values`` as the run record keeps them
    (``summary.headline``), among them the warnings on the figures and the error of a headline that could
    not be computed, and its pooled :attr:`figures` (the first is the headline figure), made from the
    values by ``reading`` (the benchmark's ``figures``) when first asked for."""

    values: Mapping[str, Any] = field(default_factory=dict)
    reading: Callable[[Mapping[str, Any]], list[Figure]] | None = field(default=None, repr=False, compare=False)

    @cached_property
    def figures(self) -> list[Figure]:
        return self.reading(self.values) if self.reading is not None else []

    @property
    def warnings(self) -> list[str]:
        return list(self.values.get("warnings") or [])

    @property
    def error(self) -> str | None:
        return str(self.values["error"]) if "error" in self.values else None

    @property
    def calibration(self) -> Mapping[str, Any] | None:
        """The calibration of a decision run's probabilities (:mod:`auditpacks.judges.statistics.calibration`), if measured."""
        found = self.values.get("calibration")
        return found if isinstance(found, Mapping) else None


@dataclass
class Cell:
    """One table cell: ``unit`` % (a share, shown with ``digits`` decimals), rate (a share followed by its
    ``interval``, n/a when there is none), interval (``value`` is a [low, high] pair of shares), count or text."""

    value: Any
    unit: str = "text"
    interval: Sequence[float] | None = None
    digits: int = 1


@dataclass
class Column:
    """A table column: its heading, and its heading in Markdown ("" leaves the column out there)."""

    title: str
    md: str | None = None

    @property
    def md_title(self) -> str:
        return self.title if self.md is None else self.md


@dataclass
class Table:
    title: str
    columns: list[Column]
    rows: list[list[Cell]]
    note: str = ""

    @property
    def md_columns(self) -> list[str]:
        """The headings shown in Markdown."""
        return [c.md_title for c in self.columns if c.md_title]

    @property
    def md_rows(self) -> list[list[Cell]]:
        """The rows' cells under the Markdown headings."""
        keep = [i for i, c in enumerate(self.columns) if c.md_title]
        return [[row[i] for i in keep] for row in self.rows]


@dataclass
class Plot:
    """``dots``: one value and interval per label (labels top to bottom); ``bars``: a bar per series in
    each label's group. ``series``: name → (values, intervals or None per value)."""

    kind: str
    labels: list[str]
    series: dict[str, tuple[list[float | None], list[Sequence[float] | None]]]
    axis: str
    limit: float | None = None


@dataclass
class Section:
    """A benchmark's part of one run's report: tables and plots, warnings, and whether a repeated run's
    headline is also shown round by round (``per_round``: False when the tables already do)."""

    tables: list[Table] = field(default_factory=list)
    plots: list[Plot] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    per_round: bool = True


class RunView(Protocol):
    """What a report section reads of a run: its rounds, each round's (scenario, result) pairs and headline."""

    rounds: list

    def pairs(self, round_index: int = 0) -> list[tuple[dict[str, Any], dict[str, Any]]]: ...

    def headline(self, round_index: int = 0) -> Headline: ...


def outcome_words() -> tuple[str, ...]:
    """The verdict words in the order they are shown: correct, wrong, the installed benchmarks' own words (each
    a kind of wrong), ungraded, error."""
    return (CORRECT, WRONG, *own_outcomes(), UNGRADED, ERROR)


def outcome(result: Mapping[str, Any], own: Callable[[Mapping[str, Any]], str | None] | None = None) -> str:
    """One result's verdict word: error, ungraded, the word ``own(result)`` gives (a benchmark's own, such as
    a citation of something that does not exist), correct (simpleaudit's ``pass``) or wrong (any other
    severity)."""
    severity = result.get("severity")
    if is_error(result):
        return ERROR
    if severity == UNGRADED:
        return UNGRADED
    word = own(result) if own is not None else None
    if word:
        return word
    return CORRECT if severity == "pass" else WRONG


def number(value: Any) -> float | int | None:
    """A finite number, else None (booleans, strings, NaN and infinities are not figures)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return value if math.isfinite(value) else None


def interval(pair: Any) -> tuple[float, float] | None:
    """A [low, high] pair of finite numbers as a tuple, else None."""
    if isinstance(pair, (list, tuple)) and len(pair) == 2 and all(number(v) is not None for v in pair):
        return float(pair[0]), float(pair[1])
    return None


def leaves(h: Mapping[str, Any], prefix: str = "") -> list[Figure]:
    """Every numeric leaf of a headline as a figure (a shape no benchmark declares)."""
    rows = []
    for key, value in h.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            rows += leaves(value, name + " ")
        elif value is None or number(value) is not None:
            rows.append(Figure(name, number(value), "count" if isinstance(value, int) else "ratio"))
    return rows


def decision_id(scenario: Mapping[str, Any]) -> Any:
    """The ``id`` of a scenario's decision block: the question it asks where its benchmark names none."""
    decision = scenario.get("decision")
    return decision.get("id") if isinstance(decision, Mapping) else None


def question_group(scenario: Mapping[str, Any], question: Callable[[Mapping[str, Any]], Any] | None = None) -> str:
    """The question a scenario asks, for report filters: ``question(scenario)`` (its benchmark's), else its
    decision id, else its category."""
    asked = question(scenario) if question is not None else None
    return str(asked or decision_id(scenario) or scenario.get("category") or "all")
