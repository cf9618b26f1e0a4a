"""Every benchmark and grader, registered in one place by module name (imported only when used).

A benchmark is a builder module (``add_arguments(parser)``, ``build(args) -> Path``) plus the
judges, scorer, re-scorer and exporter modules that go with it (``add_arguments``, ``main``).
A judge module exposes ``make_judge(manifest, **options)`` and ``headline(pairs)``.
Adding a benchmark adds one entry here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping


@dataclass(frozen=True)
class Benchmark:
    builder: str
    judges: Mapping[str, str] = field(default_factory=dict)
    score: str | None = None      # ``auditpacks score NAME``: a prediction file in the benchmark's format
    rescore: str | None = None    # ``auditpacks rescore NAME``: a published results file
    export: str | None = None     # ``auditpacks export NAME``: a run's results in the benchmark's format
    registry: str | None = None   # ``auditpacks registry NAME``: the benchmark's registry from its official source
    calibration: str | None = None  # ``auditpacks judge-check``: labelled checklist transcripts built from a pack


BENCHMARKS: dict[str, Benchmark] = {
    "jacite": Benchmark(
        builder="auditpacks.packs.jacite.builder",
        judges={"grounding": "auditpacks.judges.jacite.grounding"},
        rescore="auditpacks.judges.jacite.rescore",
        export="auditpacks.judges.jacite.export",
        registry="auditpacks.packs.jacite.egov",
        calibration="auditpacks.judges.jacite.calibration",
    ),
    "iustitia": Benchmark(
        builder="auditpacks.packs.iustitia.builder",
        score="auditpacks.judges.iustitia.agreement",
        export="auditpacks.judges.iustitia.export",
        calibration="auditpacks.judges.iustitia.calibration",
    ),
    "icj": Benchmark(
        builder="auditpacks.packs.icj.builder",
        judges={"citations": "auditpacks.judges.icj.citations"},
        score="auditpacks.judges.icj.score",
        export="auditpacks.judges.icj.export",
    ),
}

#: Judges any pack may name: simpleaudit's ``choice_match`` and ``checklist``, and our stricter ``choice``.
GENERAL_JUDGES = {
    "choice_match": "auditpacks.judges.choice_match",
    "checklist": "auditpacks.judges.checklist",
    "choice": "auditpacks.judges.choice",
}
#: Judges that need a judge model (the rest grade in code: one turn, no judge client).
MODEL_JUDGES = frozenset({"checklist"})

JUDGES: dict[str, str] = {**GENERAL_JUDGES, **{name: module for b in BENCHMARKS.values() for name, module in b.judges.items()}}
CODE_JUDGES = frozenset(JUDGES) - MODEL_JUDGES


def modules(role: str) -> dict[str, str]:
    """Benchmark name → module for one role: ``builder``, ``score``, ``rescore``, ``export``, ``registry`` or
    ``calibration``."""
    return {name: module for name, b in BENCHMARKS.items() if (module := getattr(b, role))}
