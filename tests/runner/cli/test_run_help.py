"""``auditpacks run --help``: a one-line usage, examples, help for every flag, and no docstring markup anywhere."""

from __future__ import annotations

import argparse
import re
import subprocess
import sys

from auditpacks.core.arg_types import plain
from auditpacks.runner.cli.main import build_parser
from tests.support.paths import ROOT

MARKUP = re.compile(r"``|:(func|class|mod|meth):`")


def run_parser() -> argparse.ArgumentParser:
    sub = next(a for a in build_parser("run")._actions if isinstance(a, argparse._SubParsersAction))
    return sub.choices["run"]


def test_every_run_flag_has_help_and_the_help_has_examples(monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")
    parser = run_parser()
    assert [a.option_strings for a in parser._actions if not a.help] == []
    text = parser.format_help()
    assert text.splitlines()[0] == "usage: auditpacks run --pack PACK.json [--target MODEL [--provider P | " \
        "--base-url URL]] [options]"
    assert "examples:\n  auditpacks run --pack PACK.json --smoke" in text
    assert len(text.splitlines()) < 169 and not MARKUP.search(text)


def test_no_help_shows_docstring_markup():
    assert plain("The ``auditpacks`` command; see :func:`~auditpacks.runner.run.run.run`.") == \
        "The auditpacks command; see run."
    assert not MARKUP.search(build_parser().format_help())
    for family in ("build", "score", "export"):
        sub = next(a for a in build_parser(family)._actions if isinstance(a, argparse._SubParsersAction))
        assert not MARKUP.search(sub.choices[family].format_help())
    done = subprocess.run([sys.executable, str(ROOT / "runner" / "run_simpleaudit.py"), "--help"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and not MARKUP.search(done.stdout)
