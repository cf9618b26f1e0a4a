"""Iustitia's registry entry: closed questions graded by the general choice judges (their runs read as its own),
grouped by judgment and question, the card it runs, and the commands it declares."""

from __future__ import annotations

from auditpacks.core.registry import BENCHMARKS, load
from auditpacks.judges.iustitia.plugin import BENCHMARK


def test_the_entry_is_the_one_installed_as_iustitia():
    assert BENCHMARKS["iustitia"] == BENCHMARK
    assert BENCHMARK.title == "closed questions (Iustitia Marigonae style)"


def test_it_has_no_judge_of_its_own_and_reads_both_choice_judges():
    assert dict(BENCHMARK.judges) == {}
    assert set(BENCHMARK.reads) == {"choice_match", "choice"}
    assert load(BENCHMARK.reads["choice"]).__name__ == "choice_headline"


def test_scenarios_group_by_judgment_and_question():
    grouping = BENCHMARK.grouping
    task = {"name": "Q1 - V0001", "metadata": {"verdict_id": "V0001", "question_id": "Q1", "task_id": "V0001::Q1"}}
    bare = {"name": "Q2 - V0002"}
    assert [load(grouping.document)(s) for s in (task, bare)] == ["V0001", None]
    assert [load(grouping.question)(s) for s in (task, bare)] == ["Q1", None]
    assert [load(grouping.cluster)(s) for s in (task, bare)] == ["V0001", "Q2 - V0002"]
    assert grouping.per is None
    assert BENCHMARK.paired.method == "paired bootstrap over judgments; McNemar exact test on discordant tasks"


def test_the_card_it_runs():
    card = BENCHMARK.card
    assert card.repo == "Kushtrim/iustitia-marigonae"
    assert (card.smoke_file, card.full_file) == ("simpleaudit/iustitia_marigonae_smoke3.json",
                                                 "simpleaudit/iustitia_marigonae.json")
    assert card.smoke_file in card.local_smoke and card.full_file == card.local_built[0]


def test_the_commands_it_declares():
    assert (BENCHMARK.score, BENCHMARK.export, BENCHMARK.judge_items) == (
        "auditpacks.judges.iustitia.agreement", "auditpacks.judges.iustitia.export",
        "auditpacks.judges.iustitia.judge_items")
    assert (BENCHMARK.rescore, BENCHMARK.registry, BENCHMARK.tools, BENCHMARK.outcome) == (None,) * 4
    assert load(BENCHMARK.figures).__module__ == "auditpacks.judges.iustitia.figures"
