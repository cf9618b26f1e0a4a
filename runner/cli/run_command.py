"""``auditpacks run``: what it refuses before the model libraries load, the run, its summary on stdout
and, on stderr, where its files are and how to view them."""

from __future__ import annotations

import contextlib
import json
import sys
from pathlib import Path

from auditpacks.core.errors import EXIT_INCOMPLETE, EXIT_OK
from auditpacks.runner.cli.run_args import config_from_args


def report_run(record, as_json: bool) -> int:
    """The run's summary on stdout (table or JSON); the exit code says whether every scenario was graded."""
    from auditpacks.runner.display.summary_view import print_summary, summary_json

    if as_json:
        print(json.dumps(summary_json(record), indent=2, ensure_ascii=False))
    else:
        print_summary(record)
    if not record.summary.graded_all:
        s = record.summary
        if s.scenarios == 0:
            why = "no scenario was selected"
        elif s.errors:
            why = f"{s.errors} of {s.scenarios} scenarios ended in ERROR"
        else:
            why = f"the judge graded none of the {s.completed} scenarios (see why under ungraded)"
        print(f"auditpacks: incomplete: {why} (exit {EXIT_INCOMPLETE})", file=sys.stderr)
        return EXIT_INCOMPLETE
    return EXIT_OK


def run_command(args) -> int:
    """``auditpacks run``: refusals first, then the run, its summary and where its files are."""
    from auditpacks.runner.readiness.early import refuse_early

    if args.dry_run:
        return pilot_command(args) if getattr(args, "pilot", None) else quote_command(args)
    config = config_from_args(args)
    admitted = refuse_early(config)  # before the model libraries are imported: a refusal is quick
    from auditpacks.runner.store.layout import located
    from auditpacks.runner.run.run import run

    with contextlib.redirect_stdout(sys.stderr):  # progress and library chatter; stdout is the summary's
        record = run(config, admitted)
    folder = located(config, record)
    print(f"run files in {folder}", file=sys.stderr)
    code = report_run(record, args.json)
    print_viewer(folder)
    return code


def print_viewer(folder: Path) -> None:
    """The last line on stderr: how to open the results in SimpleAudit Studio's viewer."""
    from auditpacks.core.runs.results_layout import viewer_command

    print(f"auditpacks: view the results: {viewer_command(folder)}", file=sys.stderr)


def quote_command(args) -> int:
    """``run --dry-run``: the quote on stdout (table or JSON); nothing is sent."""
    from auditpacks.runner.hosted.plan import quote
    from auditpacks.runner.hosted.plan_view import print_quote

    result = quote(config_from_args(args))
    if args.json:
        print(json.dumps(result.to_dict(), indent=2, ensure_ascii=False))
    else:
        print_quote(result)
    return EXIT_OK


def pilot_command(args) -> int:
    """``run --dry-run --pilot N``: the first N scenarios run for real (a run folder like any), then the whole
    selection re-quoted from their bill."""
    from auditpacks.core.errors import UserError
    from auditpacks.runner.hosted.pilot import pilot_config, pilot_line, requote
    from auditpacks.runner.readiness.early import refuse_early
    from auditpacks.runner.run.run import run

    config = config_from_args(args)
    if not config.target.model:
        raise UserError("--pilot needs one --target: the model whose bill it reads")
    trial = pilot_config(config, args.pilot)
    admitted = refuse_early(trial)
    with contextlib.redirect_stdout(sys.stderr):
        record = run(trial, admitted)
    if not record.cost:
        raise UserError(f"--pilot: {config.target.model} is not in the price table, so its bill cannot be read")
    result = requote(config, record.cost, len(admitted.scenarios))
    if args.json:
        print(json.dumps(result.to_dict(), indent=2, ensure_ascii=False))
    else:
        print(pilot_line(result))
    return EXIT_OK
