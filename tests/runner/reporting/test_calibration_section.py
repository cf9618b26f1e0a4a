"""The report's calibration section of a decision run: what the templates get from the headline's ``calibration``
entry (nothing without one), and the reliability diagram: agreement against confidence per bin, dot area growing
with the bin's tasks, beside the dashed diagonal of perfect calibration."""

from __future__ import annotations

import pytest
from markupsafe import Markup
from matplotlib.colors import to_hex

from auditpacks.runner.reporting import calibration_section as section
from auditpacks.runner.reporting.plots import COLOURS

BINS = [{"confidence": 0.55, "agreement": 0.5, "n": 10}, {"confidence": 0.9, "agreement": 0.8, "n": 40}]
CALIBRATION = {"n": 50, "eligible": 48, "binning": "equal mass", "confidence": "chosen option", "ece": 0.07,
               "brier": 0.18, "ci": {"ece": [0.02, 0.12]}, "reliability": BINS,
               "risk_coverage": {"rows": [{"coverage": 1.0, "risk": 0.3}], "automation": {"coverage": 0.4}}}


@pytest.fixture()
def drawn(monkeypatch):
    """The figures the section would turn into SVG, kept for inspection (the SVG is a marker)."""
    figures = []
    monkeypatch.setattr(section, "_svg", lambda fig: figures.append(fig) or "<svg>diagram</svg>")
    yield figures
    for fig in figures:
        section.plt.close(fig)


@pytest.mark.parametrize("calibration", [None, {}])
def test_no_calibration_no_section(calibration):
    assert section.calibration_section(calibration, "m") is None


def test_the_section_carries_the_figures_the_table_and_the_diagram(drawn):
    shown = section.calibration_section(CALIBRATION, "m · tiny")
    plot = shown.pop("plot")
    assert shown == {"n": 50, "eligible": 48, "binning": "equal mass", "confidence": "chosen option", "ece": 0.07,
                     "brier": 0.18, "ci": {"ece": [0.02, 0.12]}, "rows": [{"coverage": 1.0, "risk": 0.3}],
                     "automation": {"coverage": 0.4}}
    assert isinstance(plot, Markup) and str(plot) == "<svg>diagram</svg>" and len(drawn) == 1
    assert drawn[0].axes[0].get_title() == "Reliability: m · tiny"


def test_missing_parts_are_empty_and_no_bins_or_plots_off_mean_no_diagram(drawn):
    shown = section.calibration_section({"ece": 0.1}, "m")
    assert shown == {"n": None, "eligible": None, "binning": None, "confidence": None, "ece": 0.1, "brier": None,
                     "ci": {}, "rows": [], "automation": None, "plot": None}
    assert section.calibration_section({"ece": 0.1, "risk_coverage": {"rows": None}, "ci": None}, "m")["rows"] == []
    assert section.calibration_section(CALIBRATION, "m", plots_on=False)["plot"] is None
    assert section.calibration_section({**CALIBRATION, "reliability": None}, "m")["plot"] is None
    assert drawn == []


def test_the_diagram_plots_agreement_against_confidence_beside_the_diagonal(drawn):
    section.reliability_diagram(BINS, "m · tiny")
    (fig,) = drawn
    (ax,) = fig.axes
    assert tuple(fig.get_size_inches()) == pytest.approx((4.6, 4.2))
    diagonal, joined = ax.get_lines()
    assert (list(diagonal.get_xdata()), list(diagonal.get_ydata())) == ([0, 1], [0, 1])
    assert (diagonal.get_linestyle(), to_hex(diagonal.get_color()), diagonal.get_linewidth()) == ("--", "#a0aec0", 1)
    assert (list(joined.get_xdata()), list(joined.get_ydata())) == ([0.55, 0.9], [0.5, 0.8])
    assert (to_hex(joined.get_color()), joined.get_linewidth()) == (COLOURS[0], 1)
    (dots,) = ax.collections
    assert dots.get_offsets().tolist() == [[0.55, 0.5], [0.9, 0.8]]
    assert list(dots.get_sizes()) == pytest.approx([20 + 180 * 10 / 40, 200])     # area grows with the tasks
    assert to_hex(dots.get_facecolor()[0]) == COLOURS[0] and dots.get_zorder() == 3
    assert ax.get_xlim() == (0, 1) and ax.get_ylim() == pytest.approx((-0.02, 1.02))
    assert ax.get_xlabel() == "confidence (chosen option's probability)"
    assert ax.get_ylabel() == "agreement with the reference"
    assert (ax.get_title(), ax.title.get_fontsize()) == ("Reliability: m · tiny", 10)
    legend = ax.get_legend()
    assert [t.get_text() for t in legend.get_texts()] == ["perfectly calibrated", "bins (area ∝ tasks)"]
    assert legend.get_texts()[0].get_fontsize() == 8 and not legend.get_frame_on() and legend._loc == 2  # upper left
    gridlines = ax.xaxis.get_gridlines()
    assert gridlines[0].get_visible() and gridlines[0].get_alpha() == 0.3


def test_a_single_bin_gets_the_largest_dot_and_the_diagram_is_real_svg():
    svg = section.reliability_diagram([{"confidence": 0.7, "agreement": 0.6, "n": 3}], "solo")
    assert svg.startswith("<svg") and "Reliability: solo" in svg and "perfectly calibrated" in svg
