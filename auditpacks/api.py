"""The Python API: build a pack, run it, score and export, each one call with the command line's defaults.

    import auditpacks
    pack = auditpacks.build("jacite", out="jacite.json", limit=20)
    results, record = auditpacks.run(pack, smoke=True)          # the embedded model
    print(results.score, record.summary.headline)

Options are the command's flags with ``_`` for ``-`` (``per_question=1`` is ``--per-question 1``);
an unknown option raises :class:`auditpacks.core.errors.UserError`.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import io
import json
import tempfile
from pathlib import Path
from typing import Any, Callable, NoReturn

from auditpacks.core.errors import UserError
from auditpacks.core.registry import BENCHMARKS, modules


class _Parser(argparse.ArgumentParser):
    """A parser that raises its errors: argparse prints a missing required flag and exits even with
    ``exit_on_error=False``, which would leave only the exit status in the error."""

    def error(self, message: str) -> NoReturn:
        raise argparse.ArgumentError(None, message)


def _namespace(add_arguments: Callable[[argparse.ArgumentParser], None], required: list[str],
               options: dict[str, Any], what: str) -> argparse.Namespace:
    """The flags' defaults (with ``required`` given on the command line), overridden by ``options``."""
    parser = _Parser(prog=what)
    add_arguments(parser)
    try:
        args = parser.parse_args(required)
    except argparse.ArgumentError as exc:
        raise UserError(f"{what}: {exc}") from None
    unknown = sorted(set(options) - set(vars(args)))
    if unknown:
        raise UserError(f"{what}: unknown option {unknown[0]!r}; choose from {', '.join(sorted(vars(args)))}")
    for name, value in options.items():
        setattr(args, name, Path(value) if isinstance(getattr(args, name), Path) else value)
    return args


def _module(role: str, benchmark: str):
    found = modules(role)
    if benchmark not in found:
        raise UserError(f"no {role} for benchmark {benchmark!r}; choose one of {', '.join(sorted(found)) or 'none'}")
    return importlib.import_module(found[benchmark])


def build(benchmark: str, out: str | Path, **options: Any) -> Path:
    """Build ``benchmark``'s pack into ``out`` (PACK.json, its manifest beside it); returns the pack path.
    An existing pack of other content at ``out`` is replaced only with ``force=True``."""
    from auditpacks.packs.pack import replacing

    force = bool(options.pop("force", False))
    module = _module("builder", benchmark)
    required = ["--out", str(out)] + (["--source", str(options.pop("source"))] if "source" in options else [])
    with replacing(force):
        return module.build(_namespace(module.add_arguments, required, options, f"build {benchmark}"))


def run(pack: str | Path, **options: Any):
    """Run ``pack`` (no ``target``: the embedded model) and return ``(AuditResults, RunRecord)`` (round 1's
    results; the record lists every round's file)."""
    from auditpacks.runner.cli.run_args import add_run_arguments, config_from_args
    from auditpacks.runner.store.results_reader import load_audit_results
    from auditpacks.runner.run.run import results_path
    from auditpacks.runner.run.run import run as run_pack

    config = config_from_args(_namespace(add_run_arguments, ["--pack", str(pack)], options, "run"))
    record = run_pack(config)
    return load_audit_results(results_path(config, record)), record


def _command(role: str, benchmark: str, required: list[str], options: dict[str, Any]) -> None:
    module = _module(role, benchmark)
    args = _namespace(module.add_arguments, required, options, f"{role} {benchmark}")
    with contextlib.redirect_stdout(io.StringIO()):
        code = module.main(args)
    if code:
        raise UserError(f"{role} {benchmark}: failed with exit code {code}")


def score(benchmark: str, pred: str | Path, **options: Any) -> dict[str, Any]:
    """Score a prediction file in ``benchmark``'s own format; returns the scores the command writes."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(options.pop("out", Path(tmp) / "scores.json"))
        required = ["--pred", str(pred)] + _flags(options, _required(_module("score", benchmark).add_arguments))
        _command("score", benchmark, required, {"out": out, **options})
        return json.loads(out.read_text(encoding="utf-8"))


def export(benchmark: str, results: str | Path, out: str | Path, **options: Any) -> Path:
    """Write a run's results file in ``benchmark``'s own format to ``out``."""
    _command("export", benchmark, [str(results), "--out", str(out)], options)
    return Path(out)


def _required(add_arguments: Callable[[argparse.ArgumentParser], None]) -> dict[str, str]:
    """A command's required flags: option name (``dest``) → flag."""
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    return {a.dest: a.option_strings[0] for a in parser._actions if a.required and a.option_strings}


def _flags(options: dict[str, Any], required: dict[str, str]) -> list[str]:
    """Required flags taken out of ``options`` (so argparse sees them on the command line)."""
    return [item for name, flag in required.items() if name in options for item in (flag, str(options.pop(name)))]


__all__ = ["BENCHMARKS", "build", "run", "score", "export"]
