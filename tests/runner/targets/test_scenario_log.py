"""The scenario's log: the replies' facts put on the transcript, for the grader and for the results file."""

from __future__ import annotations

import contextvars

import pytest

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


def in_fresh_task(steps):
    """``steps()`` run in a context of its own, as the executor runs each scenario in its own task."""
    return contextvars.copy_context().run(steps)


def test_begin_starts_the_log_the_records_go_to():
    def steps():
        log = scenario_log.begin(key="k1", lane=2, group="doc-a", system="Answer in Norwegian.")
        reply = Reply("a", reasoning="because", finish_reason="stop")
        scenario_log.record_reply(reply)
        scenario_log.record_oversize("prompt is 9000 tokens, over 8192")
        scenario_log.record_judge_reply(Reply('{"verdict"', finish_reason="length"), 64)
        return log, scenario_log.current()

    log, current = in_fresh_task(steps)
    assert current is log
    assert (log.key, log.lane, log.group, log.system) == ("k1", 2, "doc-a", "Answer in Norwegian.")
    assert [r.content for r in log.replies] == ["a"] and log.reasoning == ["because"]
    assert log.oversize == "prompt is 9000 tokens, over 8192"
    assert log.judge_replies == [{"text": '{"verdict"', "finish_reason": "length", "max_tokens": 64}]


def test_outside_a_scenario_nothing_is_recorded():
    def steps():
        scenario_log.record_reply(Reply("a"))
        scenario_log.record_oversize("too long")
        scenario_log.record_judge_reply(Reply("j"), None)
        return scenario_log.current()

    assert in_fresh_task(steps) is None


def test_each_begin_starts_empty():
    def steps():
        scenario_log.begin(key="first")
        scenario_log.record_reply(Reply("a"))
        return scenario_log.begin()

    fresh = in_fresh_task(steps)
    assert (fresh.key, fresh.lane, fresh.group, fresh.system, fresh.replies, fresh.oversize, fresh.judge_replies) \
        == (None, None, None, None, [], None, [])


@pytest.mark.parametrize("judgment, replies", [
    ({"severity": "pass", "ungraded_reason": "unparseable"}, [{"text": "x", "finish_reason": "length"}]),
    ({"severity": "ungraded", "ungraded_reason": ""}, [{"text": "x", "finish_reason": "length"}]),
    ({"severity": "ungraded", "ungraded_reason": "unparseable"}, []),
])
def test_only_an_ungraded_judgment_with_a_reason_and_a_judge_reply_is_explained(judgment, replies):
    before = dict(judgment)
    scenario_log.explain_ungraded(judgment, scenario_log.ScenarioLog(judge_replies=replies))
    assert judgment == before


def test_a_whole_judge_reply_is_given_without_a_cut_note_and_the_last_one_counts():
    log = scenario_log.ScenarioLog(judge_replies=[{"text": "first", "finish_reason": "length", "max_tokens": 8},
                                                  {"text": "{oops}", "finish_reason": "stop", "max_tokens": 8}])
    judgment = {"severity": "ungraded", "ungraded_reason": "unparseable"}
    scenario_log.explain_ungraded(judgment, log)
    assert judgment == {"severity": "ungraded", "ungraded_reason": "unparseable", "judge_reply": "{oops}"}
