"""ICJ's registry entry (the entry point ``icj`` in ``pyproject.toml``)."""

from auditpacks.core.benchmark import Benchmark, Grouping, Paired

BENCHMARK = Benchmark(
    title="ICJ citation prediction",
    builder="auditpacks.packs.icj.builder",
    judges={"citations": "auditpacks.judges.icj.citations"},
    figures="auditpacks.judges.icj.figures:figures",
    report="auditpacks.judges.icj.report",
    paired=Paired("target", "auditpacks.judges.icj.paired:compare", ", pooled F1 recomputed per replicate"),
    grouping=Grouping(document="auditpacks.judges.icj.paired:case", cluster="auditpacks.judges.icj.paired:target_of"),
    score="auditpacks.judges.icj.score",
    export="auditpacks.judges.icj.export",
    tools="auditpacks.judges.icj.conditions",
)
