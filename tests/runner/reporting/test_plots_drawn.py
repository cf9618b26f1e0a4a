"""What the report's plots draw (read from the figure before it becomes SVG), and the SVG each becomes."""

from __future__ import annotations

import re

import pytest
from matplotlib.colors import to_hex

from auditpacks.judges.figures import Plot
from auditpacks.runner.reporting import plots
from auditpacks.runner.reporting.plots import _errors, dots, grouped_bars, render, y_top

DOT_VALUES = [0.5, 0.8, 0.2]
DOT_INTERVALS = [(0.25, 0.75), None, (0.1, 0.3)]
SERIES = {"A": ([0.5, None], [(0.4, 0.6), None]), "B": ([0.25, 0.75], [None, None])}


@pytest.fixture()
def drawn(monkeypatch):
    """The plot functions return their matplotlib figure instead of its SVG."""
    monkeypatch.setattr(plots, "_svg", lambda fig: fig)


def _segments(container):
    """Each whisker of an errorbar container as [x0, y0, x1, y1]."""
    return [[v for point in s.tolist() for v in point] for s in container[2][0].get_segments()]


def _gridded(axis):
    line = axis.get_gridlines()[0]
    return line.get_visible(), line.get_alpha()


def test_errors_are_the_distances_to_each_end_never_negative_and_0_without_a_value_or_interval():
    low, high = _errors([0.5, None, 0.2, 0.9], [(0.4, 0.7), (0.1, 0.2), None, (0.95, 1.0)])
    assert low == pytest.approx([0.1, 0.0, 0.0, 0.0]) and high == pytest.approx([0.2, 0.0, 0.0, 0.1])


@pytest.mark.parametrize("series", [{}, {"a": ([], [])}])
def test_a_bar_plot_without_values_gets_an_axis_from_0_to_1(series):
    assert y_top(series) == 1.0


def test_a_dot_per_label_first_at_the_top_with_its_interval(drawn):
    fig = dots(["first", "second", "third"], DOT_VALUES, DOT_INTERVALS, "Dots title", "agreement")
    ax = fig.axes[0]
    assert tuple(fig.get_size_inches()) == pytest.approx((7, 0.9 + 0.32 * 3))
    assert [t.get_text() for t in ax.get_yticklabels()] == ["third", "second", "first"]
    assert list(ax.get_yticks()) == [0, 1, 2]
    (bars,) = ax.containers
    line = bars[0]
    assert (list(line.get_xdata()), list(line.get_ydata())) == ([0.2, 0.8, 0.5], [0, 1, 2])
    assert (line.get_marker(), to_hex(line.get_color())) == ("o", "#2b6cb0")
    assert [pytest.approx(s) for s in _segments(bars)] == [[0.1, 0, 0.3, 0], [0.8, 1, 0.8, 1], [0.25, 2, 0.75, 2]]
    assert to_hex(bars[2][0].get_colors()[0]) == "#718096" and bars[1][0].get_markersize() == 6   # caps of 3
    assert ax.get_xlim() == pytest.approx((-0.02, 1.02)) and ax.get_xlabel() == "agreement"
    assert (ax.get_title(), ax.title.get_fontsize()) == ("Dots title", 10)
    assert _gridded(ax.xaxis) == (True, 0.3) and not _gridded(ax.yaxis)[0]


def test_a_dot_plot_with_a_limit_and_one_without_labels(drawn):
    assert dots(["a"], [1.5], [None], "t", "ratio", 2.0).axes[0].get_xlim() == pytest.approx((-0.02, 2.02))
    assert tuple(dots([], [], [], "t", "x").get_size_inches()) == pytest.approx((7, 0.9 + 0.32))


