"""What a benchmark plugin declares: the paired comparison's one-line method, and the fields a minimal entry leaves
empty (no graders of its own, the generic grouping, no commands)."""

from __future__ import annotations

import dataclasses

import pytest

from auditpacks.core.benchmark import Benchmark, Card, Grouping, JudgeFlag, Paired


def test_the_paired_method_names_the_unit_resampled_and_ends_with_the_detail():
    assert Paired("question", "m:compare").method == "paired bootstrap over questions"
    assert Paired("target", "m:compare", ", pooled F1").method == "paired bootstrap over targets, pooled F1"


def test_a_minimal_entry_declares_only_its_title_and_builder():
    bench = Benchmark(title="toy sums", builder="toysums.builder")
    assert (bench.judges, bench.reads, bench.outcomes, bench.judge_flags) == ({}, {}, (), ())
    assert bench.grouping == Grouping(None, None, None, None)
    assert [bench.figures, bench.report, bench.paired, bench.outcome, bench.score, bench.rescore, bench.export,
            bench.registry, bench.card, bench.judge_items, bench.tools] == [None] * 11
    assert bench.bundled is False


def test_two_minimal_entries_do_not_share_their_tables():
    a, b = Benchmark("a", "a.builder"), Benchmark("b", "b.builder")
    assert a.judges is not b.judges and a.grouping == b.grouping


def test_declarations_are_frozen():
    card = Card("org/pack", "smoke.json", "full.json")
    assert (card.local_smoke, card.local_built) == ((), ())
    flag = JudgeFlag("--mode", "mode", ("a", "b"), "help")
    for value in (card, flag, Paired("judgment", "m:compare"), Grouping(), Benchmark("t", "b")):
        with pytest.raises(dataclasses.FrozenInstanceError):
            value.__setattr__(dataclasses.fields(value)[0].name, "changed")
