"""Headline figures as people read them: verdict words, percentages, one named interval, n/a when undefined."""

from __future__ import annotations

import io

from auditpacks.core.runs.record import PackRef, Round, RunRecord, Summary
from auditpacks.judges.reader import Reader
from auditpacks.runner.display.summary_view import fmt_interval, fmt_value, print_summary, summary_json


def test_verdict_words():
    outcome = Reader.of("grounding").outcome   # jacite's runs: invented is its own word
    assert outcome({"severity": "pass", "judgment": {"n_invented": 0}}) == "correct"
    assert outcome({"severity": "high", "judgment": {"n_invented": 2}}) == "invented"
    assert outcome({"severity": "low", "judgment": {"n_invented": 0}}) == "wrong"  # real article, not the one asked
    assert outcome({"severity": "medium", "judgment": {}}) == "wrong"
    assert outcome({"severity": "ungraded"}) == "ungraded"
    assert outcome({"severity": "ERROR", "judgment": {"n_invented": 1}}) == "error"
    assert Reader.of("choice").outcome({"severity": "high", "judgment": {"n_invented": 2}}) == "wrong"  # not jacite's


AGREEMENT = {"tasks": 8, "judgments": 3, "micro": 0.375, "macro": 0.5, "coverage": 1.0,
             "ci": {"micro": [0.125, 0.625], "macro": [0.25, 0.75], "coverage": [1.0, 1.0]}, "warnings": []}


def test_agreement_rows_read_as_percentages_with_the_bootstrap_named():
    rows = {f.name: f for f in Reader.of("choice").figures(AGREEMENT)}
    micro = rows["agreement (micro)"]
    assert fmt_value(micro.value, micro.unit) == "37.5%"  # 3 of 8
    assert fmt_interval(micro) == "12.5–62.5% (95% CI, bootstrap over judgments)"
    assert fmt_value(rows["tasks"].value, rows["tasks"].unit) == "8"


def test_undefined_grounding_figures_are_n_a_and_the_bootstrap_is_preferred():
    headline = {
        "en": {"answered": 2, "errored": 0, "invented": 1, "cited": 4, "invented_rate": 0.25,
               "invented_wilson95": [0.046, 0.699], "invented_bootstrap95": [0.0, 0.5], "gold_hit": 1,
               "gold_hit_rate": 0.5, "gold_hit_wilson95": [0.095, 0.905]},
        "ja": {"answered": 2, "errored": 1, "invented": 0, "cited": 0, "invented_rate": None,
               "invented_wilson95": None, "invented_bootstrap95": None, "gold_hit": 0, "gold_hit_rate": 0.0,
               "gold_hit_wilson95": [0.0, 0.658]},
        "ja_vs_en": {"fisher_p": 1.0, "rate_ratio": None},
    }
    rows = {(f.group, f.name): f for f in Reader.of("grounding").figures(headline)}
    en = rows[("en", "invented rate")]
    assert (fmt_value(en.value, en.unit), fmt_interval(en)) == ("25.0%", "0.0–50.0% (95% CI, bootstrap over questions)")
    assert en.meaning.endswith("(1 of 4)")
    ja = rows[("ja", "invented rate")]
    assert (fmt_value(ja.value, ja.unit), fmt_interval(ja)) == ("n/a", "n/a")
    assert fmt_value(rows[("ja vs en", "invented rate ratio")].value, "ratio") == "n/a"


def test_citation_rows_and_the_printed_table():
    headline = {"scenarios": 2, "scored": 2, "valid": 1, "partial": 1, "errors": 0, "ungraded": 0, "passed": 1,
                "case_ids": {"tp": 1, "fp": 1, "fn": 2, "precision": 0.5, "recall": 1 / 3, "f1": 0.4}}
    rows = Reader.of("citations").figures(headline)
    assert [(f.group, f.name, fmt_value(f.value, f.unit)) for f in rows[:3]] == [
        ("case_ids", "F1", "40.0%"), ("case_ids", "precision", "50.0%"), ("case_ids", "recall", "33.3%")]
    record = RunRecord(model="m", provider="openai", judge="citations", fingerprint="f",
                       pack=PackRef(name="icj.json", sha256="ab" * 32),
                       summary=Summary(scenarios=3, completed=2, errors=1, headline=headline,
                                       outcomes={"correct": 1, "wrong": 1, "error": 1},
                                       commonest_error={"message": "CallFailed: HTTP 500", "count": 1},
                                       simpleaudit_score=50.0),
                       rounds=[Round(round=1, seed=0, results="m.json")])
    out = io.StringIO()
    print_summary(record, file=out)
    text = out.getvalue()
    assert "verdicts: correct 1, wrong 1, invented 0, ungraded 0, error 1 · F1 (case_ids) 40.0%\n" in text
    assert "simpleaudit" not in text   # its severity score stays in the JSON
    assert "commonest error (1×): CallFailed: HTTP 500" in text and "40.0%" in text and "None" not in text
    data = summary_json(record)
    assert data["outcomes"]["error"] == 1 and data["figures"][0]["value"] == 0.4