def test_bars_per_group_for_each_series_labelled_and_whiskered_where_an_interval_is_given(drawn):
    fig = grouped_bars(["g1", "g2"], SERIES, "The title", "share")
    ax = fig.axes[0]
    assert tuple(fig.get_size_inches()) == pytest.approx((7, 3.6))
    a_bars, a_whiskers, b_bars = ax.containers             # B has no interval: no whiskers
    for bars, xs, heights, colour in ((a_bars, [-0.2, 0.8], [0.5, 0.0], "#2b6cb0"),
                                      (b_bars, [0.2, 1.2], [0.25, 0.75], "#c05621")):
        assert [r.get_x() + r.get_width() / 2 for r in bars] == pytest.approx(xs)
        assert [r.get_height() for r in bars] == pytest.approx(heights)
        assert [r.get_width() for r in bars] == pytest.approx([0.4, 0.4]) and to_hex(bars[0].get_facecolor()) == colour
    labels = [(t.get_text(), t.get_fontsize(), t.xyann) for t in ax.texts]
    assert labels == [("50%", 7, (0, 2)), ("n/a", 7, (0, 2)), ("25%", 7, (0, 2)), ("75%", 7, (0, 2))]
    assert a_whiskers[0] is None and to_hex(a_whiskers[2][0].get_colors()[0]) == "#1a202c"
    assert [pytest.approx(s) for s in _segments(a_whiskers)] == [[-0.2, 0.4, -0.2, 0.6], [0.8, 0.0, 0.8, 0.0]]
    assert a_whiskers[1][0].get_markersize() == 6
    assert [t.get_text() for t in ax.get_xticklabels()] == ["g1", "g2"] and list(ax.get_xticks()) == [0, 1]
    assert ax.get_ylabel() == "share" and ax.get_ylim() == pytest.approx((0, 0.75 * 1.15))
    assert (ax.get_title(), ax.title.get_fontsize()) == ("The title", 10)
    legend = ax.get_legend()
    assert [t.get_text() for t in legend.get_texts()] == ["A", "B"] and legend.get_texts()[0].get_fontsize() == 8
    assert not legend.get_frame_on()
    assert _gridded(ax.yaxis) == (True, 0.3) and not _gridded(ax.xaxis)[0]


def test_a_bar_plot_with_a_limit_and_more_series_than_colours(drawn):
    series = {f"s{i}": ([0.1], [None]) for i in range(6)}
    ax = grouped_bars(["g"], series, "t", "share", 0.5).axes[0]
    assert ax.get_ylim() == pytest.approx((0, 0.5))
    assert [to_hex(bars[0].get_facecolor()) for bars in ax.containers] == [
        "#2b6cb0", "#c05621", "#2f855a", "#6b46c1", "#b83280", "#2b6cb0"]
    assert [bars[0].get_width() for bars in ax.containers] == pytest.approx([0.8 / 6] * 6)
    (alone,) = grouped_bars(["g"], {"s": ([0.1], [None])}, "t", "share").axes[0].containers
    assert alone[0].get_width() == pytest.approx(0.8)                    # one series: the whole group's width


@pytest.mark.parametrize("plot, kind", [
    (Plot("dots", ["q0", "q1"], {"agreement": ([0.5, 0.7], [None, (0.6, 0.8)])}, "agreement", 1.5), "dots"),
    (Plot("bars", ["JA", "EN"], SERIES, "share of cited mentions", 0.9), "bars")])
def test_a_benchmarks_plot_is_drawn_as_its_kind_with_its_labels_axis_and_limit(drawn, plot, kind):
    ax = render(plot, "Per question").axes[0]
    assert ax.get_title() == "Per question"
    if kind == "dots":
        assert [t.get_text() for t in ax.get_yticklabels()] == ["q1", "q0"]
        assert (ax.get_xlabel(), ax.get_xlim()) == ("agreement", pytest.approx((-0.02, 1.52)))
    else:
        assert [t.get_text() for t in ax.get_xticklabels()] == ["JA", "EN"] and len(ax.containers) == 3
        assert (ax.get_ylabel(), ax.get_ylim()) == ("share of cited mentions", pytest.approx((0, 0.9)))


def _referenced(svg: str) -> set[str]:
    """The ids an SVG's elements point at (clip paths, reused glyphs and markers)."""
    return set(re.findall(r'(?:url\(#|href="#)([^)"]+)', svg))


def test_the_svg_is_an_inline_element_sized_by_the_page_cropped_to_the_drawing_with_unique_ids():
    first = grouped_bars(["g1", "g2"], SERIES, "The title", "share")
    second = grouped_bars(["g1", "g2"], SERIES, "The title", "share")
    root = re.match(r"<svg[^>]*>", first)[0]
    assert ' class="plot" role="img"' in root and " width=" not in root and " height=" not in root
    assert re.match(r"<svg[^>]*>\s*<defs>", first)       # no XML prolog, no metadata
    assert ">The title</text>" in first                   # text stays text
    width = float(re.search(r'viewBox="0 0 ([\d.]+) ', root)[1])
    assert width < 7 * 72                                  # cropped: narrower than the 7-inch figure
    assert _referenced(first) and not _referenced(first) & _referenced(second)   # one page holds both
