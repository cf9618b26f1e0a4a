"""A run's summary for people (a rich table) and for programs (``--json``): the same figures in both.

The table names the run, counts what happened in verdict words (correct, wrong, the
benchmark's own words, ungraded, error) beside its own headline figure (its first figure;
simpleaudit's severity score stays in ``--json`` and the run record), gives the commonest
error with its count, then one row per headline figure: its value (percentages for
shares, ``n/a`` when undefined), one interval with its name, and what the figure means.
A run in which every scenario ended in ERROR shows no figures at all (none was measured).
"""

from __future__ import annotations

import os
import re
import statistics
import sys
from typing import Any, TextIO

from rich.console import Console
from rich.table import Table

from auditpacks.core.runs.record import RunRecord, Summary
from auditpacks.judges.figures import Figure, outcome_words
from auditpacks.judges.reader import Reader

NA = "n/a"


def summary_json(record: RunRecord) -> dict[str, Any]:
    """The figures of the table as JSON-ready data (``None`` where the table shows n/a)."""
    s = record.summary
    data: dict[str, Any] = {
        "pack": {"name": record.pack.name, "sha256": record.pack.sha256},
        "model": record.model,
        "provider": record.provider,
        "judge": record.judge,
        "repeats": record.repeats,
        **_counts(s),
        "figures": [] if s.failed_all else [f.to_dict() for f in run_figures(record)],
    }
    if record.cost:
        data["cost"] = record.cost
    if record.repeats > 1:
        reader = Reader.of_record(record)
        data["rounds"] = [{"round": r.round, "seed": r.seed, "results": r.results,
                           **(_counts(r.summary) if r.summary else {}),
                           "figures": [f.to_dict() for f in reader.recorded(record, i).figures]
                           if r.summary else []}
                          for i, r in enumerate(record.rounds)]
    return data


def key_figure(rows: list[Figure]) -> str:
    """The benchmark's headline figure (its first) in a few words: name, group, value and interval."""
    if not rows:
        return "headline n/a"
    f = rows[0]
    bare = fmt_interval(Figure(f.name, f.value, f.unit, interval=f.interval))
    return f"{f.name}{f' ({f.group})' if f.group else ''} {fmt_value(f.value, f.unit)}" + (f" [{bare}]" if bare else "")


def run_figures(record: RunRecord) -> list[Figure]:
    """The run's headline figures; for several rounds, each figure's mean over the rounds, with its sample sd."""
    reader = Reader.of_record(record)
    if record.repeats == 1 or not all(r.summary for r in record.rounds):
        return reader.recorded(record).figures
    per_round = [reader.recorded(record, i).figures for i in range(len(record.rounds))]
    out = []
    for index, first in enumerate(per_round[0]):
        values = [rows[index].value for rows in per_round if index < len(rows) and rows[index].value is not None]
        mean = statistics.fmean(values) if values else None
        sd = statistics.stdev(values) if len(values) > 1 else None
        spread = "n/a" if sd is None else fmt_value(sd, first.unit)
        general = re.sub(r"\s*\([^()]*\d[^()]*\)$", "", first.meaning)  # round 1's own counts left out
        out.append(Figure(first.name, mean, first.unit, group=first.group, better=first.better,
                          meaning=f"mean of {len(values)} rounds, sample sd {spread}; {general}".rstrip("; ")))
    return out


def _counts(s: Summary) -> dict[str, Any]:
    return {"scenarios": s.scenarios, "completed": s.completed, "errors": s.errors, "skipped": dict(s.skipped),
            "resumed": s.resumed, "outcomes": {w: s.outcomes.get(w, 0) for w in outcome_words()},
            "simpleaudit_score": s.simpleaudit_score, "commonest_error": s.commonest_error,
            "notes": list(s.notes)}


def print_summary(record: RunRecord, file: TextIO | None = None) -> None:
    """The summary table on ``file`` (stdout by default)."""
    stream = file or sys.stdout
    console = Console(file=stream, highlight=False, soft_wrap=True, width=terminal_width(stream))
    s = record.summary
    via = (f"{record.model} (the embedded model, llama.cpp)" if record.embedded else
           f"{record.model} via {record.provider}" + (f" at {record.base_url}" if record.base_url else "")
           + "".join(f", {url}" for url in record.parameters.get("more_base_urls") or ()))
    console.print(f"[bold]{record.pack.name}[/] (sha256 {record.pack.sha256[:12]}…) · {via} · judge {record.judge}"
                  + (f" · {record.repeats} rounds" if record.repeats > 1 else ""))
    console.print(_count_line(s))
    rows = [] if s.failed_all else run_figures(record)
    console.print("verdicts: " + ", ".join(f"{w} {s.outcomes.get(w, 0)}" for w in outcome_words())
                  + f" · {key_figure(rows)}", markup=False)
    if s.commonest_error:
        console.print(f"commonest error ({s.commonest_error['count']}×): {s.commonest_error['message']}",
                      markup=False)
    reader = Reader.of_record(record)
    for line in (_performance_lines(record.performance, unit_of(reader)) + _grader_lines(record.models)
                 + _cost_lines(record.cost)):
        console.print(line, markup=False)
    if rows:
        console.print(figure_table(rows, record))
    elif s.failed_all:
        console.print("figures: none: every scenario ended in ERROR, so nothing was measured")
    headline = reader.recorded(record)
    if headline.error is not None:
        console.print(f"note: the {record.judge} headline figures failed: {headline.error}", markup=False)
    for note in s.notes + headline.warnings:
        console.print(f"note: {note}", markup=False)


