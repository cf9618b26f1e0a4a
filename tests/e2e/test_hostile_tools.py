"""A model that sends a read-only Cypher query of gigabytes (``UNWIND range(1, 300000000)``) and 2,000 tool calls in
one reply: the tool run ends within its budgets, the query an error result the model reads, peak memory (the run
and its query process) under 600 MB, measured around a child process."""

from __future__ import annotations

import json
import subprocess
import sys

from auditpacks.core.runs.run_files import TRACES_SUFFIX
from auditpacks.runner.cli.main import main
from tests.e2e.test_hostile_servers import MEASURE
from tests.support.icj_graph import GRAPH, TARGETS
from tests.support.paths import ROOT
from tests.support.tool_server import ScriptedToolServer

ATTACK = json.dumps({"query": "UNWIND range(1, 300000000) AS x RETURN x"})


def script(body, n):
    if n == 0:
        return {"tool_calls": [("run_cypher", ATTACK)] + [("get_schema", "{}")] * 1999}
    return {"content": '{"citation_case_ids": [], "citation_provision_keys": [], "citation_resolution_symbols": []}'}


def test_a_gigabyte_query_and_2000_calls_end_within_budgets_under_600_mb(tmp_path):
    pack, out = tmp_path / "icj.json", tmp_path / "out"
    assert main(["build", "icj", "--source", str(TARGETS.parent.parent), "--out", str(pack)]) == 0
    with ScriptedToolServer(script) as server:
        args = ["tools", "icj", "run", "--graph", str(GRAPH), "--pack", str(pack), "--condition", "Cypher + Lexical",
                "--base-url", server.base_url, "--target", "scripted", "--limit", "1", "--max-steps", "2",
                "--out", str(out)]
        done = subprocess.run([sys.executable, "-c", MEASURE, *args], cwd=ROOT, capture_output=True, text=True,
                              timeout=300)
    code, rss_kib = done.stdout.split()
    assert int(code) == 0 and int(rss_kib) / 1024 < 600, (code, int(rss_kib) / 1024, done.stderr[-500:])
    trace = json.loads(next(out.glob(f"*{TRACES_SUFFIX}")).read_text(encoding="utf-8").splitlines()[0])
    tools = [s for s in trace["steps"] if s["kind"] == "tool"]
    assert len(tools) == 8 and trace["steps"][0]["tool_calls"] == 2000
    assert tools[0]["error"] == "query failed: stopped: the query needs more memory than a tool query may use"
