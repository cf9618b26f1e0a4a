"""A report over six runs of two packs, opened in headless Chromium: it opens with the runs × headline overview
(n, errors, key figure and its interval) and a "what differs" line, and every run has its own label."""

from __future__ import annotations

import pytest

from auditpacks.runner.cli.main import main
from tests.conftest import model_unusable
from tests.runner.reporting.test_labels import EXPECTED
from tests.support.browser import browser_unavailable, open_page
from tests.support.six_runs import write_six_runs

#: per run: n, errors, agreement (micro) by hand: correct ÷ 4 (an ERROR counts as not correct)
FIGURES = [("4", "0", "75.0%"), ("4", "0", "50.0%"), ("4", "0", "100.0%"), ("4", "0", "25.0%"), ("4", "0", "50.0%"),
           ("4", "1", "50.0%")]


@pytest.fixture
def report(tmp_path, monkeypatch):
    reason = browser_unavailable()
    if reason:
        model_unusable(f"headless browser: {reason}")
    monkeypatch.chdir(tmp_path)
    write_six_runs(tmp_path)
    assert main(["report", "results", "--out", "report.html"]) == 0
    return tmp_path / "report.html"


def test_the_overview_names_each_run_by_what_differs(report):
    with open_page(report) as opened:
        page = opened.page
        heading = page.locator("h2").first
        assert heading.inner_text() == "Runs" and heading.is_visible()
        assert page.locator("p.differs").inner_text() == ("what differs: model (m, n); pack (alpha.json, beta.json); "
                                                          "temperature (0, 0.7); seed (0, 3)")
        rows = page.locator("table.overview tbody tr")
        assert rows.count() == 6
        for i, (label, (n, errors, value)) in enumerate(zip(EXPECTED, FIGURES)):
            cells = rows.nth(i).locator("td").all_inner_texts()
            assert cells[0] == label and cells[2:6] == [n, errors, "agreement (micro)", value]
            assert cells[6].startswith("[")  # the key figure's interval, named
        assert page.locator("section h2").all_inner_texts() == EXPECTED
        assert opened.console_errors == [] and opened.requests == []