def test_a_repeated_run_shows_each_figure_as_a_mean_over_rounds_with_its_sample_sd():
    rounds = []
    for number, micro in ((1, 0.25), (2, 0.5), (3, 0.75)):
        headline = {**AGREEMENT, "micro": micro}
        rounds.append(Round(round=number, seed=number - 1, results=f"m{number}.json",
                            summary=Summary(scenarios=8, completed=8, headline=headline)))
    record = RunRecord(model="m", provider="openai", judge="choice", fingerprint="f", repeats=3, rounds=rounds,
                       pack=PackRef(name="p.json", sha256="0" * 64), summary=Summary(scenarios=24, completed=24))
    micro = next(f for f in summary_json(record)["figures"] if f["name"] == "agreement (micro)")
    assert micro["value"] == 0.5  # (25 + 50 + 75) / 3
    assert micro["meaning"].startswith("mean of 3 rounds, sample sd 25.0%")  # sqrt((0.25² + 0 + 0.25²) / 2)


def grounding_record(**fields) -> RunRecord:
    headline = {"en": {"answered": 2, "errored": 0, "invented": 1, "cited": 4, "invented_rate": 0.25,
                       "invented_wilson95": [0.046, 0.699], "gold_hit": 1, "gold_hit_rate": 0.5,
                       "gold_hit_wilson95": [0.095, 0.905]}}
    return RunRecord(model="smollm2", provider="openai", judge="grounding", fingerprint="f",
                     pack=PackRef(name="jacite.json", sha256="ab" * 32),
                     summary=Summary(scenarios=2, completed=2, headline=headline,
                                     outcomes={"correct": 1, "wrong": 1}),
                     performance={"prompt_order": "stock", "documents": 2},
                     rounds=[Round(round=1, seed=0, results="smollm2.json")], **fields)


def test_the_embedded_model_and_the_benchmarks_unit_are_named(monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    out = io.StringIO()
    print_summary(grounding_record(embedded=True), file=out)
    text = out.getvalue()
    assert "jacite.json (sha256 abababababab…) · smollm2 (the embedded model, llama.cpp) · judge grounding" in text
    assert "via openai" not in text
    assert "prompts: stock, 2 questions run" in text and "documents run" not in text
    out = io.StringIO()
    print_summary(grounding_record(base_url="http://h:1/v1"), file=out)
    assert "smollm2 via openai at http://h:1/v1" in out.getvalue()


def test_the_figure_table_fits_the_terminal_width(monkeypatch):
    for columns in (60, 100):
        monkeypatch.setenv("COLUMNS", str(columns))
        out = io.StringIO()
        print_summary(grounding_record(), file=out)
        table = out.getvalue().split("figure", 1)[1].splitlines()[1:]
        assert table and max(len(line) for line in table) <= columns
        assert max(len(line) for line in table) > columns - 15  # the width is used, not a fixed narrow one


def _record(judge: str, headline: dict, **counts) -> RunRecord:
    return RunRecord(model="m", provider="openai", judge=judge, fingerprint="f",
                     pack=PackRef(name="p.json", sha256="ab" * 32),
                     summary=Summary(headline=headline, simpleaudit_score=83.3, **counts),
                     rounds=[Round(round=1, seed=0, results="m.json")])


def test_the_verdict_line_shows_the_benchmarks_own_headline_with_its_interval():
    out = io.StringIO()
    print_summary(_record("choice", AGREEMENT, scenarios=8, completed=8,
                          outcomes={"correct": 3, "wrong": 5}), file=out)
    line = next(x for x in out.getvalue().splitlines() if x.startswith("verdicts:"))
    assert line == "verdicts: correct 3, wrong 5, invented 0, ungraded 0, error 0 · agreement (micro) 37.5% [12.5–62.5%]"


def test_an_all_error_run_shows_no_figure_as_if_it_were_a_score():
    headline = {"tasks": 0, "judgments": 0, "micro": 0.0, "macro": 0.0, "ci": {"micro": [0.0, 0.0]}}
    record = _record("choice", headline, scenarios=4, completed=0, errors=4, outcomes={"error": 4})
    out = io.StringIO()
    print_summary(record, file=out)
    text = out.getvalue()
    assert "· headline n/a" in text and "figures: none: every scenario ended in ERROR" in text
    assert "0.0%" not in text and "agreement" not in text
    data = summary_json(record)
    assert data["figures"] == [] and data["simpleaudit_score"] == 83.3   # kept in the JSON
