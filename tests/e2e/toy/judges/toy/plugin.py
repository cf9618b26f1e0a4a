"""The toy benchmark's declaration, named by its entry point ``toy`` in the group ``auditpacks.benchmarks``."""

from auditpacks.core.benchmark import Benchmark, Grouping, Paired

BENCHMARK = Benchmark(
    title="toy sums",
    builder="auditpacks.packs.toy.builder",
    judges={"sum": "auditpacks.judges.toy.grader"},
    figures="auditpacks.judges.toy.grader:figures",
    report="auditpacks.judges.toy.report",
    paired=Paired("question", "auditpacks.judges.toy.report:compare"),
    grouping=Grouping(question="auditpacks.judges.toy.report:question"),
    export="auditpacks.judges.toy.report",
)
