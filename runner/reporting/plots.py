"""Plots as inline SVG (matplotlib's SVG backend): text stays text, sizes follow the page."""

from __future__ import annotations

import io
import re
from typing import Any, Sequence

import matplotlib

from auditpacks.judges.figures import Plot

matplotlib.use("svg")
import matplotlib.pyplot as plt  # noqa: E402

COLOURS = ("#2b6cb0", "#c05621", "#2f855a", "#6b46c1", "#b83280")
_counter = iter(range(1, 1 << 30))


def _svg(fig) -> str:
    """The figure as an ``<svg>`` element scaled to its container, ids unique within the page."""
    buffer = io.StringIO()
    with plt.rc_context({"svg.fonttype": "none", "svg.hashsalt": f"plot{next(_counter)}"}):
        fig.savefig(buffer, format="svg", bbox_inches="tight")
    plt.close(fig)
    text = buffer.getvalue()
    text = text[text.index("<svg"):]
    text = re.sub(r"<metadata>.*?</metadata>", "", text, flags=re.S)
    return re.sub(r'<svg([^>]*?) width="[^"]*" height="[^"]*"', r'<svg\1 class="plot" role="img"', text, count=1)


def _errors(values: Sequence[float | None], intervals: Sequence[Sequence[float] | None]) -> list[list[float]]:
    low, high = [], []
    for value, ci in zip(values, intervals):
        ok = value is not None and ci is not None
        low.append(max(0.0, value - ci[0]) if ok else 0.0)
        high.append(max(0.0, ci[1] - value) if ok else 0.0)
    return [low, high]


def y_top(series: dict[str, tuple[list[float | None], list[Any]]], ymax: float | None = None) -> float:
    """The top of a bar plot's value axis (which starts at 0): ``ymax`` when given, else a little above the
    highest bar or whisker, and 1 when every value is 0 or undefined (no axis below 0, no empty range)."""
    if ymax is not None:
        return ymax
    tops = [v or 0.0 for values, _ in series.values() for v in values]
    tops += [ci[1] for _, intervals in series.values() for ci in intervals or [] if ci is not None]
    top = max(tops, default=0.0)
    return 1.0 if top <= 0 else top * 1.15


def render(plot: Plot, title: str) -> str:
    """A benchmark's :class:`~auditpacks.judges.figures.Plot` as inline SVG: ``dots`` or ``bars``."""
    if plot.kind == "dots":
        (values, intervals), = plot.series.values()
        return dots(plot.labels, values, intervals, title, plot.axis, plot.limit)
    return grouped_bars(plot.labels, plot.series, title, plot.axis, plot.limit)


def dots(labels: Sequence[str], values: Sequence[float | None], intervals: Sequence[Sequence[float] | None],
         title: str, xlabel: str, xmax: float | None = None) -> str:
    """A dot and its 95% interval per label, the first label at the top."""
    fig, ax = plt.subplots(figsize=(7, 0.9 + 0.32 * max(len(labels), 1)))
    labels, values, intervals = list(labels)[::-1], list(values)[::-1], list(intervals)[::-1]
    ax.errorbar(values, range(len(labels)), xerr=_errors(values, intervals), fmt="o", color=COLOURS[0],
                ecolor="#718096", capsize=3)
    ax.set_yticks(range(len(labels)), labels)
    ax.set_xlim(-0.02, (xmax or 1.0) + 0.02)
    ax.set_xlabel(xlabel)
    ax.set_title(title, fontsize=10)
    ax.grid(axis="x", alpha=0.3)
    return _svg(fig)


def grouped_bars(groups: Sequence[str], series: dict[str, tuple[list[float | None], list[Any]]], title: str,
                 ylabel: str, ymax: float | None = None) -> str:
    """Bars per group for each series, with interval whiskers where given."""
    fig, ax = plt.subplots(figsize=(7, 3.6))
    width = 0.8 / max(len(series), 1)
    for i, (name, (values, intervals)) in enumerate(series.items()):
        xs = [g + (i - (len(series) - 1) / 2) * width for g in range(len(groups))]
        heights = [v or 0.0 for v in values]
        bars = ax.bar(xs, heights, width, label=name, color=COLOURS[i % len(COLOURS)])
        ax.bar_label(bars, labels=["n/a" if v is None else f"{100 * v:.0f}%" for v in values], fontsize=7,
                     padding=2)
        if any(ci is not None for ci in intervals):
            ax.errorbar(xs, heights, yerr=_errors(values, intervals), fmt="none", ecolor="#1a202c", capsize=3)
    ax.set_xticks(range(len(groups)), groups)
    ax.set_ylabel(ylabel)
    ax.set_ylim(0, y_top(series, ymax))
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8, frameon=False)
    ax.grid(axis="y", alpha=0.3)
    return _svg(fig)
