"""The summary's parts one by one: the JSON's fields, the performance, grader and count lines, the width it
prints at, the figure table's columns, and the header and notes of the printed summary."""

from __future__ import annotations

import io
import os
from types import SimpleNamespace

import pytest

from auditpacks.core.runs.record import PackRef, Round, RunRecord, Summary
from auditpacks.judges.figures import Figure
from auditpacks.runner.display import summary_view as sv

AGREEMENT = {"tasks": 8, "judgments": 3, "micro": 0.375, "macro": 0.5, "coverage": 1.0,
             "ci": {"micro": [0.125, 0.625], "macro": [0.25, 0.75], "coverage": [1.0, 1.0]}, "warnings": []}
COST = {"way": "batch", "price_table_date": "2026-11-01", "quote": {"cost": 2.0},
        "incurred": {"cost": 1.5, "input": 1000, "cached_input": 0, "cache_write": 0, "output": 10,
                     "cache_hit_rate": 0.5}}


def record(**fields) -> RunRecord:
    summary = fields.pop("summary", None) or Summary(
        scenarios=8, completed=7, errors=1, skipped={"too long": 2}, resumed=3, headline=AGREEMENT,
        outcomes={"correct": 3, "wrong": 4, "error": 1}, simpleaudit_score=41.5,
        commonest_error={"message": "CallFailed", "count": 1}, notes=["a note"])
    return RunRecord(**{"model": "m", "provider": "openai", "judge": "choice", "fingerprint": "f",
                        "pack": PackRef(name="p.json", sha256="ab" * 32), "summary": summary,
                        "rounds": [Round(round=1, seed=0, results="m.json")], **fields})


def test_the_json_holds_the_run_its_counts_its_figures_and_its_cost():
    data = sv.summary_json(record(cost=COST))
    figures = data.pop("figures")
    assert data == {"pack": {"name": "p.json", "sha256": "ab" * 32}, "model": "m", "provider": "openai",
                    "judge": "choice", "repeats": 1, "scenarios": 8, "completed": 7, "errors": 1,
                    "skipped": {"too long": 2}, "resumed": 3,
                    "outcomes": {"correct": 3, "wrong": 4, "invented": 0, "ungraded": 0, "error": 1},
                    "simpleaudit_score": 41.5, "commonest_error": {"message": "CallFailed", "count": 1},
                    "notes": ["a note"], "cost": COST}
    assert figures[0] == {"name": "agreement (micro)", "value": 0.375, "unit": "%", "interval": [0.125, 0.625],
                          "interval_name": "95% CI, bootstrap over judgments", "group": "", "better": "higher",
                          "meaning": figures[0]["meaning"]}
    assert "cost" not in sv.summary_json(record())


def test_the_json_of_a_repeated_run_lists_each_round():
    rounds = [Round(round=1, seed=5, results="m1.json", summary=Summary(
        scenarios=8, completed=8, outcomes={"correct": 8}, headline={**AGREEMENT, "micro": 0.25})),
              Round(round=2, seed=6, results="m2.json")]
    data = sv.summary_json(record(repeats=2, rounds=rounds))
    first, second = data["rounds"]
    assert (first["round"], first["seed"], first["results"], first["scenarios"], first["outcomes"]["correct"]) == (
        1, 5, "m1.json", 8, 8)
    assert first["figures"][0]["name"] == "agreement (micro)" and first["figures"][0]["value"] == 0.25
    assert second == {"round": 2, "seed": 6, "results": "m2.json", "figures": []}
    run = data["figures"][0]   # a round without its summary: the run's own figures, not a mean
    assert run["value"] == 0.375 and not run["meaning"].startswith("mean of")


def test_a_figure_missing_from_a_round_is_averaged_over_the_others():
    def round_with(number, micro):
        return Round(round=number, seed=number, results=f"m{number}.json",
                     summary=Summary(scenarios=8, headline={**AGREEMENT, "micro": micro}))
    rounds = [round_with(1, 0.5), round_with(2, None)]
    figures = sv.run_figures(record(repeats=2, rounds=rounds))
    micro = next(f for f in figures if f.name == "agreement (micro)")
    assert micro.value == 0.5 and micro.meaning.startswith("mean of 1 rounds, sample sd n/a; ")
    assert (micro.unit, micro.better, micro.group) == ("%", "higher", "")


