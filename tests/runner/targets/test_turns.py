"""The scenario's log: the replies' facts put on the transcript, for the grader and for the results file."""

from __future__ import annotations

from auditpacks.runner.models.reply import Reply
from auditpacks.runner.targets import turns


def test_the_transcript_gets_the_facts_to_grade_and_keeps_the_reasoning():
    log = turns.ScenarioLog(replies=[Reply("a", reasoning="r", finish_reason="length"), Reply("b")])
    conversation = [{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"},
                    {"role": "user", "content": "q2"}, {"role": "assistant", "content": "b"}]
    log.annotate(conversation)
    assert conversation[1] == {"role": "assistant", "content": "a", "reasoning": "r", "finish_reason": "length"}
    assert conversation[3] == {"role": "assistant", "content": "b"}
    log.annotate(conversation, turns.STORED)
    assert conversation[1] == {"role": "assistant", "content": "a", "reasoning": "r"}
    unaligned = [{"role": "assistant", "content": "a"}]
    log.annotate(unaligned)
    assert unaligned == [{"role": "assistant", "content": "a"}]


def test_an_ungraded_judgment_gets_the_judges_raw_reply_and_its_cut():
    log = turns.ScenarioLog(judge_replies=[{"text": '{"verdict": "cor', "finish_reason": "length", "max_tokens": 8}])
    judgment = {"severity": "ungraded", "ungraded_reason": "unparseable"}
    turns.explain_ungraded(judgment, log)
    assert judgment == {"severity": "ungraded", "judge_reply": '{"verdict": "cor',
                        "ungraded_reason": "unparseable; the reply stopped at the output cap (8 tokens)"}
