"""The Iustitia scorer's command-line options, defaults and help, word for word."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from auditpacks.judges.iustitia.agreement import add_arguments


def _parser():
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    return parser


def test_options_defaults_and_help():
    args = _parser().parse_args(["--pred", "p.jsonl", "--source", "src"])
    assert (args.pred, args.source, args.track, args.out, args.seed, args.bootstrap) == \
        (Path("p.jsonl"), "src", "full", None, 0, 2000)
    args = _parser().parse_args(["--pred", "p", "--source", "s", "--track", "le26", "--out", "o.json", "--seed", "3",
                                 "--bootstrap", "50"])
    assert (args.track, args.out, args.seed, args.bootstrap) == ("le26", Path("o.json"), 3, 50)
    for argv in (["--source", "s"], ["--pred", "p"], ["--pred", "p", "--source", "s", "--track", "all"]):
        with pytest.raises(SystemExit):
            _parser().parse_args(argv)
    helps = {a.option_strings[0]: (a.help, a.metavar) for a in _parser()._actions if a.option_strings[0] != "-h"}
    assert helps == {
        "--pred": ('predictions.jsonl: {"task_id", "choice"} per line', None),
        "--source": ("local copy (hf download layout) or hf:Kushtrim/iustitia-marigonae", None),
        "--track": (None, None),
        "--out": ("write the scores as JSON", None),
        "--seed": ("bootstrap seed (default 0)", None),
        "--bootstrap": ("bootstrap replicates (default 2000)", "B"),
    }
