"""The ``auditpacks`` command: build, check, run, merge, status, report, compare, judge-check, score, rescore, export,
registry, list, tools and serve-decision."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import importlib
import importlib.util
import json
import os
import signal
import sys
import tempfile
import threading
from pathlib import Path

from auditpacks.core import redact as redaction
from auditpacks.core.errors import EXIT_BAD_INPUT, EXIT_INTERRUPTED, PREFIX, UserError, fail, first_line
from auditpacks.core.io import atomic_write_text
from auditpacks.core.redact import redact
from auditpacks.core.registry import modules
from auditpacks.packs.checks import ERROR, PackChecker
from auditpacks.packs.stream import scan
from auditpacks.core.arg_types import plain
from auditpacks.runner.cli.safe_parser import SafeParser
from auditpacks.runner.cli.run_args import RUN_DESCRIPTION, RUN_EXAMPLES, RUN_USAGE, add_run_arguments

#: Commands whose module has add_arguments(parser) and main(args), imported only when used.
READERS = {"report": ("auditpacks.runner.cli.report", "write a report of runs (HTML or Markdown)"),
           "compare": ("auditpacks.runner.cli.compare", "paired comparison of runs on the same pack"),
           "status": ("auditpacks.runner.cli.status", "progress of running shards, read from their journals"),
           "probe-decision": ("auditpacks.runner.cli.probe_decision", "conformance probes of a System One endpoint"),
           "judge-check": ("auditpacks.runner.cli.judge_check",
                           "qualify a checklist judge on labelled calibration transcripts (exit 4: not qualified)"),
           "tools": ("auditpacks.runner.cli.tools", "run a pack under a benchmark's tool conditions; their leak audit"),
           "list": ("auditpacks.runner.cli.listing", "benchmarks, and the packs and runs found under a folder")}

#: ``auditpacks export FORMAT``: a run in another tool's format, for any benchmark (beside each benchmark's own).
EXPORT_FORMATS = {"inspect": "auditpacks.runner.cli.export.inspect_eval", "eee": "auditpacks.runner.cli.export.eee_records"}

#: Errors that are the user's input, reported in one line without a traceback.
USER_ERRORS = (UserError, OSError, ValueError)

JSON_HELP = "print the figures as JSON on stdout instead of the table"


def _add_family(sub, name: str, help_text: str, entries: dict[str, str], handler, *, load: bool) -> None:
    """A command with one sub-command per benchmark; its modules are imported only when it is used."""
    parser = sub.add_parser(name, help=help_text)
    family = parser.add_subparsers(dest="benchmark", required=True, metavar="BENCHMARK")
    for bench, module_name in entries.items():
        if not load:
            family.add_parser(bench)
            continue
        module = importlib.import_module(module_name)
        bench_parser = family.add_parser(bench, help=plain((module.__doc__ or "").strip().partition("\n")[0]))
        module.add_arguments(bench_parser)
        if name == "score":
            bench_parser.add_argument("--json", action="store_true", help=JSON_HELP)
        if name == "build":
            bench_parser.add_argument("--force", action="store_true",
                                      help="replace an existing pack of other content at --out (it is named on stderr)")
        bench_parser.set_defaults(handler=handler, module=module)


def _optional(modules: dict[str, str]) -> dict[str, str]:
    """The modules of ``modules`` that are installed (a benchmark may ship without some tools)."""
    return {k: v for k, v in modules.items() if importlib.util.find_spec(v) is not None}


class _Version(argparse.Action):
    """``--version``, read from the installed metadata only when asked (importlib.metadata is slow to import)."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, **kwargs) -> None:
        super().__init__(option_strings, dest=dest, nargs=0, help="show the version and exit", **kwargs)

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        from auditpacks import __version__

        print(f"auditpacks {__version__}")  # on stdout, as argparse's own version action does
        parser.exit()


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    parser = SafeParser(prog="auditpacks", description=plain(__doc__))
    parser.add_argument("--version", action=_Version)
    sub = parser.add_subparsers(dest="command", required=True)

    _add_family(sub, "build", "build a scenario pack from a benchmark", _optional(modules("builder")), _build,
                load=command == "build")

    check = sub.add_parser("check", help="validate a scenario pack (exit 1 on any ERROR)")
    check.add_argument("pack", type=Path)
    check.add_argument("--quiet", action="store_true", help="print ERROR and WARN lines only")
    check.add_argument("--json", action="store_true", help="print the findings and counts as JSON")
    check.set_defaults(handler=_check)

    run = sub.add_parser("run", help="run a pack on a model and grade it", usage=RUN_USAGE,
                         description=RUN_DESCRIPTION, epilog=RUN_EXAMPLES,
                         formatter_class=argparse.RawDescriptionHelpFormatter)
    add_run_arguments(run)
    run.add_argument("--json", action="store_true", help=JSON_HELP)
    run.set_defaults(handler=_run)

    merge = sub.add_parser("merge", help="join the results of --shard runs into one results file and run file")
    merge.add_argument("shards", nargs="+", type=Path, metavar="SHARD_DIR", help="the --out folder of each shard run")
    merge.add_argument("--out", type=Path, required=True, help="folder for the merged files")
    merge.add_argument("--pack", type=Path, help="the pack the shards ran: checked, and the headline figures recomputed")
    merge.add_argument("--model", help="which model's runs to merge, when a folder holds several")
    merge.add_argument("--json", action="store_true", help=JSON_HELP)
    merge.set_defaults(handler=_merge)

    for name, (module_name, help_text) in READERS.items():
        reader = sub.add_parser(name, help=help_text)
        if command == name:
            module = importlib.import_module(module_name)
            module.add_arguments(reader)
            reader.set_defaults(handler=_delegate, module=module)

    for bench in modules("tools"):  # ``auditpacks NAME-tools ...`` is ``auditpacks tools NAME ...``
        alias = sub.add_parser(f"{bench}-tools", help=f"the same as: auditpacks tools {bench}")
        if command == f"{bench}-tools":
            from auditpacks.runner.cli import tools

            tools.add_arguments(alias, bench)
            alias.set_defaults(handler=_delegate, module=tools)

    _add_family(sub, "score", "score a benchmark's prediction file", _optional(modules("score")), _score,
                load=command == "score")
    _add_family(sub, "rescore", "re-score a published benchmark file", _optional(modules("rescore")), _delegate,
                load=command == "rescore")
    _add_family(sub, "export", "write a run's results as benchmark predictions, an Inspect AI log (inspect) or "
                "Every Eval Ever records (eee)", {**_optional(modules("export")), **EXPORT_FORMATS}, _export,
                load=command == "export")
    _add_family(sub, "registry", "build a benchmark's registry from its official source",
                _optional(modules("registry")), _delegate, load=command == "registry")

    serve = sub.add_parser("serve-decision", help="serve a local decision model (System One) on 127.0.0.1")
    if command == "serve-decision":  # its HTTP modules are imported only when it is used
        from auditpacks.runner.systemone import serve_decision

        serve_decision.add_arguments(serve)
        serve.set_defaults(handler=serve_decision.main)
    return parser


