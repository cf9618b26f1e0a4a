"""What a benchmark plugin declares: one :class:`Benchmark`, registered as an entry point.

A benchmark is a builder, its graders and the readers of its runs. Its distribution names the
object in the entry-point group ``auditpacks.benchmarks`` (``NAME = "package.module:OBJECT"``; the
entry point's name is the benchmark's name; see :mod:`auditpacks.core.registry`). Each field names
a module (``package.module``) or one of its functions (``package.module:function``), imported only
when used:

* ``builder``: ``add_arguments(parser)``, ``build(args) -> Path``;
* ``judges``: its own graders, name → module with ``make_judge(manifest, **options)`` and
  ``headline(pairs)``; ``reads``: general judges (``GENERAL_JUDGES``) whose runs of packs it reads,
  each with the ``headline(pairs)`` it pools them with (their figures, report and comparison are then
  these);
* ``figures``: ``figures(headline) -> list[Figure]``, the pooled figures of a run's headline values;
* ``outcome``: ``outcome(result) -> str | None``, a verdict word of its own for one graded result (None:
  correct or wrong, as simpleaudit's severity says), one of ``outcomes`` (its words, in display order);
* ``grouping``: how its scenarios group (see :class:`Grouping`);
* ``report``: ``section(run, round_index) -> Section`` (tables, plots, warnings),
  ``answer(judgment) -> str`` and ``group(scenario) -> str``;
* ``paired``: the unit the paired comparison resamples and its statistic
  ``compare(paired) -> list[row]`` (see :class:`Paired`);
* ``score``, ``rescore``, ``export``, ``registry``: commands (``add_arguments``, ``main``);
* ``tools``: its tool conditions (``auditpacks tools NAME run|...``, see ``runner/cli/tools.py``);
* ``judge_flags``: run flags a grader takes; ``card``: the files ``runner/run_simpleaudit.py`` runs;
  ``bundled``: the builder needs no source (offline suggestions name it).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping


@dataclass(frozen=True)
class Paired:
    """A paired comparison: ``unit`` (judgment, question, target) is the cluster the bootstrap draws whole;
    ``statistic`` is ``compare(paired) -> list[row]``; ``detail`` ends the method's one-line description."""

    unit: str
    statistic: str
    detail: str = ""

    @property
    def method(self) -> str:
        return f"paired bootstrap over {self.unit}s{self.detail}"


@dataclass(frozen=True)
class Grouping:
    """How a benchmark's scenarios group, each a function of one scenario (``module:function``); a scenario
    may be a stub holding only its ``name``, ``metadata`` and whether it has ``documents``. Where one is not
    declared, or gives None, the generic rule holds: documents by their content (else the scenario's name),
    questions by the decision block's ``id``, no clusters."""

    document: str | None = None   # ``document(scenario) -> str | None``: the source document it belongs to (sharding,
    #                               execution order, the report's document names)
    question: str | None = None   # ``question(scenario) -> str | None``: the question it asks (report filter,
    #                               ``--per-question``)
    cluster: str | None = None    # ``cluster(scenario) -> str``: the unit its intervals resample (few-cluster warnings)
    per: str | None = None        # ``per(scenario) -> str``: the group its figures are computed per (warned per group)


@dataclass(frozen=True)
class JudgeFlag:
    """A run flag for one of a benchmark's graders: ``--flag VALUE`` becomes the grader option ``option``."""

    flag: str
    option: str
    choices: tuple[str, ...]
    help: str


@dataclass(frozen=True)
class Card:
    """The published pack a benchmark's card runs: Hugging Face ``repo``, its smoke and full files, and
    local file names tried first (the smoke ones only with ``--smoke``, then built packs)."""

    repo: str
    smoke_file: str
    full_file: str
    local_smoke: tuple[str, ...] = ()
    local_built: tuple[str, ...] = ()


@dataclass(frozen=True)
class Benchmark:
    title: str
    builder: str
    judges: Mapping[str, str] = field(default_factory=dict)
    reads: Mapping[str, str] = field(default_factory=dict)   # general judge → ``headline(pairs)`` of its runs
    figures: str | None = None
    report: str | None = None
    paired: Paired | None = None
    grouping: Grouping = field(default_factory=Grouping)
    outcome: str | None = None    # ``outcome(result) -> str | None``: a verdict word of its own (one of ``outcomes``)
    outcomes: tuple[str, ...] = ()
    score: str | None = None      # ``auditpacks score NAME``: a prediction file in the benchmark's format
    rescore: str | None = None    # ``auditpacks rescore NAME``: a published results file
    export: str | None = None     # ``auditpacks export NAME``: a run's results in the benchmark's format
    registry: str | None = None   # ``auditpacks registry NAME``: the benchmark's registry from its official source
    judge_flags: tuple[JudgeFlag, ...] = ()
    card: Card | None = None
    bundled: bool = False         # the builder needs no --source: its data ships inside the package
    judge_items: str | None = None  # ``auditpacks judge-check``: labelled checklist transcripts built from a pack
    tools: str | None = None      # ``auditpacks tools NAME``: its tool conditions (``ACTIONS``, ``add_arguments``,
    #                               ``main``, ``setup(args, pack) -> ToolSetup``; auditpacks.core.condition)
