"""Progress on a clock the test sets: the pace and ETA in words, the lines and plan a start writes, heartbeat
lines, and the live bar on a terminal."""

from __future__ import annotations

import io
import json
import re

import pytest
import rich
from rich.console import Console

from auditpacks.runner.display import progress as progress_module
from auditpacks.runner.display.progress import ProgressPrinter


class Flushed(io.StringIO):
    flushed = 0

    def flush(self) -> None:
        self.flushed += 1


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture()
def clock(monkeypatch):
    """``clock[0]`` is the monotonic time and ``clock[1]`` the wall-clock time the printer reads."""
    now = [1000.0, 1_800_000_000.0]
    monkeypatch.setattr(progress_module.time, "monotonic", lambda: now[0])
    monkeypatch.setattr(progress_module.time, "time", lambda: now[1])
    return now


@pytest.mark.parametrize("finished, seconds, total, pace, eta", [
    (0, 0.0, 10, "first target running", "eta after the first target"),
    (0, 30.0, 10, "first target running", "eta after the first target"),
    (1, 1.0, 10, "1.00/s", "eta 0:00:09"),                     # one a second: per second
    (1, 4.0, 10, "4.0 s/target", "eta 0:00:36"),
    (1, 3725.0, 2, "3725.0 s/target", "eta 1:02:05"),
    (2, 3600.0, 6, "1800.0 s/target", "eta 2:00:00"),
])
def test_pace_and_eta_in_words(clock, finished, seconds, total, pace, eta):
    progress = ProgressPrinter(total, stream=io.StringIO(), show=False, what="target")
    progress.start([])
    for _ in range(finished):
        progress.update({})
    clock[0] += seconds
    assert (progress.pace(), progress.eta()) == (pace, eta)


def test_a_start_writes_the_plan_and_says_it_resumed(clock, tmp_path):
    stream = io.StringIO()
    progress = ProgressPrinter(5, stream=stream, show=True, plan=tmp_path / "m.progress.json")
    progress.start([{"severity": "ERROR", "target_input_tokens": 3, "target_output_tokens": 4}, None, None])
    assert json.loads((tmp_path / "m.progress.json").read_text()) == {"total": 5, "resumed": 3,
                                                                      "started": 1_800_000_000.0}
    assert stream.getvalue() == "[3/5] resumed from the journal\n"
    assert (progress.errors, progress.skipped, progress.tokens) == (1, 2, 7)
    clock[0] += 10.0
    progress.update({})
    assert progress.pace() == "10.0 s/scenario"              # only the scenario run now counts
    quiet = io.StringIO()
    ProgressPrinter(5, stream=quiet, show=False).start([{}])
    assert quiet.getvalue() == ""


def test_lines_come_every_twentieth_and_a_logged_run_at_least_once_a_minute(clock):
    stream = io.StringIO()
    progress = ProgressPrinter(40, stream=stream, show=True)
    progress.start([])
    for _ in range(5):
        progress.update({})
    assert [line.split()[0] for line in stream.getvalue().splitlines()] == ["[1/40]", "[3/40]", "[5/40]"]
    fifty = io.StringIO()
    progress = ProgressPrinter(50, stream=fifty, show=True)
    for _ in range(5):
        progress.update({})
    assert [line.split()[0] for line in fifty.getvalue().splitlines()] == ["[1/50]", "[3/50]", "[5/50]"]
    logged = Flushed()
    progress = ProgressPrinter(100, stream=logged, log=True)
    progress.start([])
    progress.update({})
    clock[0] += 59.0
    progress.update({})                                   # within the minute and short of the next twentieth
    clock[0] += 1.0
    progress.update({})                                   # a minute since the last line
    assert [line.split()[1] for line in logged.getvalue().splitlines()] == ["[1/100]", "[3/100]"]
    assert logged.flushed == 2                             # each line reaches the log at once
    assert re.match(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ \[1/100\] ", logged.getvalue())   # stamped in UTC


@pytest.mark.parametrize("show, log, tty, live, quiet", [
    (None, False, True, True, False), (None, False, False, False, False), (True, False, False, False, False),
    (True, True, True, False, False), (False, False, True, False, True), (False, True, True, False, False)])
def test_a_live_bar_only_on_a_terminal_and_silence_only_when_asked(show, log, tty, live, quiet):
    progress = ProgressPrinter(5, show=show, log=log, stream=Terminal() if tty else io.StringIO())
    assert (progress.live, progress.quiet, progress._heartbeat is None) == (live, quiet, quiet)


def test_a_heartbeat_without_a_bar_is_a_line(clock):
    stream = io.StringIO()
    progress = ProgressPrinter(5, stream=stream, show=True)
    progress._beat("waiting 30 s")
    assert stream.getvalue() == "[0/5] waiting 30 s\n" and progress._last_line == 1000.0


def test_on_a_terminal_a_bar_shows_the_label_the_count_and_the_info(clock, monkeypatch):
    screen = io.StringIO()
    monkeypatch.setattr(rich, "_console", Console(file=screen, force_terminal=True, width=160))
    with ProgressPrinter(5, stream=Terminal(), label="audit") as progress:
        progress.start([{}, {}])
        progress._bar.refresh()
        clock[0] += 2.0
        progress.update({"target_input_tokens": 5})
        progress._bar.refresh()
        clock[0] += 30.0
        progress._beat("waiting [bold]30[/bold] s")
        assert progress._last_line == 1032.0
        raw = screen.getvalue()
        shown = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", raw)   # the text without its colours
    assert "audit" in shown and "━" in shown and "2/5 first scenario running · 0 errors" in shown
    assert "3/5 2.0 s/scenario · 0 errors · 5 tokens · eta 0:00:04" in shown
    assert "[3/5] waiting [bold]30[/bold] s" in raw            # printed as it is: no markup, no colours
    assert ProgressPrinter(5, stream=io.StringIO()).label == "run"
    assert screen.getvalue().endswith("\x1b[2K")               # the bar is erased when the run ends


def test_the_heartbeat_prints_through_the_printer_when_it_has_been_quiet_for_its_period(clock):
    progress = ProgressPrinter(5, stream=io.StringIO(), show=True, heartbeat_s=7.5)
    beat = progress._heartbeat
    assert (beat.emit, beat.quiet_since(), beat.every) == (progress._beat, 1000.0, 7.5)
    assert ProgressPrinter(5, stream=io.StringIO(), show=True)._heartbeat.every == 30.0


def test_a_scenario_finished_before_any_start_is_shown(clock):
    stream = io.StringIO()
    progress = ProgressPrinter(5, stream=stream, show=True)
    assert progress.pace() == "first scenario running"
    progress.update({})
    assert stream.getvalue().startswith("[1/5] ")
