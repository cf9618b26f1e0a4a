"""Progress for job logs (--log-progress) and the progress file ``auditpacks status`` reads."""

from __future__ import annotations

import io
import json
import re

from auditpacks.runner.display import progress as progress_module
from auditpacks.runner.display.progress import ProgressPrinter

STAMP = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ "


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_log_lines_are_stamped_and_shown_even_when_quiet_and_on_a_terminal():
    stream = Terminal()
    with ProgressPrinter(40, show=False, stream=stream, log=True) as progress:
        progress.start([{"severity": "PASS"}])
        for _ in range(3):
            progress.update({"severity": "ERROR"})
    lines = stream.getvalue().splitlines()
    assert re.fullmatch(STAMP + r"\[1/40\] resumed from the journal", lines[0])
    # every 5% of 40 (2 scenarios) from the first one run: at 2 and 4, not 3
    assert re.match(STAMP + r"\[2/40\] .* 1 errors", lines[1]) and re.match(STAMP + r"\[4/40\] .* 3 errors", lines[2])
    assert len(lines) == 3


def test_quiet_without_log_prints_nothing():
    stream = Terminal()
    with ProgressPrinter(10, show=False, stream=stream) as progress:
        progress.start([])
        progress.update({"severity": "PASS"})
    assert stream.getvalue() == ""


def test_a_slow_run_logs_at_least_once_a_minute(monkeypatch):
    clock = [1000.0]
    monkeypatch.setattr(progress_module.time, "monotonic", lambda: clock[0])
    stream = io.StringIO()
    with ProgressPrinter(1000, stream=stream, log=True) as progress:
        progress.start([])
        progress.update({})       # 1 of 1000: the first line
        progress.update({})       # under 5% and under a minute: nothing
        clock[0] += 61
        progress.update({})       # a minute since the last line
    assert [line.split(" ", 1)[1].split(" ", 1)[0] for line in stream.getvalue().splitlines()] == ["[1/1000]", "[3/1000]"]


def test_each_start_writes_the_progress_file(tmp_path):
    plan = tmp_path / "m.progress.json"
    with ProgressPrinter(7, show=False, stream=io.StringIO(), plan=plan) as progress:
        progress.start([{"severity": "PASS"}, {"severity": "PASS"}])
    data = json.loads(plan.read_text())
    assert (data["total"], data["resumed"]) == (7, 2) and data["started"] > 1.7e9
