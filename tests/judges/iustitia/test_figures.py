"""Iustitia's pooled figures: micro and macro agreement and coverage with judgment-bootstrap intervals, the counts
beside them, the ≤26-option track headlined with the full track after it, skipped questions, calibration of a
decision run, and a headline of another shape shown as its numeric leaves."""

from __future__ import annotations

from auditpacks.judges.figures import Figure
from auditpacks.judges.iustitia.figures import figures

CI = "95% CI, bootstrap over judgments"
MICRO = "correct answers ÷ questions; unanswered count as wrong"
MACRO = "mean of the per-question agreement: every question type weighs the same"
COVERAGE = "predictions given, valid or not, ÷ questions (the card's len(predictions) / n)"
JUDGMENTS = "documents the questions come from (the bootstrap's clusters)"


def track(group="", note="", micro=0.5, tasks=8):
    """The five figures of one track: micro 0.5 [0.25, 0.75], macro 0.625 (no interval), coverage 0.75."""
    return [Figure("agreement (micro)", micro, interval=(0.25, 0.75), interval_name=CI, meaning=MICRO + note,
                   group=group, better="higher"),
            Figure("agreement (macro)", 0.625, interval=None, interval_name=CI, meaning=MACRO + note, group=group,
                   better="higher"),
            Figure("coverage", 0.75, interval=(0.5, 1.0), interval_name=CI, meaning=COVERAGE + note, group=group,
                   better="higher"),
            Figure("tasks", tasks, "count", meaning="questions graded", group=group),
            Figure("judgments", 4, "count", meaning=JUDGMENTS, group=group)]


def values(micro=0.5, tasks=8, **more):
    return {"micro": micro, "macro": 0.625, "coverage": 0.75, "tasks": tasks, "judgments": 4,
            "ci": {"micro": [0.25, 0.75], "coverage": [0.5, 1.0]}, **more}


def test_one_track_gives_agreement_coverage_and_counts():
    assert figures(values()) == track()


def test_invalid_and_skipped_predictions_are_counted_when_present():
    invalid = Figure("invalid", 2, "count",
                     meaning="predictions that are not one of the question's options (covered, but wrong)")
    skipped = Figure("skipped", 1, "count", meaning="questions the endpoint could not take: no answer, counted wrong")
    assert figures(values(invalid=2, skipped=1)) == track() + [invalid, skipped]
    assert figures(values(skipped=0)) == track() + [Figure("skipped", 0, "count", meaning=skipped.meaning)]


def test_a_run_that_skipped_questions_over_the_limit_headlines_the_le26_track():
    h = values(track="le26", max_options=26, skipped=3, skipped_over_limit=3, invalid=0,
               full_track=values(micro=0.4, tasks=11))
    note = "; the 3 questions over 26 options have no answer and count as wrong"
    assert figures(h) == [
        *track("≤26-option track"),
        Figure("invalid", 0, "count", meaning="predictions that are not one of the question's options (covered, but "
                                              "wrong)", group="≤26-option track"),
        *track("full track", note, micro=0.4, tasks=11),
        Figure("skipped", 3, "count", group="full track",
               meaning="questions the endpoint could not take (3 over its option limit: left out of the headline "
                       "track, counted wrong on the full track)")]


def test_the_limit_named_is_the_runs_and_defaults_to_26():
    full = values(micro=0.4)
    ten = figures(values(track="le26", max_options=10, full_track=full, skipped_over_limit=2))
    assert ten[0].group == "≤10-option track"
    assert ten[5].meaning == MICRO + "; the 2 questions over 10 options have no answer and count as wrong"
    assert figures(values(track="le26", full_track=full))[0].group == "≤26-option track"
    rows = figures(values(track="le26", full_track=full, skipped_over_limit=2))
    assert rows[5].meaning == MICRO + "; the 2 questions over 26 options have no answer and count as wrong"


def test_a_full_track_that_is_not_a_mapping_or_another_track_keeps_one_track():
    assert figures(values(track="le26", full_track=None)) == track()
    assert figures(values(track="all", full_track=values(micro=0.4))) == track()


def test_a_headline_of_another_shape_is_shown_as_its_numeric_leaves():
    assert figures({"micro": 0.5, "tasks": 8}) == [Figure("micro", 0.5, "ratio"), Figure("tasks", 8, "count")]
    assert figures({"ci": {"micro": [0, 1]}, "n": 3}) == [Figure("n", 3, "count")]


def test_calibration_of_a_decision_run():
    calibration = {"ece": 0.125, "brier": 0.2, "binning": "10 equal-width bins",
                   "ci": {"ece": [0.05, 0.25], "brier": [0.1, 0.3]},
                   "risk_coverage": {"automation": {"target": 0.9, "coverage": 0.375, "threshold": 0.8125,
                                                    "agreement": 0.9123}}}
    assert figures(values(calibration=calibration))[5:] == [
        Figure("calibration error (ECE)", 0.125, interval=(0.05, 0.25), interval_name=CI, better="lower",
               meaning="mean |agreement − confidence| over 10 equal-width bins, weighted by tasks"),
        Figure("Brier score", 0.2, "ratio", interval=(0.1, 0.3), interval_name=CI, better="lower",
               meaning="mean (confidence − correct)²; 0 is perfect, a constant 0.5 scores 0.25"),
        Figure("coverage at 90% agreement", 0.375, better="higher",
               meaning="tasks answered with confidence ≥ 0.812, where agreement is 91.2% (threshold chosen on this "
                       "run)")]


def test_calibration_without_intervals_binning_or_automation():
    rows = figures(values(calibration={"ece": 0.1, "brier": None, "risk_coverage": {"automation": None}}))[5:]
    assert [(f.name, f.value, f.interval) for f in rows] == [("calibration error (ECE)", 0.1, None),
                                                             ("Brier score", None, None)]
    assert rows[0].meaning == "mean |agreement − confidence| over bins, weighted by tasks"
    assert figures(values(calibration="not measured")) == track()


def test_an_automation_point_without_its_figures_reads_as_zero():
    rows = figures(values(calibration={"risk_coverage": {"automation": {"coverage": None}}}))
    assert (rows[-1].name, rows[-1].value) == ("coverage at 0% agreement", None)
    assert rows[-1].meaning == "tasks answered with confidence ≥ 0, where agreement is 0.0% (threshold chosen on " \
                               "this run)"
