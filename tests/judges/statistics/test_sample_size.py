"""Every benchmark's figures warn when they describe a subset of the pack or rest on fewer than three clusters."""

from __future__ import annotations

from auditpacks.judges.reader import Reader
from auditpacks.judges.statistics.sample_size import warnings
from tests.support.fake_openai import FakeOpenAI
from tests.support.runs import run_file, run_here
from tests.support.tiny_pack import write_pack


def jacite(question: str) -> dict:
    return {"name": f"q{question}", "metadata": {"question_id": question, "language": "ja"}}


def test_a_limited_jacite_run_on_two_questions_gets_both_warnings():
    got = warnings(Reader.of("grounding"), [jacite("q1"), jacite("q1"), jacite("q2")], in_pack=10)
    assert got == ["a subset: 3 of the pack's 10 scenarios (--limit, --smoke, --per-question or --shard); these "
                   "figures describe the subset, not the benchmark",
                   "only 2 questions: intervals that resample questions say almost nothing with fewer than 3"]


def test_icj_targets_and_iustitia_judgments_are_their_clusters():
    targets = [{"name": f"t{i}", "metadata": {"target_document_id": f"doc{i % 3}"}} for i in range(6)]
    assert warnings(Reader.of("citations"), targets, in_pack=6) == []
    one_target = [{"name": f"t{i}", "metadata": {"target_document_id": "doc"}} for i in range(4)]
    assert warnings(Reader.of("citations"), one_target, in_pack=4) == [
        "only 1 target: intervals that resample targets say almost nothing with fewer than 3"]
    judgments = [{"name": f"s{i}", "metadata": {"verdict_id": f"V{i // 5}"}} for i in range(10)]
    assert warnings(Reader.of("choice_match"), judgments, in_pack=10)[0].startswith("only 2 judgments")
    own = ["only 2 judgments: judgment-bootstrap intervals under-cover with few clusters"]
    assert warnings(Reader.of("choice_match"), judgments, in_pack=10, existing=own) == []   # warned once


def test_a_judge_no_benchmark_owns_gets_the_subset_warning_only():
    assert warnings(Reader.of("checklist"), [jacite("q1")], in_pack=1) == []
    assert len(warnings(Reader.of("checklist"), [jacite("q1")], in_pack=2)) == 1


def test_a_limit_run_prints_the_warning_and_records_it(tmp_path, capsys):
    pack = write_pack(tmp_path / "tiny.json", 30)   # 3 scenarios per judgment
    with FakeOpenAI() as server:
        assert run_here(pack, tmp_path / "out", server.base_url, "--limit", "4", "--quiet") == 0
    out = capsys.readouterr().out
    assert "note: a subset: 4 of the pack's 30 scenarios" in out
    assert "note: only 2 judgments: " in out   # 4 scenarios of judgments V0000 and V0001
    recorded = run_file(tmp_path / "out")["summary"]["headline"]["warnings"]
    assert any(w.startswith("a subset: 4 of the pack's 30") for w in recorded)


def test_a_jacite_language_resting_on_one_question_is_warned_on_its_own():
    scenarios = [jacite("q1"), jacite("q2"), jacite("q3"),
                 {"name": "e", "metadata": {"question_id": "q4", "language": "en"}}]
    assert warnings(Reader.of("grounding"), scenarios, in_pack=4) == [
        "en: only 1 question: intervals that resample questions say almost nothing with fewer than 3"]
    # fewer than three over the whole run: the run's one warning says it for every language
    assert warnings(Reader.of("grounding"), scenarios[2:], in_pack=2) == [
        "only 2 questions: intervals that resample questions say almost nothing with fewer than 3"]


def test_no_scenarios_no_warning():
    assert warnings(Reader.of("grounding"), [], in_pack=10) == []
    assert warnings(Reader.of("choice_match"), [], in_pack=None) == []


def test_three_questions_are_enough_for_the_run_but_each_language_is_counted_after_the_subset_warning():
    scenarios = [jacite("q1"), jacite("q2"), {"name": "e", "metadata": {"question_id": "q3", "language": "en"}}]
    assert warnings(Reader.of("grounding"), scenarios, in_pack=5) == [
        "a subset: 3 of the pack's 5 scenarios (--limit, --smoke, --per-question or --shard); these "
        "figures describe the subset, not the benchmark",
        "en: only 1 question: intervals that resample questions say almost nothing with fewer than 3",
        "ja: only 2 questions: intervals that resample questions say almost nothing with fewer than 3"]