def test_a_repeated_figure_s_meaning_drops_round_one_s_own_counts(monkeypatch):
    rows = [[Figure("rate", 0.2, "ratio", meaning="answers in class X (1 of 5)", group="en", better="lower"),
             Figure("n", None, "count"), Figure("late", 3, "count")],
            [Figure("rate", 0.4, "ratio", meaning="answers in class X (2 of 5)", group="en", better="lower"),
             Figure("n", None, "count")]]
    reader = SimpleNamespace(recorded=lambda rec, i=None: SimpleNamespace(figures=rows[i]))
    monkeypatch.setattr(sv.Reader, "of_record", classmethod(lambda cls, rec: reader))
    rounds = [Round(round=i + 1, seed=i, results="r", summary=Summary()) for i in range(2)]
    rate, n, late = sv.run_figures(record(repeats=2, rounds=rounds))
    assert rate == Figure("rate", pytest.approx(0.3), "ratio", group="en", better="lower",
                          meaning="mean of 2 rounds, sample sd 0.141; answers in class X")
    assert n == Figure("n", None, "count", meaning="mean of 0 rounds, sample sd n/a")   # no value in any round
    assert late == Figure("late", 3, "count", meaning="mean of 1 rounds, sample sd n/a")  # only round 1 has it


@pytest.mark.parametrize("perf, lines", [
    (None, []),
    ({"prompt_order": "by document", "documents": 1}, ["prompts: by document, 1 question run"]),
    ({"prompt_order": "stock", "documents": 3, "slot_pinning": True,
      "earlier_attempts": {"documents": 2, "scenarios": 5}},
     ["prompts: stock, 3 questions run (and 2 by earlier attempts: 5 scenarios resumed), llama.cpp slots pinned"]),
    ({"prompt_order": "stock"}, ["prompts: stock, 0 questions run"]),
    ({"prompt_order": "stock", "documents": 2, "earlier_attempts": {"seconds": 1}},
     ["prompts: stock, 2 questions run (and 0 by earlier attempts: 0 scenarios resumed)"]),
    ({"server_prompt_tokens": {"prompt_n": 100, "cache_n": 40, "requests": 3}},
     ["prefill: 100 prompt tokens evaluated, 40 reused from the server's cache (3 requests)"]),
    ({"endpoints": [{"base_url": "http://a", "calls": 4, "documents": 2, "input_tokens": 90, "output_tokens": 9,
                     "server_prompt_tokens": {"prompt_n": 50, "cache_n": 40}},
                    {"base_url": "http://b", "calls": 1, "documents": 1, "input_tokens": 5, "output_tokens": 1,
                     "failed": "HTTP 500"}]},
     ["endpoint: http://a: 4 calls, 2 documents, 90 tokens in, 9 out, 50 prompt tokens evaluated, 40 reused",
      "endpoint: http://b: 1 calls, 1 documents, 5 tokens in, 1 out; taken out (HTTP 500)"]),
    ({"decision_batching": {"requests": 5, "batch_sizes": {"4": 2, "1": 1}, "single_calls": 2}},
     ["batching: 5 decision requests: batches 2×4, 1×1; 2 single"]),
    ({"decision_batching": {"requests": 0, "batch_sizes": {}, "single_calls": 3}},
     ["batching: 0 decision requests: batches none; 3 single"]),
])
def test_performance_lines(perf, lines):
    assert sv._performance_lines(perf, "question") == lines


def test_performance_lines_count_documents_by_default():
    assert sv._performance_lines({"prompt_order": "stock", "documents": 2}) == ["prompts: stock, 2 documents run"]


def test_grader_lines_name_each_model_s_settings_and_traffic():
    judge = {"model": "j", "provider": "openai", "temperature": 0.70, "max_tokens": 512, "requests": 9,
             "cache_hits": 2, "input_tokens": 100, "output_tokens": 20}
    assert sv._grader_lines({"judge": judge, "auditor": None}) == [
        "judge model: j (openai), temperature 0.7, cap 512 tokens; 9 requests, 2 from the cache, 100+20 tokens"]
    assert sv._grader_lines(None) == []


