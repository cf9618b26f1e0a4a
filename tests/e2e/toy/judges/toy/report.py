"""The toy benchmark's report section, paired comparison and export."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any, Mapping

from auditpacks.judges.statistics.compare import compare_ratios, paired_row
from auditpacks.judges.figures import Cell, Column, Plot, Section, Table, question_group


def headline(run, round_index: int = 0) -> list:
    return run.headline(round_index).figures


def section(run, round_index: int = 0) -> Section:
    pairs = run.pairs(round_index)
    rows = [[Cell(s["name"]), Cell((r.get("judgment") or {}).get("answer")),
             Cell(1.0 if (r.get("judgment") or {}).get("correct") else 0.0, "%")] for s, r in pairs]
    plot = Plot("bars", [s["name"] for s, _ in pairs],
                {"right": ([row[2].value for row in rows], [None] * len(rows))}, "toy right answers", 1.0)
    return Section(tables=[Table("Toy sums", [Column("Sum"), Column("Answer"), Column("Right")], rows)],
                   plots=[plot])


def answer(judgment: Mapping[str, Any]) -> str | None:
    return f"said {judgment['answer']}" if "answer" in judgment else None


def question(scenario: Mapping[str, Any]) -> Any:
    """The sum a scenario asks for (its metadata's ``question_id``)."""
    return (scenario.get("metadata") or {}).get("question_id")


def group(scenario: Mapping[str, Any]) -> str:
    return question_group(scenario, question)


def compare(paired: list) -> list[dict[str, Any]]:
    rows = [{"cluster": s["name"], "a": (int(bool((ra.get("judgment") or {}).get("correct"))), 1),
             "b": (int(bool((rb.get("judgment") or {}).get("correct"))), 1)} for s, ra, rb in paired]
    return [paired_row("toy accuracy", compare_ratios(rows))]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("results", type=Path)
    parser.add_argument("--out", type=Path, required=True)


def main(args: argparse.Namespace) -> int:
    results = json.loads(args.results.read_text(encoding="utf-8"))["results"]
    lines = [json.dumps({"name": r["scenario_name"], "answer": (r.get("judgment") or {}).get("answer")})
             for r in results]
    args.out.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    print(f"wrote {len(lines)} answers to {args.out}")
    return 0
