"""ICJ's registry entry: citations graded by its own judge, targets grouped by the case they come from and
resampled whole, and the commands it declares (score, export, tools)."""

from __future__ import annotations

from auditpacks.core.registry import BENCHMARKS, load
from auditpacks.judges.icj.plugin import BENCHMARK


def test_the_entry_is_the_one_installed_as_icj():
    assert BENCHMARKS["icj"] == BENCHMARK
    assert BENCHMARK.title == "ICJ citation prediction"


def test_citations_are_graded_by_its_own_judge_and_no_general_one_is_read():
    assert dict(BENCHMARK.judges) == {"citations": "auditpacks.judges.icj.citations"}
    assert dict(BENCHMARK.reads) == {} and BENCHMARK.outcome is None and BENCHMARK.outcomes == ()


def test_targets_group_by_case_and_are_resampled_whole():
    grouping = BENCHMARK.grouping
    target = {"name": "JUD 143 citations", "metadata": {"case_id": "143", "target_document_id": "143-20040709-ADV"}}
    bare = {"name": "a target with no metadata"}
    assert [load(grouping.document)(s) for s in (target, bare)] == ["143", None]
    assert [load(grouping.cluster)(s) for s in (target, bare)] == ["143-20040709-ADV", "a target with no metadata"]
    assert grouping.question is None and grouping.per is None
    assert BENCHMARK.paired.method == "paired bootstrap over targets, pooled F1 recomputed per replicate"


def test_the_commands_it_declares_and_those_it_does_not():
    assert (BENCHMARK.score, BENCHMARK.export, BENCHMARK.tools) == (
        "auditpacks.judges.icj.score", "auditpacks.judges.icj.export", "auditpacks.judges.icj.conditions")
    assert (BENCHMARK.rescore, BENCHMARK.registry, BENCHMARK.card, BENCHMARK.judge_items) == (None,) * 4
    assert BENCHMARK.judge_flags == () and BENCHMARK.bundled is False
    assert load(BENCHMARK.builder).__name__ == "auditpacks.packs.icj.builder"
    assert load(BENCHMARK.report).__name__ == "auditpacks.judges.icj.report"
