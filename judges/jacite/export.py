"""Export a run of a jacite pack as the rows of a jacite-bench ``benchmark.json``.

``auditpacks export jacite RESULTS.json [--run RUN.json] [--model-id ID] --out benchmark.json``

One row per graded result, in results order, with the fields ``auditpacks rescore
jacite`` reads and jacite-bench publishes: ``id`` (the question id), ``model``,
``language``, ``law_id``, ``gold_article``, ``response`` (the reply as graded),
``cited``, ``invented``, ``real_not_gold``, ``n_cited`` and ``n_invented`` from the
grounding judgment. ERROR results are left out with a warning: a failed call is not
an answer. Re-scoring the file with the run's extractor (``--mode``, printed here)
and registry gives the run's own figures.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, Iterator, Mapping

from auditpacks.core.errors import PackError
from auditpacks.core.io import atomic_write_json
from auditpacks.judges.base import last_reply
from auditpacks.core.runs.results import Result
from auditpacks.judges.run_reader import graded_results, read_run

FIELDS = ("cited", "invented", "real_not_gold", "n_cited", "n_invented")
METADATA = ("question_id", "language", "law_id", "gold_article")


def export_rows(results: Mapping[str, Any] | Iterator[Result], *, model: str,
                source: str = "results") -> tuple[list[dict], list[str], set]:
    """benchmark.json rows, the names of the ERROR results left out, and the extractor modes seen (``results``:
    a results file's content, or its results streamed by :func:`~auditpacks.core.runs.results.iter_results`)."""
    rows, skipped, modes = [], [], set()
    for i, result in graded_results(results, source):
        name, judgment = result.scenario_name, result.judgment
        if result.is_error:
            skipped.append(name)
            continue
        missing = [k for k in (*METADATA, *FIELDS) if k not in judgment]
        if missing:
            raise PackError(f"{source} result #{i} ({name!r}): judgment field {missing[0]!r} is "
                            "missing; not a run graded by the grounding judge")
        content = last_reply(result.conversation).get("content")
        rows.append({"id": judgment["question_id"], "model": model, "language": judgment["language"],
                     "law_id": judgment["law_id"], "gold_article": judgment["gold_article"],
                     "response": content if isinstance(content, str) else "",
                     **{k: judgment[k] for k in FIELDS}, "scenario": name})
        modes.add((judgment.get("mode"), judgment.get("deleted_as")))
    return rows, skipped, modes


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("results", type=Path, help="RESULTS.json written by a run (simpleaudit AuditResults)")
    parser.add_argument("--run", type=Path, help="the run record (default: RESULTS.run.json beside it)")
    parser.add_argument("--model-id", help="model name to record (default: the run record's model)")
    parser.add_argument("--out", type=Path, required=True, help="benchmark.json to write")


def main(args: argparse.Namespace) -> int:
    results, model = read_run(args.results, args.run, args.model_id)
    rows, skipped, modes = export_rows(results, model=model, source=args.results.name)
    atomic_write_json(args.out, rows)
    print(f"wrote {len(rows)} rows to {args.out}")
    for mode, deleted_as in sorted(modes, key=str):
        print(f"graded with the {mode} extractor, deleted placeholders as {deleted_as}: re-score with "
              f"auditpacks rescore jacite {args.out} --mode {mode} --deleted-as {deleted_as}")
    if skipped:
        print(f"warning: left out {len(skipped)} ERROR results (first: {skipped[0]})", file=sys.stderr)
    return 0
