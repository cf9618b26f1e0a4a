"""Every benchmark and grader, registered in one place by module name (imported only when used).

A benchmark is one plugin: a builder subpackage under ``packs/``, a judge subpackage under
``judges/``, a section of ``codebook.yaml`` and one :class:`Benchmark` entry here. Each field
names a module (``package.module``) or one of its functions (``package.module:function``):

* ``builder``: ``add_arguments(parser)``, ``build(args) -> Path``;
* ``judges``: its own graders, name → module with ``make_judge(manifest, **options)`` and
  ``headline(pairs)``; ``owns``: general judges (``GENERAL_JUDGES``) whose runs are read as this
  benchmark's (their headline is ``headline``, their figures, report and comparison are these);
* ``figures``: ``figures(headline) -> list[Figure]``, the pooled figures of a run's headline;
* ``report``: ``section(run, round_index) -> Section`` (tables, plots, warnings),
  ``answer(judgment) -> str`` and ``group(scenario) -> str``;
* ``paired``: the unit the paired comparison resamples and its statistic
  ``compare(paired) -> list[row]`` (see :class:`Paired`);
* ``score``, ``rescore``, ``export``, ``registry``: commands (``add_arguments``, ``main``);
* ``tools``: its tool conditions (``auditpacks tools NAME run|...``, see ``runner/cli/tools.py``);
* ``judge_flags``: run flags a grader takes; ``card``: the files ``runner/run_simpleaudit.py`` runs;
  ``bundled``: the builder needs no source (offline suggestions name it).

Adding a benchmark adds one entry here.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping


@dataclass(frozen=True)
class Paired:
    """A paired comparison: ``unit`` (judgment, question, target) is the cluster the bootstrap draws whole;
    ``statistic`` is ``compare(paired) -> list[row]``; ``detail`` ends the method's one-line description."""

    unit: str
    statistic: str
    detail: str = ""
    cluster: str | None = None   # ``cluster(scenario) -> str``: the unit a scenario belongs to (small-sample warnings)
    group: str | None = None     # ``group(scenario) -> str``: the group figures are computed per (warned per group)

    @property
    def method(self) -> str:
        return f"paired bootstrap over {self.unit}s{self.detail}"


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
    owns: tuple[str, ...] = ()
    headline: str | None = None   # headline(pairs) of the general judges it owns
    figures: str | None = None
    report: str | None = None
    paired: Paired | None = None
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


