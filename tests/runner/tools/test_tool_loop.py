"""The tool loop against a scripted tool-calling server: what the model is shown, the step cap, the trace; then in
process, over a stand-in model and tool box: the requests, the budgets, the trace of each step and the bad calls."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from auditpacks.packs.icj.tools.catalogue import conditions
from auditpacks.packs.icj.tools.toolbox import ToolBox
from auditpacks.runner.models.reply import Reply
from auditpacks.runner.tools.tool_loop import FINAL_NUDGE, ToolLoop, _tool_step, endpoint_model
from tests.support.icj_graph import NICARAGUA_MERITS, snapshots
from tests.support.tool_server import ScriptedToolServer

ANSWER = '{"citation_case_ids": ["001"], "citation_provision_keys": [], "citation_resolution_symbols": []}'
MESSAGES = [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}]


@pytest.fixture(scope="module")
def box(tmp_path_factory):
    return ToolBox(snapshots(tmp_path_factory, "1986-06-27")["1986-06-27"], conditions()["Designed Tools Only"])


def test_tool_calls_are_answered_and_every_step_kept(box):
    script = [{"tool_calls": [("find_case", '{"query": "Corfu"}'),
                              ("get_document", json.dumps({"document_id": NICARAGUA_MERITS}))]},
              {"tool_calls": [("get_case", "{not json"), ("teleport", "{}"), ("get_case", '{"case_id": "1"}')]},
              {"content": ANSWER}]
    with ScriptedToolServer(lambda body, n: script[n]) as server:
        done = ToolLoop(endpoint_model(server.base_url, "scripted"), max_steps=5).run(MESSAGES, box)
        requests = server.requests
    assert done.text == ANSWER and done.finish_reason == "stop" and not done.capped
    assert len(requests) == 3 and len(requests[0]["tools"]) == 12
    shown = [m for m in requests[2]["messages"] if m["role"] == "tool"]
    assert [json.loads(m["content"]).get("error") for m in shown] == [
        None, "no document with that id before the cutoff", "arguments are not valid JSON (Expecting property name "
        "enclosed in double quotes)", "no tool 'teleport'; tools: " + ", ".join(box.tools), None]
    assert json.loads(shown[0]["content"])["cases"][0]["case_id"] == "001"
    assert [m["tool_call_id"] for m in shown] == ["call_0_0", "call_0_1", "call_1_0", "call_1_1", "call_1_2"]
    tools = [s for s in done.steps if s["kind"] == "tool"]
    assert [s["tool"] for s in tools] == ["find_case", "get_document", "get_case", "teleport", "get_case"]
    assert tools[4]["source_dates"] == ["1947-12-01", "1948-03-25", "1949-04-09", "1949-12-15"]
    assert (done.input_tokens, done.output_tokens) == (100 + 101 + 102, 10 + 11 + 12)


def test_the_step_cap_ends_with_one_call_without_tools(box):
    def script(body, n):
        return {"content": ANSWER} if "tools" not in body else {"tool_calls": [("find_judge", '{"query": "x"}')]}

    with ScriptedToolServer(script) as server:
        done = ToolLoop(endpoint_model(server.base_url, "scripted"), max_steps=2).run(MESSAGES, box)
        requests = server.requests
    assert len(requests) == 3 and "tools" in requests[1] and "tools" not in requests[2]
    assert requests[2]["messages"][-1] == {"role": "user", "content": FINAL_NUDGE}
    assert done.capped and done.text == ANSWER
    assert sum(s["kind"] == "tool" for s in done.steps) == 2


def test_without_tools_the_first_reply_is_final():
    with ScriptedToolServer(lambda body, n: {"content": "tools" in body and "x" or ANSWER}) as server:
        done = ToolLoop(endpoint_model(server.base_url, "scripted"), max_steps=3).run(MESSAGES, None)
    assert done.text == ANSWER and len(done.steps) == 1


# In process: a stand-in model answering from a list of replies, and a tool box that records its calls.

class FakeModel:
    def __init__(self, *replies: Reply) -> None:
        self.replies, self.requests, self.closed = list(replies), [], False

    async def generate(self, request):
        self.requests.append(request)
        return self.replies.pop(0)

    async def aclose(self):
        self.closed = True


class FakeBox:
    SPECS = [{"type": "function", "function": {"name": "look"}}]

    def __init__(self, fail: BaseException | None = None) -> None:
        self.calls, self.fail = [], fail

    def specs(self):
        return self.SPECS

    def call(self, name, arguments):
        self.calls.append((name, arguments))
        if self.fail is not None:
            raise self.fail
        return SimpleNamespace(name=name, arguments={"q": {1, 2}} if name == "odd" else json.loads(arguments),
                               content=f"{name} says hi", ok=True, error=None, leak=True,
                               source_dates=["2000-01-01"], truncated=True)


def asks(*names: str, **extra) -> Reply:
    """A reply asking for a call of each tool in ``names`` (ids ``c0``, ``c1``...)."""
    return Reply("thinking", tool_calls=[{"id": f"c{i}", "name": name, "arguments": '{"q": 1}', **extra}
                                         for i, name in enumerate(names)], finish_reason="tool_calls",
                 input_tokens=10, output_tokens=2)


def drive(*replies: Reply, box=None, **options):
    model = FakeModel(*replies)
    loop = ToolLoop(model, **options)
    try:
        return loop.run(MESSAGES, box), model
    finally:
        loop.close()


def test_without_a_tool_box_one_plain_call_answers():
    done, model = drive(Reply("final", finish_reason="stop", input_tokens=5, output_tokens=None, cached=True))
    [request] = model.requests
    assert (request.messages, dict(request.params)) == (MESSAGES, {"temperature": 0.0})
    assert (done.text, done.finish_reason, done.capped, done.input_tokens, done.output_tokens) == (
        "final", "stop", False, 5, 0)
    assert done.steps == [{"kind": "model", "call": 1, "tokens": {"input": 5, "output": 0}, "cached": True,
                           "finish_reason": "stop", "tool_calls": 0, "text": "final"}]
    assert model.closed


def test_decoding_settings_and_the_tools_go_with_every_call_but_the_last():
    done, model = drive(asks("look"), Reply("final"), box=FakeBox(), max_steps=1, max_tokens=64,
                        temperature=0.7, final_nudge="Answer now.")
    assert [dict(r.params) for r in model.requests] == [
        {"temperature": 0.7, "max_tokens": 64, "tools": FakeBox.SPECS}, {"temperature": 0.7, "max_tokens": 64}]
    assert model.requests[1].messages[-1] == {"role": "user", "content": "Answer now."}
    assert done.capped and done.text == "final" and MESSAGES[-1] == {"role": "user", "content": "u"}


def test_a_tool_call_is_run_and_its_result_shown_to_the_model():
    box = FakeBox()
    done, model = drive(asks("look"), Reply("final", finish_reason="stop", input_tokens=7, output_tokens=3),
                        box=box)
    assert box.calls == [("look", '{"q": 1}')]
    assert model.requests[1].messages[2:] == [
        {"role": "assistant", "content": "thinking", "tool_calls": [
            {"id": "c0", "type": "function", "function": {"name": "look", "arguments": '{"q": 1}'}}]},
        {"role": "tool", "tool_call_id": "c0", "content": "look says hi"}]
    assert done.steps[1] == {"kind": "tool", "call": 1, "tool": "look", "arguments": {"q": 1},
                             "result": "look says hi", "ok": True, "error": None, "leak": True,
                             "source_dates": ["2000-01-01"], "truncated": True}
    assert done.steps[2]["call"] == 2 and (done.input_tokens, done.output_tokens) == (17, 5)
    assert not done.capped and done.finish_reason == "stop"


def test_only_max_calls_of_a_reply_run_and_the_trace_counts_what_was_asked():
    box = FakeBox()
    done, _ = drive(asks("a", "b", "c"), asks("d", "e"), Reply("final"), box=box, max_calls=2)
    assert [name for name, _ in box.calls] == ["a", "b", "d", "e"]
    model_steps = [s for s in done.steps if s["kind"] == "model"]
    assert [(s["tool_calls"], s.get("tool_calls_run")) for s in model_steps] == [(3, 2), (2, None), (0, None)]


def test_the_default_budgets_are_eight_steps_and_eight_calls_a_reply():
    box = FakeBox()
    done, model = drive(*[asks(*"abcdefghij")] * 8, Reply("final"), box=box)
    assert len(model.requests) == 9 and "tools" not in model.requests[8].params and done.capped
    assert len(box.calls) == 64 and model.requests[8].messages[-1] == {"role": "user", "content": FINAL_NUDGE}


def test_a_call_with_no_name_or_cut_arguments_is_shown_to_the_model_as_sent():
    done, model = drive(asks(None, arguments_chars=20_000), Reply("final"), box=FakeBox())
    assert model.requests[1].messages[2]["tool_calls"][0]["function"] == {"name": "", "arguments": "{}"}
    assert (done.input_tokens, done.output_tokens) == (10, 2)   # the final reply counted no tokens


def test_tools_asked_for_in_the_last_call_are_not_run_and_its_text_is_the_answer():
    box = FakeBox()
    done, _ = drive(asks("a"), asks("b"), box=box, max_steps=1)
    assert box.calls == [("a", '{"q": 1}')] and (done.text, done.finish_reason, done.capped) == (
        "thinking", "tool_calls", True)
    assert done.steps[-1]["tool_calls"] == 0


def test_no_steps_at_all_asks_nothing_and_answers_empty():
    done, model = drive(Reply("never"), box=FakeBox(), max_steps=-1)
    assert model.requests == [] and (done.text, done.finish_reason, done.steps, done.capped) == ("", None, [], False)


def test_the_last_call_offers_no_tools_even_without_a_tool_box():
    done, model = drive(Reply("final", tool_calls=[{"id": "c0", "name": "x", "arguments": "{}"}]), max_steps=0)
    assert "tools" not in model.requests[0].params and not done.capped and done.text == "final"
    assert model.requests[0].messages == MESSAGES


def test_arguments_over_the_cap_are_not_run_and_the_trace_keeps_their_length():
    box = FakeBox()
    step, content = _tool_step(box, {"id": "c0", "name": "look", "arguments": '{"q": ', "arguments_chars": 20_000})
    error = "arguments are 20000 characters, over the 6-character cap; not run"
    assert box.calls == [] and json.loads(content) == {"error": error}
    assert step == {"tool": "look", "arguments": '{"q": ', "result": content, "ok": False, "error": error,
                    "leak": False, "source_dates": [], "truncated": False, "arguments_chars": 20_000}


@pytest.mark.parametrize("exc, error", [
    (ValueError("bad JSON\nat line 2"), "the call could not be run (ValueError: bad JSON)"),
    (TypeError("x" * 300), f"the call could not be run (TypeError: {'x' * 200})"),
    (KeyError(), "the call could not be run (KeyError)"),
    (LookupError(""), "the call could not be run (LookupError)"),
    (AttributeError("no attribute"), "the call could not be run (AttributeError: no attribute)"),
    (RecursionError("too deep"), "the call could not be run (RecursionError: too deep)"),
])
def test_a_call_the_tool_box_refuses_is_an_error_result_for_the_model(exc, error):
    step, content = _tool_step(FakeBox(fail=exc), {"id": "c0", "name": None, "arguments": "[[["})
    assert json.loads(content) == {"error": error} and "arguments_chars" not in step
    assert (step["tool"], step["arguments"], step["result"], step["ok"], step["error"]) == (
        "None", "[[[", content, False, error)


def test_a_failing_tool_server_still_ends_the_scenario():
    with pytest.raises(OSError):
        _tool_step(FakeBox(fail=OSError("refused")), {"id": "c0", "name": "look", "arguments": "{}"})


def test_arguments_the_trace_cannot_store_as_json_are_kept_as_text():
    step, _ = _tool_step(FakeBox(), {"id": "c0", "name": "odd", "arguments": "{}"})
    assert step["arguments"] in ("{'q': {1, 2}}", "{'q': {2, 1}}")


@pytest.mark.parametrize("key, cache", [("sk-1", True), (None, False)])
def test_an_endpoint_model_is_one_openai_compatible_endpoint(tmp_path, key, cache):
    model = endpoint_model("http://h:1/v1/", "m", api_key=key, cache=tmp_path if cache else None, retries=5,
                           timeout=9.0)
    assert (model.api.model, model.api.base_url, model.api.secret, model.api.timeout) == (
        "m", "http://h:1/v1", key or "-", 9.0)
    assert (model.policy.max_retries, model.policy.timeout) == (5, 9.0)
    assert (model.cache.root if cache else model.cache) == (tmp_path if cache else None)


def test_an_endpoint_model_defaults_to_two_retries_and_two_minutes():
    model = endpoint_model("http://h:1/v1", "m")
    assert (model.policy.max_retries, model.policy.timeout, model.api.timeout, model.cache) == (2, 120.0, 120.0, None)
