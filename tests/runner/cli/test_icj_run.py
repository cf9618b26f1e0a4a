"""``auditpacks icj-tools run`` on the scripted server, then ``export icj`` and ``score icj`` per condition."""

from __future__ import annotations

import json

import pytest

from auditpacks.runner.cli.main import main
from tests.support.icj_graph import GRAPH, TARGETS
from tests.support.tool_server import ScriptedToolServer

FIXTURE = TARGETS.parent.parent
ANSWER = {"citation_case_ids": ["001", "064"], "citation_provision_keys": ["statute:article_53"],
          "citation_resolution_symbols": []}


def script(body, n):
    """Ask get_case_citations once per conversation, then answer with a fixed prediction."""
    asked = any(m["role"] == "tool" for m in body["messages"])
    if "tools" in body and not asked:
        return {"tool_calls": [("get_case_citations", '{"case_id": "001"}')]}
    return {"content": json.dumps(ANSWER)}


@pytest.fixture(scope="module")
def pack(tmp_path_factory):
    out = tmp_path_factory.mktemp("pack") / "icj.json"
    assert main(["build", "icj", "--source", str(FIXTURE), "--out", str(out)]) == 0
    return out


def _run(pack, tmp_path, condition, server):
    return main(["icj-tools", "run", "--graph", str(GRAPH), "--pack", str(pack), "--condition", condition,
                 "--base-url", server.base_url, "--target", "scripted", "--out", str(tmp_path / "out" / condition),
                 "--cache", str(tmp_path / "cache")])


def test_tool_conditions_run_export_and_score(pack, tmp_path, capsys):
    with ScriptedToolServer(script) as server:
        assert _run(pack, tmp_path, "Designed Tools Only", server) == 0
        assert _run(pack, tmp_path, "Parametric", server) == 0
        requests = server.requests
    assert len(requests) == 5 * 2 + 5  # two calls per target with tools, one without
    folder = tmp_path / "out" / "Designed Tools Only"
    traces = [json.loads(line) for line in (folder / "scripted.traces.jsonl").read_text().splitlines()]
    assert len(traces) == 5 and all(t["steps"][1]["tool"] == "get_case_citations" for t in traces)
    info = json.loads((folder / "scripted.tools.json").read_text())
    assert info["search"] == "bm25 (lexical), cut corpus" and info["counts"]["tool_calls"] == 5
    predictions = tmp_path / "predictions.jsonl"
    lines = []
    for condition in ("Designed Tools Only", "Parametric"):
        out = tmp_path / f"{condition}.jsonl"
        assert main(["export", "icj", str(tmp_path / "out" / condition / "scripted.json"), "--model-id", "scripted",
                     "--out", str(out)]) == 0
        lines += out.read_text().splitlines()
    predictions.write_text("\n".join(lines) + "\n")
    assert {json.loads(line)["condition"] for line in lines} == {"Designed Tools Only", "Parametric"}
    capsys.readouterr()
    assert main(["score", "icj", "--pred", str(predictions), "--test", str(TARGETS), "--json"]) == 0
    scores = json.loads(capsys.readouterr().out)["results"]["scripted"]
    # the same answer for all five targets: cases TP = 070's 001 and 064 = 2, FP = 5*2 - 2 = 8, FN = 7 - 2 = 5
    for condition in ("Designed Tools Only", "Parametric"):
        cases = scores[condition]["case_ids"]
        assert (cases["tp"], cases["fp"], cases["fn"]) == ([2], [8], [5])


def test_an_unknown_condition_is_one_line(pack, tmp_path, capsys):
    with ScriptedToolServer(script) as server:
        assert _run(pack, tmp_path, "Cypher + Semantic", server) == 2
    assert "not one of Parametric, Cypher + Lexical, Designed Tools Only" in capsys.readouterr().err


def test_every_tool_loop_call_is_capped_and_carries_the_inputs_system_message(pack, tmp_path):
    from auditpacks.packs.pack import load_pack

    built = load_pack(pack)
    with ScriptedToolServer(script) as server:
        assert _run(pack, tmp_path, "Designed Tools Only", server) == 0
        bodies = server.requests
    budget = built.manifest["run"]["max_tokens"]  # the pack's output budget: no call generates without end
    assert budget and all(b.get("max_tokens") == budget for b in bodies)
    systems = {b["messages"][0]["content"] for b in bodies if b["messages"][0]["role"] == "system"}
    own = {s["metadata"]["system_prompt"] for s in built.scenarios}
    assert len(systems) == 1 and len(own) == 1
    assert systems.pop().startswith(own.pop() + "\n\n")  # the inputs' system message, then the condition's
    assert (json.loads((tmp_path / "out" / "Designed Tools Only" / "scripted.tools.json").read_text())["max_tokens"]
            == budget)