def test_the_count_line_names_skips_and_reuse():
    assert sv._count_line(Summary(scenarios=5, completed=3, errors=1, skipped={"a": 1, "b": 2}, resumed=2)) == (
        "scenarios: 5 run, 3 completed, 1 errors, 1 skipped (a), 2 skipped (b) (2 reused from the journal)")
    assert sv._count_line(Summary(scenarios=1, completed=1)) == "scenarios: 1 run, 1 completed, 0 errors"


class Stream:
    def __init__(self, tty=False):
        self.tty = tty

    def isatty(self):
        return self.tty


@pytest.mark.parametrize("columns, width", [("80", 80), ("1", 1), ("0", 91), ("wide", 91), ("", 91), (None, 91)])
def test_the_width_is_columns_else_the_terminal_stderr_is_on(monkeypatch, columns, width):
    if columns is None:
        monkeypatch.delenv("COLUMNS", raising=False)
    else:
        monkeypatch.setenv("COLUMNS", columns)
    monkeypatch.setattr(sv.sys, "__stderr__", SimpleNamespace(fileno=lambda: 7))
    monkeypatch.setattr(sv.os, "get_terminal_size", lambda fd: os.terminal_size((91 if fd == 7 else 1, 24)))
    assert sv.terminal_width(Stream()) == width
    assert sv.terminal_width(Stream(tty=True)) is None   # rich measures a terminal itself


@pytest.mark.parametrize("error", [OSError, ValueError, AttributeError])
def test_without_a_terminal_the_width_is_120(monkeypatch, error):
    monkeypatch.delenv("COLUMNS", raising=False)

    def no_size(fd):
        raise error("no terminal")

    monkeypatch.setattr(sv.os, "get_terminal_size", no_size)
    assert sv.terminal_width(Stream()) == 120


def test_the_unit_is_the_benchmark_s_pairing_unit_else_a_document():
    assert sv.unit_of(SimpleNamespace(paired=SimpleNamespace(unit="question"))) == "question"
    assert sv.unit_of(SimpleNamespace(paired=None)) == "document"


def cells(table):
    return [[str(c) for c in column._cells] for column in table.columns]


def test_the_figure_table_adds_a_group_column_only_when_a_figure_has_a_group():
    plain = sv.figure_table([Figure("n", 3, "count", meaning="tasks")])
    assert [(c.header, c.justify) for c in plain.columns] == [
        ("figure", "left"), ("value", "right"), ("interval", "left"), ("meaning", "left")]
    assert cells(plain) == [["n"], ["3"], [""], ["tasks"]]
    grouped = sv.figure_table([Figure("rate", 0.5, interval=(0.25, 0.75), interval_name="95% CI", group="en"),
                               Figure("p", 0.01234, "p")])
    assert [c.header for c in grouped.columns][0] == "group"
    assert cells(grouped) == [["en", ""], ["rate", "p"], ["50.0%", "0.0123"], ["25.0–75.0% (95% CI)", ""], ["", ""]]
    assert grouped.show_edge is False and grouped.pad_edge is False and grouped.header_style == "bold"


def test_values_intervals_and_the_key_figure():
    assert sv.fmt_interval(Figure("r", 1.5, "ratio", interval=(0.51234, 2.0), interval_name="Wilson")) == (
        "0.512–2 (Wilson)")
    assert sv.fmt_interval(Figure("r", 1.5, "ratio", interval=(0.5, 2.0))) == "0.5–2"
    assert sv.fmt_interval(Figure("r", None, interval_name="Wilson")) == "n/a"
    assert sv.key_figure([Figure("rate", 0.25, group="en", interval=(0.1, 0.4), interval_name="x"),
                          Figure("other", 1.0)]) == "rate (en) 25.0% [10.0–40.0%]"
    assert sv.key_figure([Figure("n", 4, "count")]) == "n 4"
    assert sv.key_figure([Figure("n", 4, "count", interval=(2, 7), interval_name="range")]) == "n 4 [2–7]"
    assert sv.fmt_value(123456, "count") == "123456" and sv.fmt_value(123456, "ratio") == "1.23e+05"


