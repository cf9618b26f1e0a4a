"""One run read through the benchmark that reads it (:func:`auditpacks.core.registry.readers`), or generically.

A :class:`Reader` is all that generic code (summary, report, compare, merge, exports) knows of a
benchmark: the run's :class:`~auditpacks.judges.figures.Headline` computed from its (scenario,
result) pairs or read back from its run record, the verdict word of each result, the report
module and paired comparison, and how its scenarios group. Where no benchmark reads the run, a
general judge's own ``headline`` and ``figures`` and the generic rules hold: documents by their
content (else the scenario's name), questions by the decision block's id, no clusters.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Callable, Iterable, Mapping

from auditpacks.core.benchmark import Benchmark, Grouping, Paired
from auditpacks.core.runs.record import RunRecord
from auditpacks.core.registry import BENCHMARKS, GENERAL_JUDGES, judge_module, load, readers
from auditpacks.judges.figures import Figure, Headline, decision_id, leaves, outcome

Scenario = Mapping[str, Any]


@dataclass(frozen=True)
class Reader:
    """How the runs of ``judge`` on one pack are read: ``benchmark`` reads their results, ``groups`` groups
    their scenarios (either None: the generic reading)."""

    judge: str
    benchmark: str | None = None
    groups: str | None = None

    @classmethod
    def of(cls, judge: str, builder: Any = None) -> "Reader":
        """The reader of a run graded by ``judge`` of a pack ``builder`` wrote (see ``readers``)."""
        found = readers(judge, builder)
        return cls(judge, found.results, found.scenarios)

    @classmethod
    def of_record(cls, record: RunRecord) -> "Reader":
        return cls.of(record.judge, record.pack.builder)

    @property
    def plugin(self) -> Benchmark | None:
        """The benchmark that reads the results (None: the generic reading)."""
        return BENCHMARKS[self.benchmark] if self.benchmark else None

    # -- the headline ----------------------------------------------------------------------------------------

    def headline(self, pairs: Iterable[tuple[Scenario, Mapping[str, Any] | None]]) -> Headline:
        """The headline over (scenario, result or None for an unanswered scenario) pairs: the reading benchmark's
        pooling of the judge's runs, else the grader's own. A failure is printed and kept as the headline's
        error, never raised: a metric bug must not lose a finished run."""
        plugin = self.plugin
        pool = load(plugin.reads[self.judge]) if plugin and self.judge in plugin.reads \
            else judge_module(self.judge).headline
        try:
            values = dict(pool(pairs))
        except Exception as exc:  # noqa: BLE001 - reported, and the run is kept
            print(f"auditpacks: warning: {self.judge} headline failed: {type(exc).__name__}: {exc}", file=sys.stderr)
            values = {"error": f"{type(exc).__name__}: {exc}"}
        return self.read(values)

    def read(self, values: Mapping[str, Any]) -> Headline:
        """The headline of values a grader pooled (as a run record keeps them); its figures are made when
        first asked for, so that a figure's bug cannot stop a run record from being saved."""
        return Headline(dict(values), self.figures)

    def recorded(self, record: RunRecord, round_index: int | None = None) -> Headline:
        """The headline a run record keeps: the run's, or with ``round_index`` that round's (a repeated run)."""
        summary = record.summary if round_index is None else record.rounds[round_index].summary
        return self.read(summary.headline if summary is not None else {})

    def add(self, headline: Headline, **values: Any) -> Headline:
        """``headline`` with more values (new names after the grader's, a name it has replaced in place)."""
        return self.read({**headline.values, **values})

    def figures(self, values: Mapping[str, Any]) -> list[Figure]:
        """The figures of headline values: the reading benchmark's, a general judge's own (``figures`` in its
        module), or the values' numeric leaves (a benchmark that declares none); none for a failed headline."""
        if not values or "error" in values and len(values) == 1:
            return []
        plugin = self.plugin
        if plugin is not None:
            return load(plugin.figures)(values) if plugin.figures else leaves(values)
        if self.judge in GENERAL_JUDGES:
            return load(GENERAL_JUDGES[self.judge]).figures(values)
        return leaves(values)

    # -- results in words, the report and the comparison -----------------------------------------------------

    @cached_property
    def _own_outcome(self) -> Callable[[Mapping[str, Any]], str | None] | None:
        plugin = self.plugin
        return load(plugin.outcome) if plugin and plugin.outcome else None

    def outcome(self, result: Mapping[str, Any]) -> str:
        """The result's verdict word (:func:`auditpacks.judges.figures.outcome`, with the benchmark's own words)."""
        return outcome(result, self._own_outcome)

    @cached_property
    def report(self) -> Any:
        """The reading benchmark's report module (``headline``, ``section``, ``answer``, ``group``), or None."""
        plugin = self.plugin
        return load(plugin.report) if plugin and plugin.report else None

    @property
    def paired(self) -> Paired | None:
        """The reading benchmark's paired comparison (None: the generic one)."""
        plugin = self.plugin
        return plugin.paired if plugin else None

    # -- how the scenarios group -------------------------------------------------------------------------------

    @cached_property
    def _grouping(self) -> dict[str, Callable[[Scenario], Any] | None]:
        """The declared grouping functions: ``document`` and ``question`` of the benchmark that groups the
        scenarios, ``cluster`` and ``per`` of the one that reads the results."""
        def declared(owner: str | None, name: str) -> Callable[[Scenario], Any] | None:
            path = getattr(BENCHMARKS[owner].grouping if owner else Grouping(), name)
            return load(path) if path else None

        return {**{name: declared(self.groups, name) for name in ("document", "question")},
                **{name: declared(self.benchmark, name) for name in ("cluster", "per")}}

    def document(self, scenario: Scenario) -> Any:
        """The source document a scenario belongs to, as its benchmark names it (None: none named)."""
        declared = self._grouping["document"]
        return declared(scenario) if declared else None

    def question(self, scenario: Scenario) -> Any:
        """The question a scenario asks: its benchmark's, else its decision id (None: none)."""
        declared = self._grouping["question"]
        return declared(scenario) if declared else decision_id(scenario)

    @property
    def cluster(self) -> Callable[[Scenario], str] | None:
        """The unit a result's figures resample (``cluster(scenario)``), where the reading benchmark names one."""
        return self._grouping["cluster"]

    @property
    def per(self) -> Callable[[Scenario], str] | None:
        """The group a result's figures are computed per (``per(scenario)``), where the reading benchmark has one."""
        return self._grouping["per"]
