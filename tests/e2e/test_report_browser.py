"""The report end to end: real embedded-model runs of all three benchmarks, rendered and opened in headless
Chromium (Debian's ``chromium``, driven by Playwright). No console errors, no network, the headline table and a
plot on screen, filters that work, a phone-width layout that fits, and model text shown as text, never run."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from auditpacks.runner.cli.main import main
from tests.conftest import model_unusable
from tests.support.browser import browser_unavailable, open_page
from tests.support.paths import FIXTURES

pytestmark = pytest.mark.model

XSS = "<script>alert(1)</script><img src=x onerror=alert(2)>"
#: benchmark → (build arguments, run arguments): two or three scenarios each.
BENCHMARKS = {
    "icj": (["--source", str(FIXTURES / "icj")], ["--limit", "2", "--max-tokens", "64"]),
    "iustitia": (["--source", str(FIXTURES / "iustitia")], ["--smoke", "--max-tokens", "24"]),
    "jacite": ([], ["--smoke", "--max-tokens", "48"]),
}


@pytest.fixture(scope="module")
def report(tmp_path_factory, embedded_model) -> Path:
    folder = tmp_path_factory.mktemp("report")
    for bench, (build_args, run_args) in BENCHMARKS.items():
        pack = folder / f"{bench}.json"
        assert main(["build", bench, *build_args, "--out", str(pack)]) == 0
        assert main(["run", "--pack", str(pack), "--target", "smollm2", "--base-url", embedded_model.base_url,
                     *run_args, "--out", str(folder / bench), "--quiet"]) == 0
        record = json.loads((folder / bench / "smollm2.run.json").read_text(encoding="utf-8"))
        assert record["summary"]["errors"] < record["summary"]["scenarios"], f"every {bench} scenario failed"
    results_path = folder / "iustitia" / "smollm2.json"
    results = json.loads(results_path.read_text(encoding="utf-8"))
    results["results"][0]["conversation"][-1]["content"] = f"yes {XSS}"
    results_path.write_text(json.dumps(results, ensure_ascii=False), encoding="utf-8")
    out = folder / "report.html"
    assert main(["report", *(str(folder / b) for b in BENCHMARKS), "--out", str(out)]) == 0
    return out


@pytest.fixture(scope="module")
def browser_ready() -> None:
    reason = browser_unavailable()
    if reason:
        model_unusable(f"headless browser: {reason}")


def test_report_opens_cleanly_with_headline_table_and_plots(report, browser_ready, tmp_path):
    with open_page(report) as opened:
        page = opened.page
        assert page.locator("table.headline").count() == 3 and page.locator("table.headline").first.is_visible()
        assert page.locator("table.headline tbody tr").count() >= 3 * 3
        assert page.locator("svg.plot").count() == 3
        page.locator("svg.plot").first.scroll_into_view_if_needed()
        assert page.locator("svg.plot").first.is_visible()
        shots = Path(os.environ.get("AUDITPACKS_SCREENSHOTS", tmp_path))
        shots.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(shots / "report.png"), full_page=True)
        assert (shots / "report.png").stat().st_size > 20_000
        assert opened.console_errors == [] and opened.dialogs == [] and opened.requests == []


def test_model_text_is_shown_as_text_and_never_runs(report, browser_ready):
    with open_page(report) as opened:
        page = opened.page
        reply = page.locator("pre.reply", has_text="<script>alert(1)</script>")
        assert reply.count() == 1 and XSS in reply.inner_text()
        assert page.locator("img").count() == 0 and page.locator("script").count() == 1
        page.wait_for_timeout(300)
        assert opened.dialogs == [] and opened.console_errors == []
    assert "&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;" in report.read_text(encoding="utf-8")


def test_filters_and_phone_width(report, browser_ready):
    with open_page(report, width=390, height=844) as opened:
        page = opened.page
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        box = page.locator(".filters").nth(1)  # the Iustitia run's scenarios
        rows = page.locator("#run2-scenarios .scn")
        box.locator(".f-outcome").select_option("bad")
        visible = rows.evaluate_all("rs => rs.filter(r => !r.hidden).map(r => r.dataset.bad)")
        assert set(visible) <= {"1"} and "shown" in box.locator(".f-count").inner_text()
        box.locator(".f-outcome").select_option("all")
        group = rows.first.get_attribute("data-group")
        box.locator(".f-group").select_option(group)
        groups = rows.evaluate_all("rs => rs.filter(r => !r.hidden).map(r => r.dataset.group)")
        assert groups and set(groups) == {group}
        assert opened.console_errors == []
