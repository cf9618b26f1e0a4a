"""The calibration rows of a decision run's headline figures."""

from __future__ import annotations

from auditpacks.judges.reader import Reader


def test_calibration_rows_follow_the_agreement_rows():
    headline = {"micro": 0.5, "macro": 0.5, "coverage": 1.0, "ci": {}, "tasks": 4, "judgments": 2,
                "calibration": {"ece": 0.4925, "brier": 0.374725, "binning": "10 bins",
                                "ci": {"ece": [0.435, 0.55], "brier": [0.325, 0.42445]},
                                "risk_coverage": {"automation": {"target": 0.95, "threshold": 0.95, "answered": 1,
                                                                 "coverage": 0.2, "agreement": 1.0}}}}
    rows = {f.name: f for f in Reader.of("choice_match").figures(headline)}
    assert rows["calibration error (ECE)"].value == 0.4925 and rows["calibration error (ECE)"].interval == (0.435, 0.55)
    assert rows["Brier score"].unit == "ratio" and rows["Brier score"].interval == (0.325, 0.42445)
    assert rows["coverage at 95% agreement"].value == 0.2 and "≥ 0.95" in rows["coverage at 95% agreement"].meaning
    assert "Brier score" not in {f.name for f in Reader.of("choice_match").figures({**headline, "calibration": None})}
