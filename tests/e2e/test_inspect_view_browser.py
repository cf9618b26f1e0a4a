"""The exported Inspect AI logs in Inspect's own viewer: ``inspect view`` serves a folder of them on loopback (for
a bounded time) and headless Chromium shows the logs, each sample with its answer and score, and a tool run's
tool calls in the sample's transcript. The runs are on the test doubles (no model)."""

from __future__ import annotations

import re
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

from auditpacks.runner.cli.main import main
from tests.conftest import model_unusable
from tests.support.browser import browser_unavailable, open_page
from tests.support.export_runs import make_runs, results_of

#: The longest the viewer may take to start, and to run in all.
START_S, LIMIT_S = 60, 300
#: How long one click on a log in the list may take to open it, and how many clicks are tried.
OPEN_MS, CLICKS = 15_000, 6


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def open_log(page, task: str, shown) -> None:
    """Click the log of ``task`` in the viewer's list until ``shown`` (a locator) appears. The list renders
    each log's name before its header has loaded and then renders it again, so on a busy machine a first click
    can land on a node that is replaced before it reacts."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    for _ in range(CLICKS - 1):
        page.get_by_text(task, exact=True).first.click()
        try:
            shown.wait_for(timeout=OPEN_MS)
            return
        except PlaywrightTimeout:
            continue
    page.get_by_text(task, exact=True).first.click()
    shown.wait_for(timeout=OPEN_MS)


@pytest.fixture(scope="module")
def viewer(tmp_path_factory):
    """(the viewer's URL, the runs): ``inspect view`` over the exported logs of a jacite and an ICJ tool run."""
    if browser_unavailable():
        model_unusable(f"headless browser: {browser_unavailable()}")
    root = tmp_path_factory.mktemp("inspect-view")
    runs = make_runs(root, ("jacite", "icj_tools"))
    logs = root / "logs"
    for name, folder in runs.items():
        assert main(["export", "inspect", str(folder), "--out", str(logs / f"{name}.eval")]) == 0
    port = free_port()
    url = f"http://127.0.0.1:{port}/"
    with open(root / "view.log", "wb") as out:
        server = subprocess.Popen(["timeout", str(LIMIT_S), sys.executable, "-m", "inspect_ai", "view", "--log-dir",
                                   str(logs), "--host", "127.0.0.1", "--port", str(port)],
                                  stdout=out, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + START_S
        while True:
            try:
                with urllib.request.urlopen(url + "api/logs", timeout=2) as reply:
                    if reply.status == 200:
                        break
            except OSError:
                pass
            if server.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"inspect view did not start: {(root / 'view.log').read_text()[-500:]}", pytrace=False)
            time.sleep(0.5)
        yield url, runs
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()


def test_the_viewer_lists_the_logs_and_shows_every_sample(viewer):
    url, runs = viewer
    with open_page(url, width=1400, height=900) as opened:
        page = opened.page
        page.get_by_text("icj", exact=True).first.wait_for()
        assert page.get_by_text("jacite", exact=True).count() >= 1
        open_log(page, "jacite", page.get_by_text("8 Samples", exact=True))
        shown = page.inner_text("body")
        for result in results_of(runs["jacite"]):
            assert result["scenario_name"] in shown
        assert "cited 1, 8888; invented 8888" in shown  # the answer the grader read
        assert "invented rate" in shown and "gold article cited" in shown  # the metrics
        assert all(r.startswith(url) for r in opened.requests)  # the loopback server only


def test_a_tool_runs_sample_shows_its_tool_calls(viewer):
    url, runs = viewer
    first = results_of(runs["icj_tools"])[0]["scenario_name"]
    with open_page(url, width=1400, height=900) as opened:
        page = opened.page
        open_log(page, "icj", page.get_by_text(first[:7]).first)
        page.get_by_text(first[:7]).first.click()
        page.get_by_text(re.compile("tool: find_case", re.IGNORECASE)).first.wait_for()
        shown = page.inner_text("body").lower()
        assert first.lower() in shown and "tool: get_case_citations" in shown and 'query: "corfu"' in shown
