"""The scenario's log: the replies' facts put on the transcript, for the grader and for the results file."""

from __future__ import annotations

from auditpacks.runner.models.reply import Reply
from auditpacks.runner.targets import scenario_log


def test_the_transcript_gets_the_facts_to_grade_and_keeps_the_reasoning():
    log = scenario_log.ScenarioLog(replies=[Reply("a", reasoning="r", finish_reason="length"), Reply("b")])
    conversation = [{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"},
                    {"role": "user", "content": "q2"}, {"role": "assistant", "content": "b"}]
    log.annotate(conversation)
    assert conversation[1] == {"role": "assistant", "content": "a", "reasoning": "r", "finish_reason": "length"}
    assert conversation[3] == {"role": "assistant", "content": "b"}
    log.annotate(conversation, scenario_log.STORED)
    assert conversation[1] == {"role": "assistant", "content": "a", "reasoning": "r"}
    unaligned = [{"role": "assistant", "content": "a"}]
    log.annotate(unaligned)
    assert unaligned == [{"role": "assistant", "content": "a"}]


def test_an_ungraded_judgment_gets_the_judges_raw_reply_and_its_cut():
    log = scenario_log.ScenarioLog(
        judge_replies=[{"text": '{"verdict": "cor', "finish_reason": "length", "max_tokens": 8}])
    judgment = {"severity": "ungraded", "ungraded_reason": "unparseable"}
    scenario_log.explain_ungraded(judgment, log)
    assert judgment == {"severity": "ungraded", "judge_reply": '{"verdict": "cor',
                        "ungraded_reason": "unparseable; the reply stopped at the output cap (8 tokens)"}


def test_a_reply_cut_at_the_cap_flags_the_result_truncated_for_any_benchmark():
    for judge_fields in ({"severity": "pass", "n_invented": 0}, {"choice": "A", "correct": True}):
        result = {"judgment": dict(judge_fields)}
        scenario_log.flag_truncated(
            result, scenario_log.ScenarioLog(replies=[Reply("a"), Reply("b", finish_reason="length")]))
        assert result["judgment"] == {**judge_fields, "truncated": True}
        whole = {"judgment": dict(judge_fields)}
        scenario_log.flag_truncated(whole, scenario_log.ScenarioLog(replies=[Reply("a", finish_reason="stop")]))
        assert "truncated" not in whole["judgment"]
    failed = {"judgment": None}
    scenario_log.flag_truncated(failed, scenario_log.ScenarioLog(replies=[Reply("a", finish_reason="length")]))
    assert failed == {"judgment": None}


def test_a_run_stores_the_flag_on_each_cut_off_reply(tmp_path):
    from tests.support.fake_openai import FakeOpenAI
    from tests.support.runs import results, run_here
    from tests.support.tiny_pack import write_pack

    pack = write_pack(tmp_path / "tiny.json", 2)   # choice_match: no benchmark grader of its own reads the cap
    with FakeOpenAI(answer=lambda model, messages: {"content": "A", "finish_reason": "length"}) as server:
        assert run_here(pack, tmp_path / "out", server.base_url) == 0
    assert [r["judgment"].get("truncated") for r in results(tmp_path / "out")] == [True, True]