def _build(args) -> int:
    from auditpacks.packs.pack import replacing

    with replacing(args.force):
        out = args.module.build(args)
    print(f"wrote {out}")
    return 0


def _check(args) -> int:
    checker = PackChecker()

    def add(index: int, scenario: dict) -> None:
        checker.add(scenario)

    pack = scan(args.pack, add)  # streamed: the pack is never held whole; its sha256 checked at the end
    findings = checker.finish()
    errors = sum(f.level == ERROR for f in findings)
    warns = sum(f.level == "WARN" for f in findings)
    if args.json:
        print(json.dumps({"pack": args.pack.name, "scenarios": len(pack), "errors": errors,
                          "warnings": warns, "manifest_verified": pack.manifest is not None,
                          "findings": [dataclasses.asdict(f) for f in findings
                                       if not (args.quiet and f.level == "INFO")]}, indent=2, ensure_ascii=False))
        return 1 if errors else 0
    for finding in findings:
        if not (args.quiet and finding.level == "INFO"):
            print(finding)
    print(f"{args.pack.name}: {len(pack)} scenarios, {errors} errors, {warns} warnings"
          + ("" if pack.manifest is None else ", manifest verified"))
    return 1 if errors else 0


def _run(args) -> int:
    from auditpacks.runner.cli.run_command import run_command

    return run_command(args)


def _merge(args) -> int:
    from auditpacks.runner.run.merge import merge

    with contextlib.redirect_stdout(sys.stderr):
        record = merge(args.shards, args.out, pack=args.pack, model=args.model)
    print(f"merged shards {', '.join(record.merged_from['shards'])} into {args.out}", file=sys.stderr)
    from auditpacks.runner.cli.run_command import print_viewer, report_run

    code = report_run(record, args.json)
    print_viewer(Path(args.out))
    return code


def _score(args) -> int:
    """A benchmark's scorer; with ``--json`` its scores file goes to stdout and its table to stderr."""
    if not args.json:
        return _delegate(args)
    with tempfile.TemporaryDirectory() as tmp:
        wanted, args.out = args.out, Path(tmp) / "scores.json"
        with contextlib.redirect_stdout(sys.stderr):
            code = _delegate(args)
        if code == 0:
            text = args.out.read_text(encoding="utf-8")
            if wanted is not None:
                atomic_write_text(wanted, text)
            sys.stdout.write(text if text.endswith("\n") else text + "\n")
    return code


def _export(args) -> int:
    if args.benchmark in EXPORT_FORMATS:
        return _delegate(args)
    from auditpacks.judges.run_reader import check_benchmark

    check_benchmark(args.results, args.benchmark)
    return _delegate(args)


def _delegate(args) -> int:
    return int(args.module.main(args) or 0)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    try:
        parser = build_parser(next((a for a in argv if not a.startswith("-")), None))
    except UserError as exc:  # the installed benchmarks cannot be read (two of one name)
        return fail(exc, EXIT_BAD_INPUT)
    args = parser.parse_args(argv)
    redaction.register(getattr(args, "api_key", None))  # blanked out of everything printed from here on
    for value in vars(args).values():  # URL credentials (--base-url http://user:pw@host, ...) too
        for item in value if isinstance(value, (list, tuple)) else (value,):
            redaction.register_url(item)
    previous = _interrupt_on_sigterm()
    try:
        return args.handler(args)
    except USER_ERRORS as exc:
        return fail(exc, EXIT_BAD_INPUT)
    except KeyboardInterrupt:
        print("auditpacks: interrupted; nothing half-written is left, and a run's finished scenarios are kept "
              "in its journal", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Exception as exc:  # noqa: BLE001 - a bug still ends in one line, never a traceback
        print(redact(f"{PREFIX} unexpected {type(exc).__name__}: {first_line(exc)} "
                     "(set AUDITPACKS_TRACEBACK=1 to see where)"), file=sys.stderr)
        if os.environ.get("AUDITPACKS_TRACEBACK") == "1":
            raise
        return 1
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _interrupt_on_sigterm():
    """SIGTERM (``timeout``, ``kill``) ends a command like Ctrl-C does, so its clean-up runs; the old handler."""
    if threading.current_thread() is not threading.main_thread():
        return None

    def interrupt(signum, frame):
        raise KeyboardInterrupt

    return signal.signal(signal.SIGTERM, interrupt)


if __name__ == "__main__":
    sys.exit(main())
