"""jacite's registry entry: grounding graded by its own judge (with its two run flags), questions resampled whole
and figures per language, "invented" as a verdict word of its own, and the commands it declares."""

from __future__ import annotations

from auditpacks.core.registry import BENCHMARKS, load
from auditpacks.judges.jacite.plugin import BENCHMARK


def test_the_entry_is_the_one_installed_as_jacite():
    assert BENCHMARKS["jacite"] == BENCHMARK
    assert BENCHMARK.title == "statute-citation grounding (jacite)"


def test_grounding_is_graded_by_its_own_judge_with_two_run_flags():
    assert dict(BENCHMARK.judges) == {"grounding": "auditpacks.judges.jacite.grounding"}
    assert [(f.flag, f.option, f.choices) for f in BENCHMARK.judge_flags] == [
        ("--grounding-mode", "mode", ("full", "upstream")), ("--deleted-as", "deleted_as", ("real", "invented"))]
    assert BENCHMARK.outcomes == ("invented",)
    assert load(BENCHMARK.outcome).__module__ == "auditpacks.judges.jacite.grounding"


def test_questions_are_resampled_whole_and_figures_pooled_per_language():
    grouping = BENCHMARK.grouping
    asked = {"name": "民法 第709条 (ja)", "metadata": {"question_id": "q017", "language": "ja"}}
    bare = {"name": "a question with no metadata"}
    assert [load(grouping.question)(s) for s in (asked, bare)] == ["q017", None]
    assert [load(grouping.cluster)(s) for s in (asked, bare)] == ["q017", "a question with no metadata"]
    assert [load(grouping.per)(s) for s in (asked, bare)] == ["ja", "?"]
    assert grouping.document is None
    assert BENCHMARK.paired.method == "paired bootstrap over questions"


def test_the_commands_it_declares():
    assert (BENCHMARK.rescore, BENCHMARK.export, BENCHMARK.registry, BENCHMARK.judge_items) == (
        "auditpacks.judges.jacite.rescore", "auditpacks.judges.jacite.export", "auditpacks.packs.jacite.egov",
        "auditpacks.judges.jacite.judge_items")
    assert (BENCHMARK.score, BENCHMARK.card, BENCHMARK.tools) == (None,) * 3
    assert BENCHMARK.bundled is True   # its statutes ship inside the package: no --source
