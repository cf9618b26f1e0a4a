"""The report's calibration section of a decision run: ECE and Brier, the risk–coverage table and a
reliability diagram (inline SVG), from the ``calibration`` entry of the run's headline."""

from __future__ import annotations

from typing import Any, Mapping

from markupsafe import Markup

from auditpacks.runner.reporting.plots import COLOURS, _svg, plt


def calibration_section(calibration: Mapping[str, Any] | None, title: str, *, plots_on: bool = True
                        ) -> dict[str, Any] | None:
    """What the templates show (None when the run's answers carry no probabilities)."""
    if not calibration:
        return None
    reliability = list(calibration.get("reliability") or [])
    return {
        "n": calibration.get("n"), "eligible": calibration.get("eligible"), "binning": calibration.get("binning"),
        "confidence": calibration.get("confidence"), "ece": calibration.get("ece"), "brier": calibration.get("brier"),
        "ci": calibration.get("ci") or {}, "rows": (calibration.get("risk_coverage") or {}).get("rows") or [],
        "automation": (calibration.get("risk_coverage") or {}).get("automation"),
        "plot": Markup(reliability_diagram(reliability, title)) if plots_on and reliability else None,
    }


def reliability_diagram(bins: list[Mapping[str, Any]], title: str) -> str:
    """Agreement against mean confidence per bin (dot area ∝ tasks), with the diagonal of perfect calibration."""
    fig, ax = plt.subplots(figsize=(4.6, 4.2))
    ax.plot([0, 1], [0, 1], linestyle="--", color="#a0aec0", linewidth=1, label="perfectly calibrated")
    most = max(b["n"] for b in bins)
    ax.scatter([b["confidence"] for b in bins], [b["agreement"] for b in bins],
               s=[20 + 180 * b["n"] / most for b in bins], color=COLOURS[0], zorder=3, label="bins (area ∝ tasks)")
    ax.plot([b["confidence"] for b in bins], [b["agreement"] for b in bins], color=COLOURS[0], linewidth=1)
    ax.set_xlim(0, 1)
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel("confidence (chosen option's probability)")
    ax.set_ylabel("agreement with the reference")
    ax.set_title(f"Reliability: {title}", fontsize=10)
    ax.legend(fontsize=8, frameon=False, loc="upper left")
    ax.grid(alpha=0.3)
    return _svg(fig)
