"""The exports' shared fixtures: four runs on the test doubles (made once), and the Every Eval Ever wheel, for its
schemas (never copied into the repository): from the folder the test command downloads it into, or, under a bare
``pytest``, fetched once into pytest's cache."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.export_runs import make_runs

#: The every-eval-ever release whose schemas the tests check records against.
EEE_VERSION = "0.3.0"
#: Where the test command (scripts/bootstrap.py) says it put the wheels the tests read.
WHEELS_ENV = "AUDITPACKS_TEST_WHEELS"


@pytest.fixture(scope="session")
def export_runs(tmp_path_factory) -> dict[str, Path]:
    return make_runs(tmp_path_factory.mktemp("export-runs"))


@pytest.fixture(scope="session")
def eee_wheel(request, tmp_path_factory) -> Path:
    """The every-eval-ever wheel (it needs Python 3.12, so it is downloaded, not installed)."""
    pattern = f"every_eval_ever-{EEE_VERSION}-*.whl"
    named = os.environ.get(WHEELS_ENV)
    if named:  # the test command's run: offline, the wheel fetched beforehand
        found = sorted(Path(named).glob(pattern))
        if not found:
            pytest.fail(f"{WHEELS_ENV}={named} holds no {pattern}: `python3 scripts/bootstrap.py test` downloads it "
                        "there", pytrace=False)
        return found[0]
    cache = getattr(request.config, "cache", None)
    folder = Path(cache.mkdir("every-eval-ever")) if cache is not None else tmp_path_factory.mktemp("eee")
    found = sorted(folder.glob(pattern))
    if not found:
        done = subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
                               "--python-version", "3.12", f"every-eval-ever=={EEE_VERSION}", "-d", str(folder)],
                              capture_output=True, text=True, timeout=300)
        found = sorted(folder.glob(pattern))
        if done.returncode != 0 or not found:
            pytest.fail(f"could not download the every-eval-ever wheel: {done.stderr.strip()[-300:]}", pytrace=False)
    return found[0]
