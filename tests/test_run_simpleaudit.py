"""``runner/run_simpleaudit.py``: the benchmark cards' runner, as a plain script."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from auditpacks.runner.cli.main import main

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "runner" / "run_simpleaudit.py"


def script(*argv: str, cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *argv], cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, timeout=600)


def test_without_a_pack_and_offline_it_says_what_to_do(tmp_path):
    done = script("--smoke", "--target", "gpt-4o-mini", cwd=tmp_path,
                  env={"HF_HUB_OFFLINE": "1", "HF_HOME": str(tmp_path / "hf")})
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "hf:Kushtrim/iustitia-marigonae" in lines[0]
    assert "hf auth login" in lines[0] and "--pack" in lines[0]
    assert not (tmp_path / "results").exists()


@pytest.mark.model
def test_smoke_on_a_local_pack_writes_results_like_the_card(tmp_path, embedded_model):
    pack = tmp_path / "jacite.json"
    assert main(["build", "jacite", "--out", str(pack)]) == 0
    done = script("--smoke", "--pack", str(pack), "--target", "smollm2", "--base-url", embedded_model.base_url,
                  "--api-key", "local", "--max-tokens", "16", "--quiet", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "judge grounding" in done.stdout
    saved = json.loads((tmp_path / "results" / "jacite" / "smollm2.json").read_text())
    assert len(saved["results"]) == 3
