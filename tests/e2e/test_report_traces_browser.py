"""A tool run's report in headless Chromium: the condition, each scenario's tool calls (arguments, result,
blocked-by-cutoff marks) shown as text, no console errors, no network, and a phone-width layout that fits.
The run is on the scripted tool server (no model)."""

from __future__ import annotations

import json

import pytest

from auditpacks.core.runs.run_files import TRACES_SUFFIX, stem_of
from auditpacks.runner.cli.main import main
from tests.conftest import model_unusable
from tests.support.browser import browser_unavailable, open_page
from tests.support.icj_graph import GRAPH
from tests.support.paths import FIXTURES
from tests.support.tool_server import ScriptedToolServer

XSS = "<script>alert(1)</script>"
ANSWER = '{"citation_case_ids": ["001"], "citation_provision_keys": [], "citation_resolution_symbols": []}'


def script(body, n):
    if "tools" in body and not any(m["role"] == "tool" for m in body["messages"]):
        return {"tool_calls": [("find_case", json.dumps({"query": XSS})), ("get_case_citations", '{"case_id": "001"}')]}
    return {"content": ANSWER}


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    if browser_unavailable():
        model_unusable(f"headless browser: {browser_unavailable()}")
    folder = tmp_path_factory.mktemp("traces")
    pack, out = folder / "icj.json", folder / "run"
    assert main(["build", "icj", "--source", str(FIXTURES / "icj"), "--out", str(pack)]) == 0
    with ScriptedToolServer(script) as server:
        assert main(["tools", "icj", "run", "--graph", str(GRAPH), "--pack", str(pack), "--condition",
                     "Designed Tools Only", "--base-url", server.base_url, "--target", "scripted", "--limit", "2",
                     "--out", str(out), "--cache", str(folder / "snapshots")]) == 0
    traces = next(out.glob(f"*{TRACES_SUFFIX}"))
    lines = [json.loads(line) for line in traces.read_text(encoding="utf-8").splitlines()]
    lines[0]["steps"][2].update(leak=True, ok=False, error="a date on or after the cutoff: 2004-07-09")
    traces.write_text("".join(json.dumps(t) + "\n" for t in lines), encoding="utf-8")
    html = folder / "report.html"
    assert main(["report", str(out), "--pack", str(pack), "--out", str(html)]) == 0
    assert stem_of(traces) == "scripted"
    return html


def test_tool_calls_and_cutoff_marks_are_shown(report):
    with open_page(report) as opened:
        page = opened.page
        assert "Designed Tools Only" in page.locator("p.condition").inner_text()
        traces = page.locator("details.trace")
        assert traces.count() == 2
        traces.first.locator("summary").click()
        first = traces.first
        assert "Tool calls: 2" in first.locator("summary").inner_text()
        assert "1 blocked by the cutoff" in first.locator("summary").inner_text()
        assert first.locator("li.step.tool").count() == 2 and first.locator("li.step.model").count() == 2
        blocked = first.locator("li.step.blocked")
        assert blocked.count() == 1 and "get_case_citations" in blocked.inner_text()
        assert "blocked by cutoff" in blocked.inner_text() and blocked.locator("pre.result").count() == 0
        args = first.locator("pre.args").first
        assert args.is_visible() and XSS in args.inner_text()
        assert first.locator("pre.result").inner_text() == '{"cases": [], "source_dates": []}'  # no case so named
        assert page.locator("details.trace").nth(1).locator("li.step.blocked").count() == 0
        assert opened.console_errors == [] and opened.dialogs == [] and opened.requests == []
    with open_page(report, width=390, height=844) as opened:
        opened.page.locator("details.trace").first.locator("summary").click()
        assert opened.page.evaluate("document.documentElement.scrollWidth") <= 390
