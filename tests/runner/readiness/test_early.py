"""Every refusal a run can make without a model library comes before simpleaudit, any-llm, openai or
anthropic is imported (checked in a fresh interpreter, through sys.modules)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

from tests.support.paths import ROOT
from tests.support.tiny_pack import write_pack

HEAVY = ("simpleaudit", "any_llm", "openai", "anthropic")


def refusals(tmp_path) -> list[tuple[list[str], str]]:
    pack = write_pack(tmp_path / "tiny.json", 2)
    (tmp_path / "bad.json").write_text("[{", encoding="utf-8")
    return [(["--pack", "missing.json"], "missing.json: no such pack file"),
            (["--pack", "bad.json"], "bad.json"),
            (["--pack", str(pack), "--shard", "3/2"], "--shard '3/2': shards are numbered 1..n (got 3 of 2)"),
            (["--pack", str(pack), "--judge", "nope"], "unknown judge 'nope'"),
            (["--pack", str(pack), "--target", "gpt-4o-mini"],
             "provider 'openai' needs a key: --api-key or $OPENAI_API_KEY"),
            (["--pack", str(pack), "--limit", "0"], "--limit must be at least 1, got 0"),
            (["--pack", str(pack), "--decision", "ollama"], "--decision needs --target")]


def test_refusals_import_no_model_library(tmp_path):
    cases = refusals(tmp_path)
    script = textwrap.dedent(f"""
        import contextlib, io, json, sys
        from auditpacks.runner.cli.main import main
        out = []
        for argv, _ in {cases!r}:
            err = io.StringIO()
            with contextlib.redirect_stderr(err):
                code = main(["run", *argv])
            out.append([code, err.getvalue()])
        print(json.dumps({{"runs": out, "heavy": [m for m in {HEAVY!r} if m in sys.modules]}}))
    """)
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env["PYTHONPATH"] = str(ROOT)
    done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    for (argv, expected), (code, err) in zip(cases, result["runs"]):
        assert code == 2 and expected in err and len(err.strip().splitlines()) == 1, (argv, err)
    assert result["heavy"] == []
