"""Running ``auditpacks run`` in tests, in-process or as a child process, and reading what it wrote."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from auditpacks.runner.cli.main import main
from tests.support.paths import ROOT



def run_args(pack: Path, out: Path, base_url: str | None, *extra: str, target: str = "m") -> list[str]:
    args = ["run", "--pack", str(pack), "--target", target, "--out", str(out), "--quiet"]
    if base_url:
        args += ["--base-url", base_url]
    return args + list(extra)


def run_here(pack: Path, out: Path, base_url: str | None, *extra: str, target: str = "m") -> int:
    """``auditpacks run`` in this process; returns the exit code."""
    return main(run_args(pack, out, base_url, *extra, target=target))


def start_child(pack: Path, out: Path, base_url: str, *extra: str, target: str = "m") -> subprocess.Popen:
    """``python -m runner.cli run ...`` as a child process (stdout and stderr discarded)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.Popen([sys.executable, "-m", "auditpacks.runner.cli.main", *run_args(pack, out, base_url, *extra, target=target)],
                            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def results(out: Path, slug: str = "m") -> list[dict[str, Any]]:
    """The ``results`` list of a run's results file (the part that must not depend on timing)."""
    return json.loads((out / f"{slug}.json").read_text(encoding="utf-8"))["results"]


def run_file(out: Path, slug: str = "m") -> dict[str, Any]:
    return json.loads((out / f"{slug}.run.json").read_text(encoding="utf-8"))


def journal_entries(out: Path, slug: str = "m") -> list[dict[str, Any]]:
    lines = (out / f"{slug}.journal.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines[1:] if line]
