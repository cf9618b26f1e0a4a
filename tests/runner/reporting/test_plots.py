"""Bar plots keep a sane value axis: from 0, never below it, and not an empty range when every rate is 0."""

from __future__ import annotations

import re

from auditpacks.runner.reporting.plots import grouped_bars, y_top


def _tick_labels(svg: str) -> list[str]:
    return re.findall(r">([−\-]?\d+(?:\.\d+)?)<", svg)


def test_all_zero_rates_draw_an_axis_from_zero_to_one():
    series = {"invented": ([0.0, 0.0], [[0.0, 0.0], [0.0, 0.0]]), "gold": ([0.0, None], [None, None])}
    assert y_top(series) == 1.0
    svg = grouped_bars(["JA", "EN"], series, "rates", "share of cited mentions")
    labels = _tick_labels(svg)
    assert labels and not any(label.startswith(("−", "-")) for label in labels)  # was −0.04 … 0.04
    assert "1.0" in labels and "0.0" in labels


def test_the_axis_fits_the_highest_bar_or_whisker_and_a_given_limit_wins():
    assert y_top({"a": ([0.2, 0.4], [None, [0.3, 0.6]])}) == 0.6 * 1.15
    assert y_top({"a": ([0.5], [])}) == 0.5 * 1.15  # no intervals at all
    assert y_top({"a": ([0.0], [None])}, ymax=0.25) == 0.25
