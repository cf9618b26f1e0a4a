"""The tool loop's budgets: calls run per reply, arguments kept cut with their true length, and bad calls (no
``function``, deep nesting, a huge number) answered with an error result the model reads."""

from __future__ import annotations

import json
import time

from auditpacks.runner.models.providers.openai_compat import MAX_TOOL_ARGUMENT_CHARS
from auditpacks.runner.tools.tool_loop import MAX_CALLS, ToolLoop, endpoint_model
from tests.runner.tools.test_tool_loop_cache import MESSAGES, Box
from tests.support.tool_server import ScriptedToolServer


def run(script, tmp_path):
    with ScriptedToolServer(lambda body, n: script[min(n, len(script) - 1)]) as server:
        loop = ToolLoop(endpoint_model(server.base_url, "scripted", cache=tmp_path / "cache"), max_steps=3)
        box = Box()
        try:
            return loop.run(MESSAGES, box), box, server.requests
        finally:
            loop.close()


def tool_messages(request):
    return [json.loads(m["content"]) for m in request["messages"] if m["role"] == "tool"]


def test_only_the_first_calls_of_a_reply_are_run_and_the_trace_says_how_many_were_asked(tmp_path):
    many = {"tool_calls": [("lookup", json.dumps({"q": str(i)})) for i in range(2000)]}
    started = time.monotonic()
    done, box, requests = run([many, {"content": "001"}], tmp_path)
    assert time.monotonic() - started < 30 and done.text == "001"
    assert len(box.calls) == MAX_CALLS == 8
    assert done.steps[0]["tool_calls"] == 2000 and done.steps[0]["tool_calls_run"] == 8
    assert len(requests[1]["messages"][-9]["tool_calls"]) == 8 and len(tool_messages(requests[1])) == 8


def test_arguments_over_the_cap_are_not_run_and_kept_cut_with_their_true_length(tmp_path):
    huge = json.dumps({"q": "x" * 20_000_000})
    done, box, requests = run([{"tool_calls": [("lookup", huge)]}, {"content": "001"}], tmp_path)
    assert box.calls == []
    [step] = [s for s in done.steps if s["kind"] == "tool"]
    assert step["arguments_chars"] == len(huge) and len(step["arguments"]) == MAX_TOOL_ARGUMENT_CHARS == 16_000
    assert step["error"] == f"arguments are {len(huge)} characters, over the 16000-character cap; not run"
    assert tool_messages(requests[1]) == [{"error": step["error"]}]
    assert requests[1]["messages"][-2]["tool_calls"][0]["function"]["arguments"] == "{}"
    assert sum(p.stat().st_size for p in (tmp_path / "cache").rglob("*") if p.is_file()) < 200_000


def test_bad_calls_get_error_results_and_the_scenario_goes_on(tmp_path):
    bad = {"raw_tool_calls": [{"id": "c1", "type": "function"},                                     # no function
                              {"id": "c2", "type": "function", "function": {"name": "lookup",
                                                                            "arguments": "[" * 5000 + "]" * 5000}},
                              {"id": "c3", "type": "function", "function": {"name": "lookup",
                                                                            "arguments": '{"q": 1' + "9" * 5000 + "}"}}]}
    done, box, requests = run([bad, {"content": "001"}], tmp_path)
    assert done.text == "001" and [name for name, _ in box.calls] == [None, "lookup", "lookup"]
    errors = [m["error"] for m in tool_messages(requests[1])]
    assert len(errors) == 3 and all(e.startswith("the call could not be run (") for e in errors)
    assert "RecursionError" in errors[1] and "ValueError" in errors[2]
