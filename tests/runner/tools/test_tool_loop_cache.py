"""The tool loop: each step through the model-call path, so a repeated or resumed conversation replays its steps
from the response cache without new requests."""

from __future__ import annotations

import json

import pytest

from auditpacks.runner.tools.tool_loop import ToolLoop, endpoint_model
from tests.support.tool_server import ScriptedToolServer

MESSAGES = [{"role": "system", "content": "sys"}, {"role": "user", "content": "which cases?"}]
SPEC = {"type": "function", "function": {"name": "lookup", "description": "d",
                                          "parameters": {"type": "object", "properties": {"q": {"type": "string"}}}}}


class Result:
    def __init__(self, name, arguments):
        self.name, self.arguments, self.content, self.ok = name, arguments, json.dumps({"found": arguments}), True
        self.error, self.leak, self.source_dates, self.truncated = None, False, ["1949-04-09"], False


class Box:
    """Answers every call with its arguments; ``fail`` makes the call raise (a crash mid-conversation)."""

    def __init__(self, fail=False):
        self.fail, self.calls = fail, []

    def specs(self):
        return [SPEC]

    def call(self, name, arguments):
        if self.fail:
            raise ConnectionError("tool went away")
        self.calls.append((name, arguments))
        return Result(name, json.loads(arguments))


def script(body, n):
    """A tool call first, then the answer once a tool result is in the conversation."""
    if any(m["role"] == "tool" for m in body["messages"]):
        return {"content": "001"}
    return {"tool_calls": [("lookup", '{"q": "Corfu"}')]}


def _loop(server, cache, max_steps=3):
    return ToolLoop(endpoint_model(server.base_url, "scripted", cache=cache), max_steps=max_steps)


def test_a_repeated_conversation_replays_every_step_from_the_cache(tmp_path):
    with ScriptedToolServer(script) as server:
        loop = _loop(server, tmp_path)
        first = loop.run(MESSAGES, Box())
        loop.close()
        assert len(server.requests) == 2
        assert server.requests[0]["tools"] == [SPEC] and server.requests[1]["messages"][-1] == {
            "role": "tool", "tool_call_id": "call_0_0", "content": '{"found": {"q": "Corfu"}}'}
        loop = _loop(server, tmp_path)
        box = Box()
        second = loop.run(MESSAGES, box)
        loop.close()
        assert len(server.requests) == 2  # nothing new was asked
    assert second.text == first.text == "001"
    assert [s.get("cached") for s in second.steps] == [True, None, True]
    assert box.calls == [("lookup", '{"q": "Corfu"}')]  # the tools still answer: their results are not cached
    assert (second.input_tokens, second.output_tokens) == (100 + 101, 10 + 11)


def test_a_conversation_cut_short_resumes_from_its_cached_steps(tmp_path):
    with ScriptedToolServer(script) as server:
        loop = _loop(server, tmp_path)
        with pytest.raises(ConnectionError):
            loop.run(MESSAGES, Box(fail=True))
        assert len(server.requests) == 1
        finished = loop.run(MESSAGES, Box())
        loop.close()
        assert len(server.requests) == 2  # step 1 replayed, only step 2 asked
    assert finished.text == "001" and finished.steps[0]["cached"] is True and finished.steps[2]["cached"] is False


def test_without_a_cache_every_step_is_asked_and_the_budget_ends_in_a_final_call(tmp_path):
    with ScriptedToolServer(lambda body, n: {"tool_calls": [("lookup", "{}")]} if "tools" in body
                            else {"content": "done"}) as server:
        loop = _loop(server, None, max_steps=2)
        out = loop.run(MESSAGES, Box())
        loop.run(MESSAGES, Box())
        loop.close()
        assert len(server.requests) == 6 and "tools" not in server.requests[2]
        assert server.requests[2]["messages"][-1]["content"] == loop.final_nudge
    assert out.capped and out.text == "done"
