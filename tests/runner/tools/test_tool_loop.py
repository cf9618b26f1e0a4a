"""The tool loop against a scripted tool-calling server: what the model is shown, the step cap, the trace."""

from __future__ import annotations

import json

import pytest

from auditpacks.packs.icj.tools.catalogue import conditions
from auditpacks.packs.icj.tools.toolbox import ToolBox
from auditpacks.runner.tools.tool_loop import FINAL_NUDGE, ToolLoop, endpoint_model
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
