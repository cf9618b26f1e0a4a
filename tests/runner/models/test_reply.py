"""A reply carries its own facts, and the cache stores exactly the five fields it always held."""

from __future__ import annotations

from auditpacks.runner.models.reply import Reply


def test_a_reply_stopped_at_the_token_limit_is_truncated():
    assert Reply("x", finish_reason="length").truncated
    assert not Reply("x", finish_reason="stop").truncated and not Reply("x").truncated


def test_the_cached_record_round_trips_and_keeps_only_its_fields():
    reply = Reply("a", reasoning="r", input_tokens=7, output_tokens=2, finish_reason="stop", cached=True)
    assert reply.record() == {"content": "a", "reasoning": "r", "input_tokens": 7, "output_tokens": 2,
                              "finish_reason": "stop"}
    back = Reply.from_record(reply.record(), cached=True)
    assert back == reply
    assert Reply.from_record({"content": None}).content == ""


def test_the_facts_a_grader_reads_leave_out_what_is_unknown():
    assert Reply("a", reasoning="r", finish_reason="length").facts() == {"finish_reason": "length", "reasoning": "r"}
    assert Reply("a").facts() == {}


def test_tool_calls_are_cached_only_when_the_model_asked_for_tools():
    calls = [{"id": "call_0_0", "name": "lookup", "arguments": '{"q": "Corfu"}'}]
    reply = Reply("", input_tokens=3, output_tokens=1, finish_reason="tool_calls", tool_calls=calls)
    assert reply.record()["tool_calls"] == calls and Reply.from_record(reply.record()) == reply
    assert "tool_calls" not in Reply("a").record()  # a plain reply's cache entry keeps its five fields


def test_a_decision_batch_reply_is_cached_whole_and_only_when_it_is_one():
    data = {"model": "clef", "answers": {"a": {"choice": "yes"}, "a~2": {"choice": "no"}}, "usage": {"input_tokens": 5}}
    reply = Reply("", input_tokens=5, batch=data)
    assert reply.record()["batch"] == data and Reply.from_record(reply.record()) == reply
    assert "batch" not in Reply("a").record()


def test_a_reply_takes_only_valid_token_counts():
    import math

    assert Reply(content="a", input_tokens=math.nan, output_tokens=-5).record()["input_tokens"] is None
    assert Reply(content="a", input_tokens=12.0, output_tokens=10**30).input_tokens == 12
    assert Reply.from_record({"content": "a", "input_tokens": "7", "output_tokens": 3}).output_tokens == 3
    assert Reply.from_record({"content": "a", "input_tokens": "7"}).input_tokens is None


def test_a_decision_answer_and_the_served_model_are_cached_and_read_back():
    """A decision model's answer and the server's own model name survive the cache, under their own keys."""
    decision = {"choice": "yes", "confidence": 0.9}
    reply = Reply("", decision=decision, served_model="llama-3.1-8b-instruct-q4")
    assert reply.record() == {"content": "", "reasoning": None, "input_tokens": None, "output_tokens": None,
                              "finish_reason": None, "decision": decision,
                              "served_model": "llama-3.1-8b-instruct-q4"}
    back = Reply.from_record(reply.record())
    assert (back.decision, back.served_model) == (decision, "llama-3.1-8b-instruct-q4")


def test_the_served_model_name_is_kept_to_200_characters_and_only_as_text():
    """A server's name for its model is stored as at most 200 characters; anything but text is unknown."""
    assert Reply("a", served_model="m" * 250).served_model == "m" * 200
    assert Reply("a", served_model=["gpt"]).served_model is None