def printed(rec: RunRecord, monkeypatch) -> str:
    monkeypatch.setenv("COLUMNS", "300")
    out = io.StringIO()
    sv.print_summary(rec, file=out)
    return out.getvalue()


def test_the_printed_summary_s_header_lines_and_notes(monkeypatch):
    models = {"judge": {"model": "j", "provider": "openai", "temperature": 0, "max_tokens": 9, "requests": 1,
                        "cache_hits": 0, "input_tokens": 1, "output_tokens": 1}}
    text = printed(record(base_url="http://h/v1", parameters={"more_base_urls": ["http://g/v1", "http://k/v1"]},
                          repeats=2,
                          models=models, cost=COST, performance={"prompt_order": "[stock]", "documents": 2},
                          summary=Summary(scenarios=2, completed=2, headline={**AGREEMENT, "warnings": ["[w]"]},
                                          notes=["[n]"])),
                   monkeypatch)
    lines = text.splitlines()
    assert lines[0] == ("p.json (sha256 abababababab…) · m via openai at http://h/v1, http://g/v1, http://k/v1 · "
                        "judge choice · 2 rounds")
    assert lines[1] == "scenarios: 2 run, 2 completed, 0 errors"
    assert "prompts: [stock], 2 judgments run" in lines and "cost (batch, prices of 2026-11-01): $1.5000 " \
        "incurred, $2.0000 quoted; 1,000 input tokens, 0 cached, 0 cache writes, 10 output; cache hit rate 50%" in lines
    assert any(line.startswith("judge model: j (openai), temperature 0, cap 9 tokens") for line in lines)
    assert lines[-2:] == ["note: [n]", "note: [w]"]   # printed as written, brackets and all
    assert "commonest error" not in text


def test_a_failed_headline_is_noted(monkeypatch):
    text = printed(record(summary=Summary(scenarios=1, completed=1, headline={"error": "ValueError: [bad]"})),
                   monkeypatch)
    assert "note: the choice headline figures failed: ValueError: [bad]" in text.splitlines()
    assert "m via openai · judge choice\n" in text and "rounds" not in text


def test_bracketed_text_is_printed_as_written_and_long_lines_are_not_wrapped(monkeypatch):
    monkeypatch.setattr(sv, "run_figures", lambda rec: [Figure("[bold]rate", 0.5)])
    summary = Summary(scenarios=1, completed=1, headline=AGREEMENT, notes=["x" * 400],
                      commonest_error={"message": "[red]boom", "count": 2})
    lines = printed(record(summary=summary), monkeypatch).splitlines()
    assert lines[2] == "verdicts: correct 0, wrong 0, invented 0, ungraded 0, error 0 · [bold]rate 50.0%"
    assert lines[3] == "commonest error (2×): [red]boom"
    assert lines[-1] == "note: " + "x" * 400


def test_an_all_error_run_says_why_it_has_no_figures(monkeypatch):
    summary = Summary(scenarios=2, completed=0, errors=2, headline=AGREEMENT, outcomes={"error": 2})
    assert "figures: none: every scenario ended in ERROR, so nothing was measured" in printed(
        record(summary=summary), monkeypatch).splitlines()


def test_without_columns_the_table_uses_the_width_found(monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)
    monkeypatch.setattr(sv.sys, "__stderr__", SimpleNamespace(fileno=lambda: 7))
    real = os.get_terminal_size
    monkeypatch.setattr(sv.os, "get_terminal_size", lambda fd=1: os.terminal_size((150, 24)) if fd == 7 else real(fd))
    out = io.StringIO()
    sv.print_summary(record(), file=out)
    assert max(len(line) for line in out.getvalue().splitlines()) > 120   # not rich's 80 for a file


class Terminal(io.StringIO):
    def isatty(self):
        return True


def test_numbers_on_a_terminal_are_not_coloured(monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    out = Terminal()
    sv.print_summary(record(), file=out)
    assert "scenarios: 8 run, 7 completed, 1 errors, 2 skipped (too long) (3 reused from the journal)" in out.getvalue()
