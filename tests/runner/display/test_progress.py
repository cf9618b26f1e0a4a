"""The progress counter counts ERROR results as the summary does (severity or judgment), skips and tokens."""

from __future__ import annotations

import io

from auditpacks.runner.display.progress import ProgressPrinter


def test_errors_skips_and_tokens_are_counted():
    stream = io.StringIO()
    with ProgressPrinter(4, show=False, stream=stream) as progress:
        progress.start([{"severity": "ERROR", "target_input_tokens": 3}])
        progress.update({"severity": "pass", "judgment": {"severity": "ERROR"}, "target_output_tokens": 4})
        progress.update({"severity": "pass", "judgment": {"severity": "pass"}, "target_input_tokens": 10,
                         "target_output_tokens": None})
        progress.update(None)
    assert (progress.done, progress.resumed, progress.errors, progress.skipped, progress.tokens) == (4, 1, 2, 1, 17)
    assert stream.getvalue() == ""  # show=False prints nothing
