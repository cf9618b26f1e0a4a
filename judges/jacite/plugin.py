"""jacite's registry entry (the entry point ``jacite`` in ``pyproject.toml``)."""

from auditpacks.core.benchmark import Benchmark, Grouping, JudgeFlag, Paired

BENCHMARK = Benchmark(
    title="statute-citation grounding (jacite)",
    builder="auditpacks.packs.jacite.builder",
    judges={"grounding": "auditpacks.judges.jacite.grounding"},
    figures="auditpacks.judges.jacite.figures:figures",
    report="auditpacks.judges.jacite.report",
    paired=Paired("question", "auditpacks.judges.jacite.paired:compare"),
    grouping=Grouping(question="auditpacks.judges.jacite.paired:question",
                      cluster="auditpacks.judges.jacite.paired:cluster",
                      per="auditpacks.judges.jacite.paired:language"),
    outcome="auditpacks.judges.jacite.grounding:outcome",
    outcomes=("invented",),
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
)
