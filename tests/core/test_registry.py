"""The registry: every benchmark plugin's modules exist and define the contract's functions; judges map to
the benchmark whose figures, report and comparison their runs get."""

from __future__ import annotations

import inspect

import pytest

from auditpacks.core.registry import (BENCHMARKS, GENERAL_JUDGES, JUDGES, Readers, builder_name, card_benchmark,
                                      judge_flags, judge_module, load, own_outcomes, readers)

#: What each role's module must define (the contract in docs/architecture.md).
CONTRACT = {"builder": ("add_arguments", "build"), "report": ("headline", "section", "answer", "group"),
            "score": ("add_arguments", "main"), "rescore": ("add_arguments", "main"),
            "export": ("add_arguments", "main"), "registry": ("add_arguments", "main")}


@pytest.mark.parametrize("name", sorted(BENCHMARKS))
def test_every_entry_names_modules_that_define_the_contract(name):
    bench = BENCHMARKS[name]
    for role, functions in CONTRACT.items():
        if getattr(bench, role):
            module = load(getattr(bench, role))
            assert all(callable(getattr(module, f, None)) for f in functions), (name, role)
    for judge, path in bench.judges.items():
        assert callable(load(path).make_judge) and callable(load(path).headline), judge
    assert list(inspect.signature(load(bench.figures)).parameters) == ["h"]
    assert list(inspect.signature(load(bench.paired.statistic)).parameters) == ["paired"]
    for judge, path in bench.reads.items():
        assert judge in GENERAL_JUDGES and list(inspect.signature(load(path)).parameters) == ["pairs"], judge
    grouping = bench.grouping
    for path in (grouping.document, grouping.question, grouping.cluster, grouping.per, bench.outcome):
        assert path is None or len(inspect.signature(load(path)).parameters) >= 1, path


def test_judges_map_to_the_benchmark_that_reads_their_runs():
    assert {judge: readers(judge).results for judge in JUDGES} == {
        "choice_match": "iustitia", "choice": "iustitia", "checklist": None, "grounding": "jacite",
        "citations": "icj"}
    assert readers("no such judge") == Readers(None, None)
    assert all(callable(load(module).headline) and callable(load(module).figures) for module in GENERAL_JUDGES.values())


def test_the_builder_reads_the_runs_of_the_judges_it_reads_and_groups_every_run_of_its_packs():
    iustitia = {"name": "iustitia", "auditpacks": "0.1.0"}   # a manifest's builder block
    assert readers("choice", iustitia) == Readers("iustitia", "iustitia")
    assert readers("checklist", iustitia) == Readers(None, "iustitia")   # no benchmark reads checklist runs
    assert readers("choice_match", {"name": "jacite"}) == Readers("iustitia", "jacite")
    assert readers("grounding", "icj") == Readers("jacite", "icj")        # a record's builder as a name
    assert readers("choice_match", {"name": "tests"}) == Readers("iustitia", "iustitia")  # not a benchmark's builder
    assert readers("choice_match") == Readers("iustitia", "iustitia")     # a card's pack: no manifest
    assert [builder_name(b) for b in (iustitia, "icj", None, {}, 7)] == ["iustitia", "icj", None, None, None]


def test_general_judges_read_by_a_benchmark_are_pooled_its_way():
    assert load(BENCHMARKS["iustitia"].reads["choice_match"]) is load("auditpacks.judges.iustitia.agreement:headline")
    assert set(BENCHMARKS["iustitia"].reads) == {"choice_match", "choice"}
    assert not any("checklist" in b.reads for b in BENCHMARKS.values())
    assert own_outcomes() == ("invented",)


def test_paired_methods_name_the_cluster_resampled():
    assert {name: (b.paired.unit, b.paired.method) for name, b in BENCHMARKS.items()} == {
        "jacite": ("question", "paired bootstrap over questions"),
        "iustitia": ("judgment", "paired bootstrap over judgments; McNemar exact test on discordant tasks"),
        "icj": ("target", "paired bootstrap over targets, pooled F1 recomputed per replicate")}


