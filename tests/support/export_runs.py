"""Four finished runs on the test doubles, for the exports' tests: jacite and Iustitia (chat) on the fake OpenAI
server, Iustitia on a System One decision endpoint, and an ICJ run under a tool condition on the scripted tool
server (one of its tool results marked withheld by the cutoff guard, as the report's browser test does).

    folders = make_runs(root)   # {"jacite": Path, "iustitia_chat": Path, "iustitia_decision": Path, "icj_tools": Path}
"""

from __future__ import annotations

import json
from pathlib import Path

from auditpacks.core.runs.run_files import TRACES_SUFFIX
from auditpacks.runner.cli.main import main
from tests.support.fake_openai import FakeOpenAI
from tests.support.faulty_systemone import FaultySystemOne
from tests.support.icj_graph import GRAPH
from tests.support.paths import FIXTURES
from tests.support.runs import run_here
from tests.support.tool_server import ScriptedToolServer

ICJ_ANSWER = json.dumps({"citation_case_ids": ["001"], "citation_provision_keys": ["rules:article_68",
                                                                                  "statute:article_53"],
                         "citation_resolution_symbols": []})
BLOCKED = "a date on or after the cutoff: 2004-07-09"


def citing_answer(model: str, messages: list) -> dict:
    """Japanese: articles 1, 9999 (invented) and 2; English: Article 1 and Article 8888 (invented)."""
    text = str(messages[-1]["content"])
    if "第" in text or "民法" in text:
        return {"content": "民法第一条と第九千九百九十九条、そして第二条を参照してください。"}
    return {"content": "See Article 1 of the Civil Code, and Article 8888."}


def tool_script(body: dict, n: int) -> dict:
    if "tools" in body and not any(m["role"] == "tool" for m in body["messages"]):
        return {"tool_calls": [("find_case", json.dumps({"query": "Corfu"})),
                               ("get_case_citations", '{"case_id": "001"}')]}
    return {"content": ICJ_ANSWER}


NAMES = ("jacite", "iustitia_chat", "iustitia_decision", "icj_tools")


def make_runs(root: Path, names: tuple[str, ...] = NAMES) -> dict[str, Path]:
    """The runs ``names`` (all four by default) under ``root``, with their packs."""
    runs = {name: root / name for name in names}
    jacite, iustitia, icj = root / "jacite.json", root / "iustitia.json", root / "icj.json"
    assert main(["build", "jacite", "--out", str(jacite), "--limit", "8"]) == 0
    assert main(["build", "iustitia", "--source", str(FIXTURES / "iustitia"), "--out", str(iustitia)]) == 0
    assert main(["build", "icj", "--source", str(FIXTURES / "icj"), "--out", str(icj)]) == 0
    if "jacite" in runs:
        with FakeOpenAI(answer=citing_answer) as server:
            assert run_here(jacite, runs["jacite"], server.base_url) == 0
    if "iustitia_chat" in runs:
        with FakeOpenAI() as server:
            assert run_here(iustitia, runs["iustitia_chat"], server.base_url) == 0
    if "iustitia_decision" in runs:
        with FaultySystemOne() as server:
            assert main(["run", "--pack", str(iustitia), "--decision-url", server.url, "--target", "m", "--out",
                         str(runs["iustitia_decision"]), "--quiet"]) == 0
    if "icj_tools" not in runs:
        return runs
    with ScriptedToolServer(tool_script) as server:
        assert main(["tools", "icj", "run", "--graph", str(GRAPH), "--pack", str(icj), "--condition",
                     "Designed Tools Only", "--base-url", server.base_url, "--target", "scripted", "--limit", "2",
                     "--out", str(runs["icj_tools"]), "--cache", str(root / "snapshots")]) == 0
    traces = next(runs["icj_tools"].glob(f"*{TRACES_SUFFIX}"))
    lines = [json.loads(line) for line in traces.read_text(encoding="utf-8").splitlines()]
    lines[0]["steps"][2].update(leak=True, ok=False, error=BLOCKED)
    traces.write_text("".join(json.dumps(t) + "\n" for t in lines), encoding="utf-8")
    return runs


def record_of(folder: Path) -> dict:
    """The run record in ``folder``, as JSON."""
    return json.loads(next(folder.glob("*.run.json")).read_text(encoding="utf-8"))


def results_of(folder: Path) -> list[dict]:
    """Round 1's results list in ``folder``, as JSON."""
    record = record_of(folder)
    return json.loads((folder / record["rounds"][0]["results"]).read_text(encoding="utf-8"))["results"]