BENCHMARKS: dict[str, Benchmark] = {
    "jacite": Benchmark(
        title="statute-citation grounding (jacite)",
        builder="auditpacks.packs.jacite.builder",
        judges={"grounding": "auditpacks.judges.jacite.grounding"},
        figures="auditpacks.judges.jacite.figures:figures",
        report="auditpacks.judges.jacite.report",
        paired=Paired("question", "auditpacks.judges.jacite.paired:compare",
                      cluster="auditpacks.judges.jacite.paired:cluster",
                      group="auditpacks.judges.jacite.paired:language"),
        rescore="auditpacks.judges.jacite.rescore",
        export="auditpacks.judges.jacite.export",
        registry="auditpacks.packs.jacite.egov",
        bundled=True,
        judge_flags=(
            JudgeFlag("--grounding-mode", "mode", ("full", "upstream"),
                      "grounding judge: our extractor (full) or jacite-bench's published one"),
            JudgeFlag("--deleted-as", "deleted_as", ("real", "invented"),
                      "grounding judge: how citations of deleted placeholder articles count"),
        ),
        judge_items="auditpacks.judges.jacite.judge_items",
    ),
    "iustitia": Benchmark(
        title="closed questions (Iustitia Marigonae style)",
        builder="auditpacks.packs.iustitia.builder",
        owns=("choice_match", "choice"),
        headline="auditpacks.judges.iustitia.agreement:headline",
        figures="auditpacks.judges.iustitia.figures:figures",
        report="auditpacks.judges.iustitia.report",
        paired=Paired("judgment", "auditpacks.judges.iustitia.paired:compare",
                      "; McNemar exact test on discordant tasks", cluster="auditpacks.judges.iustitia.paired:cluster"),
        score="auditpacks.judges.iustitia.agreement",
        export="auditpacks.judges.iustitia.export",
        card=Card(repo="Kushtrim/iustitia-marigonae",
                  smoke_file="simpleaudit/iustitia_marigonae_smoke3.json",
                  full_file="simpleaudit/iustitia_marigonae.json",
                  local_smoke=("simpleaudit/iustitia_marigonae_smoke3.json", "iustitia_marigonae_smoke3.json"),
                  local_built=("simpleaudit/iustitia_marigonae.json", "iustitia_marigonae.json", "iustitia.json",
                               "packs/iustitia.json")),
        judge_items="auditpacks.judges.iustitia.judge_items",
    ),
    "icj": Benchmark(
        title="ICJ citation prediction",
        builder="auditpacks.packs.icj.builder",
        judges={"citations": "auditpacks.judges.icj.citations"},
        figures="auditpacks.judges.icj.figures:figures",
        report="auditpacks.judges.icj.report",
        paired=Paired("target", "auditpacks.judges.icj.paired:compare", ", pooled F1 recomputed per replicate",
                      cluster="auditpacks.judges.icj.paired:target_of"),
        score="auditpacks.judges.icj.score",
        export="auditpacks.judges.icj.export",
        tools="auditpacks.judges.icj.conditions",
    ),
}

#: Judges any pack may name: simpleaudit's ``choice_match`` and ``checklist``, and our stricter ``choice``.
#: A general judge's figures are ``figures(headline)`` in its module, unless a benchmark ``owns`` it.
GENERAL_JUDGES = {
    "choice_match": "auditpacks.judges.choice_match",
    "checklist": "auditpacks.judges.checklist",
    "choice": "auditpacks.judges.choice",
}
#: Judges that need a judge model (the rest grade in code: one turn, no judge client).
MODEL_JUDGES = frozenset({"checklist"})
#: The benchmark whose card ``runner/run_simpleaudit.py`` runs when no ``--pack`` is given.
CARD_RUNNER = "iustitia"

JUDGES: dict[str, str] = {**GENERAL_JUDGES, **{name: module for b in BENCHMARKS.values() for name, module in b.judges.items()}}
CODE_JUDGES = frozenset(JUDGES) - MODEL_JUDGES


def modules(role: str) -> dict[str, str]:
    """Benchmark name → module for one role: ``builder``, ``score``, ``rescore``, ``export``, ``registry``,
    ``judge_items`` or ``tools``."""
    return {name: module for name, b in BENCHMARKS.items() if (module := getattr(b, role))}


def benchmark_of(judge: str) -> str | None:
    """The benchmark whose figures, report and comparison a run graded by ``judge`` gets (None: none does)."""
    return next((name for name, b in BENCHMARKS.items() if judge in b.judges or judge in b.owns), None)


def load(path: str) -> Any:
    """The module ``package.module``, or the function ``package.module:function``, imported now."""
    module, _, attribute = path.partition(":")
    loaded = importlib.import_module(module)
    return getattr(loaded, attribute) if attribute else loaded


def owned_headline(judge: str) -> Callable[[list], dict[str, Any]]:
    """``headline(pairs)`` of the benchmark that owns the general judge ``judge``."""
    name = benchmark_of(judge)
    if name is None or not BENCHMARKS[name].headline:
        raise LookupError(f"judge {judge!r}: no benchmark in the registry owns its headline figures")
    return load(BENCHMARKS[name].headline)


def judge_flags() -> tuple[JudgeFlag, ...]:
    """Every benchmark's grader flags, in registry order."""
    return tuple(flag for b in BENCHMARKS.values() for flag in b.judge_flags)