def test_grader_flags_and_the_card_come_from_entries():
    assert [(f.flag, f.option) for f in judge_flags()] == [("--grounding-mode", "mode"), ("--deleted-as", "deleted_as")]
    name, card = card_benchmark()
    assert name == "iustitia" and card == BENCHMARKS["iustitia"].card
    assert card.repo == "Kushtrim/iustitia-marigonae" and card.smoke_file.endswith("_smoke3.json")
    assert [name for name, b in BENCHMARKS.items() if b.bundled] == ["jacite"]


def test_a_judges_module_is_the_one_the_registry_names():
    assert judge_module("choice").__name__ == "auditpacks.judges.choice"
    assert judge_module("grounding").__name__ == "auditpacks.judges.jacite.grounding"
    with pytest.raises(KeyError):
        judge_module("no such judge")


def test_the_card_runner_is_the_one_benchmark_declaring_a_card_or_the_one_named(monkeypatch):
    from auditpacks.core import registry
    from auditpacks.core.benchmark import Benchmark, Card
    from auditpacks.core.errors import UserError

    card_a, card_b = Card("org/a", "a_smoke.json", "a.json"), Card("org/b", "b_smoke.json", "b.json")
    plain = Benchmark(title="no card", builder="x")
    monkeypatch.setattr(registry, "BENCHMARKS", {"a": Benchmark(title="a", builder="x", card=card_a), "p": plain})
    assert registry.card_benchmark() == ("a", card_a)
    monkeypatch.setattr(registry, "BENCHMARKS", {"a": Benchmark(title="a", builder="x", card=card_a), "p": plain,
                                                 "b": Benchmark(title="b", builder="x", card=card_b)})
    assert registry.card_benchmark("b") == ("b", card_b)
    with pytest.raises(UserError, match=r"several installed benchmarks declare a card \(a, b\): pass --card NAME"):
        registry.card_benchmark()
    with pytest.raises(UserError, match=r"--card p: no installed benchmark of that name declares a card; choose "
                                        r"from a, b"):
        registry.card_benchmark("p")
    monkeypatch.setattr(registry, "BENCHMARKS", {"p": plain})
    with pytest.raises(UserError, match="no installed benchmark declares a card: pass --pack PACK.json"):
        registry.card_benchmark()


def _installed(monkeypatch, **benchmarks):
    from auditpacks.core import registry

    monkeypatch.setattr(registry, "BENCHMARKS", benchmarks)
    return registry


@pytest.mark.parametrize("cards, name, message", [
    ((), None, "no installed benchmark declares a card: pass --pack PACK.json"),
    ((), "p", "--card p: no installed benchmark of that name declares a card; choose from none"),
    (("a", "b"), None, "several installed benchmarks declare a card (a, b): pass --card NAME or --pack PACK.json"),
])
def test_no_card_to_run_is_one_line_saying_what_to_pass(monkeypatch, cards, name, message):
    from auditpacks.core.benchmark import Benchmark, Card
    from auditpacks.core.errors import UserError

    registry = _installed(monkeypatch, p=Benchmark(title="p", builder="x"), **{
        c: Benchmark(title=c, builder="x", card=Card(f"org/{c}", "s.json", "f.json")) for c in cards})
    with pytest.raises(UserError) as raised:
        registry.card_benchmark(name)
    assert str(raised.value) == message


def test_modules_of_a_role_are_those_the_benchmarks_name(monkeypatch):
    from auditpacks.core.benchmark import Benchmark

    registry = _installed(monkeypatch, a=Benchmark(title="a", builder="a.build", score="a.score"),
                          b=Benchmark(title="b", builder="b.build"))
    assert registry.modules("builder") == {"a": "a.build", "b": "b.build"}
    assert registry.modules("score") == {"a": "a.score"}


def test_the_builder_that_reads_a_general_judge_reads_its_runs_before_another_that_does(monkeypatch):
    from auditpacks.core.benchmark import Benchmark

    registry = _installed(monkeypatch, a=Benchmark(title="a", builder="x", reads={"choice": "a.pool"}),
                          b=Benchmark(title="b", builder="x", reads={"choice": "b.pool"}))
    assert registry.readers("choice", {"name": "b"}) == Readers("b", "b")
    assert registry.readers("choice") == Readers("a", "a")
