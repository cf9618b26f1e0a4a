"""Tool runs: results, traces and info written; finished scenarios kept in a journal and resumed."""

from __future__ import annotations

import json

import pytest

from auditpacks.core.condition import Condition, ToolSetup
from auditpacks.core.errors import UserError
from auditpacks.core.runs.run_files import tool_run_names
from auditpacks.runner.tools.tool_run import run_with_tools
from auditpacks.runner.tools.tool_loop import ToolLoop, endpoint_model
from tests.support.tool_server import ScriptedToolServer

SCENARIOS = [{"name": f"s{i}", "description": "d", "test_prompt": f"prompt {i}", "expected_behavior": ["x"]}
             for i in range(4)]


def _grade(scenario, reply):
    return {"severity": "pass" if reply["content"] == "ok" else "high", "summary": reply["content"]}


def _run(server, out, toolbox_for, condition="c", fresh=False):
    loop = ToolLoop(endpoint_model(server.base_url, "scripted"), max_steps=2)
    setup = ToolSetup(Condition(condition), toolbox_for, _grade, judge="choice", system="sys", info={"search": None})
    try:
        return run_with_tools(SCENARIOS, loop, setup, out=out, stem="scripted", fresh=fresh)[0]
    finally:
        loop.close()


def test_an_interrupted_run_resumes_its_finished_scenarios(tmp_path):
    def broken(scenario):
        if scenario["name"] == "s2":
            raise ConnectionError("endpoint went away")
        return None

    with ScriptedToolServer(lambda body, n: {"content": "ok"}) as server:
        first = _run(server, tmp_path, broken)
        assert first["errors"] == 1 and len(server.requests) == 3
        results = json.loads((tmp_path / "scripted.json").read_text())["results"]
        assert results[2]["severity"] == "ERROR" and "endpoint went away" in results[2]["judgment"]["error"]
        second = _run(server, tmp_path, lambda s: None)
        assert second["resumed"] == 3 and second["errors"] == 0
        assert len(server.requests) == 4  # only s2 ran again
        assert server.requests[-1]["messages"] == [{"role": "system", "content": "sys"},
                                                   {"role": "user", "content": "prompt 2"}]
        third = _run(server, tmp_path, lambda s: None, fresh=True)
        assert third["resumed"] == 0 and len(server.requests) == 8
    results = json.loads((tmp_path / "scripted.json").read_text())["results"]
    assert [r["severity"] for r in results] == ["pass"] * 4
    assert [r["judgment"]["condition"] for r in results] == ["c"] * 4
    assert json.loads((tmp_path / tool_run_names("scripted")[1]).read_text())["counts"]["scenarios"] == 4
    assert len((tmp_path / tool_run_names("scripted")[0]).read_text().splitlines()) == 4


def test_a_journal_of_another_condition_is_refused(tmp_path):
    with ScriptedToolServer(lambda body, n: {"content": "ok"}) as server:
        _run(server, tmp_path, lambda s: None)
        with pytest.raises(UserError, match="of condition 'c', not 'd'"):
            _run(server, tmp_path, lambda s: None, condition="d")
