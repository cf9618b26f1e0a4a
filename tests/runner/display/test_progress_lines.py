"""Run progress off a terminal: plain lines about every 5%, resumed results counted, errors, skips and tokens."""

import io
import re

from auditpacks.runner.display.progress import ProgressPrinter

LINE = re.compile(r"^\[(\d+)/(\d+)\] (?:\d+\.\d\d/s|\d+\.\d s/scenario) · (\d+) errors(?: · (\d+) skipped)? · "
                  r"(\d+) tokens · eta \d+:\d\d:\d\d$")


def ok(tokens_in=0, tokens_out=0):
    return {"severity": "pass", "target_input_tokens": tokens_in, "target_output_tokens": tokens_out}


def test_counts_errors_skips_and_tokens():
    stream = io.StringIO()
    with ProgressPrinter(4, stream=stream) as progress:
        progress.start([])
        progress.update(ok(10, 2))
        progress.update({"severity": "ERROR", "target_input_tokens": None})
        progress.update(None)
        progress.update(ok(1, 1))
    assert (progress.done, progress.errors, progress.skipped, progress.tokens) == (4, 1, 1, 14)
    lines = [LINE.match(line).groups() for line in stream.getvalue().splitlines()]
    assert lines == [("1", "4", "0", None, "12"), ("2", "4", "1", None, "12"), ("3", "4", "1", "1", "12"),
                     ("4", "4", "1", "1", "14")]


def test_about_one_line_per_twentieth_and_always_the_last():
    stream = io.StringIO()
    with ProgressPrinter(40, stream=stream) as progress:
        progress.start([])
        for _ in range(40):
            progress.update(ok())
    done = [int(LINE.match(line).group(1)) for line in stream.getvalue().splitlines()]
    assert done == [*range(1, 40, 2), 40]


def test_resumed_results_count_as_done_from_the_start():
    stream = io.StringIO()
    with ProgressPrinter(6, stream=stream) as progress:
        progress.start([ok(3, 3), None, {"severity": "ERROR"}])
        assert (progress.done, progress.resumed, progress.skipped, progress.errors, progress.tokens) == (3, 3, 1, 1, 6)
        progress.update(ok())
    lines = stream.getvalue().splitlines()
    assert lines[0] == "[3/6] resumed from the journal"
    assert LINE.match(lines[1]).group(1) == "4"


def test_show_false_prints_nothing():
    stream = io.StringIO()
    with ProgressPrinter(3, show=False, stream=stream) as progress:
        progress.start([ok()])
        progress.update(ok())
    assert stream.getvalue() == "" and progress.done == 2