def _cost_lines(cost: dict[str, Any] | None) -> list[str]:
    from auditpacks.runner.hosted.reconcile import cost_line

    line = cost_line(cost)
    return [line] if line else []


def _grader_lines(models: dict[str, Any] | None) -> list[str]:
    """One line per judge or auditor model: who, its settings, and how many requests it took."""
    lines = []
    for role, m in (models or {}).items():
        if m:
            lines.append(f"{role} model: {m['model']} ({m['provider']}), temperature {m['temperature']:g}, "
                         f"cap {m['max_tokens']} tokens; {m['requests']} requests, {m['cache_hits']} from the cache, "
                         f"{m['input_tokens']}+{m['output_tokens']} tokens")
    return lines


def terminal_width(stream: TextIO) -> int | None:
    """The width to print at: the terminal's (rich finds it) on a terminal; else ``$COLUMNS``, the width of
    the terminal stderr is on, or 120."""
    if stream.isatty():
        return None
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    try:
        return os.get_terminal_size(sys.__stderr__.fileno()).columns
    except (AttributeError, OSError, ValueError):
        return 120


def unit_of(reader: Reader) -> str:
    """What a run's scenarios are grouped by, in the benchmark's word (a document where it names none)."""
    return reader.paired.unit if reader.paired else "document"


def _performance_lines(perf: dict[str, Any] | None, unit: str = "document") -> list[str]:
    if not perf:
        return []
    lines = []
    if perf.get("prompt_order"):
        groups = perf.get("documents", 0)
        earlier = perf.get("earlier_attempts") or {}
        lines.append(f"prompts: {perf['prompt_order']}, {groups} {unit}{'' if groups == 1 else 's'} run"
                     + (f" (and {earlier.get('documents', 0)} by earlier attempts: {earlier.get('scenarios', 0)} "
                        "scenarios resumed)" if earlier else "")
                     + (", llama.cpp slots pinned" if perf.get("slot_pinning") else ""))
    tokens = perf.get("server_prompt_tokens")
    if tokens:
        lines.append(f"prefill: {tokens['prompt_n']} prompt tokens evaluated, {tokens['cache_n']} reused "
                     f"from the server's cache ({tokens['requests']} requests)")
    for endpoint in perf.get("endpoints") or []:
        served = endpoint.get("server_prompt_tokens")
        prefill = f", {served['prompt_n']} prompt tokens evaluated, {served['cache_n']} reused" if served else ""
        lines.append(f"endpoint: {endpoint['base_url']}: {endpoint['calls']} calls, {endpoint['documents']} documents, "
                     f"{endpoint['input_tokens']} tokens in, {endpoint['output_tokens']} out{prefill}"
                     + (f"; taken out ({endpoint['failed']})" if endpoint.get("failed") else ""))
    batching = perf.get("decision_batching")
    if batching:
        sizes = ", ".join(f"{n}×{size}" for size, n in batching["batch_sizes"].items()) or "none"
        lines.append(f"batching: {batching['requests']} decision requests: batches {sizes}; "
                     f"{batching['single_calls']} single")
    return lines


def _count_line(s: Summary) -> str:
    line = f"scenarios: {s.scenarios} run, {s.completed} completed, {s.errors} errors"
    line += "".join(f", {n} skipped ({why})" for why, n in s.skipped.items())
    if s.resumed:
        line += f" ({s.resumed} reused from the journal)"
    return line


def figure_table(rows: list[Figure], record: RunRecord | None = None) -> Table:
    grouped = any(f.group for f in rows)
    table = Table(show_edge=False, pad_edge=False, header_style="bold")
    if grouped:
        table.add_column("group")
    for column, justify in (("figure", "left"), ("value", "right"), ("interval", "left"), ("meaning", "left")):
        table.add_column(column, justify=justify)
    for f in rows:
        cells = [fmt_value(f.value, f.unit), fmt_interval(f), f.meaning]
        table.add_row(*([f.group] if grouped else []), f.name, *cells)
    return table


def fmt_value(value: float | int | None, unit: str) -> str:
    if value is None:
        return NA
    if unit == "%":
        return f"{value:.1%}"
    if unit == "count":
        return str(value)
    return f"{value:.3g}"


def fmt_interval(f: Figure) -> str:
    if f.interval is None:
        return NA if f.interval_name else ""
    low, high = f.interval
    if f.unit == "%":
        text = f"{low * 100:.1f}–{high * 100:.1f}%"
    else:
        text = f"{low:.3g}–{high:.3g}"
    return f"{text} ({f.interval_name})" if f.interval_name else text

