"""The distribution as users install it: a wheel (not editable) into a fresh environment, used from elsewhere."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

import pytest

from tests.support.paths import ROOT


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """A fresh venv holding the wheel; its dependencies are this environment's (no network needed)."""
    tmp = tmp_path_factory.mktemp("wheel")
    source = tmp / "source"  # setuptools builds in the source folder: build a copy, never the checkout
    shutil.copytree(ROOT, source, symlinks=True, ignore=shutil.ignore_patterns(
        ".git", ".venv", "results", "build", "dist", "*.egg-info", "__pycache__", ".pytest_cache"))
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", tmp, source],
                   check=True, cwd=tmp)
    wheel = next(tmp.glob("auditpacks-*.whl"))
    env = tmp / "venv"
    venv.EnvBuilder(with_pip=False).create(env)
    python = env / "bin" / "python"
    subprocess.run([sys.executable, "-m", "pip", "--python", python, "install", "-q", "--no-deps", wheel],
                   check=True, cwd=tmp)
    site = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          check=True, capture_output=True, text=True).stdout.strip()
    Path(site, "_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    work = tmp / "elsewhere"
    work.mkdir()
    return wheel, env, work


def test_wheel_holds_one_import_name_and_its_data(installed):
    wheel, _, _ = installed
    names = zipfile.ZipFile(wheel).namelist()
    assert {n.split("/")[0] for n in names} == {"auditpacks", wheel.name.split("-")[0] + "-" + wheel.name.split("-")[1]
                                                + ".dist-info"}
    for needed in ("auditpacks/packs/codebook.yaml", "auditpacks/packs/data/minpo.json",
                   "auditpacks/runner/targets/__init__.py", "auditpacks/runner/serving/embedded_server.py",
                   "auditpacks/runner/reporting/templates/report.html.j2"):
        assert needed in names


def test_installed_wheel_declares_the_three_benchmarks_as_entry_points(installed):
    _, env, work = installed
    probe = ("import json, importlib.metadata as m; print(json.dumps(sorted((e.name, e.value, "
             "str(e.dist.locate_file(''))) for e in m.entry_points(group='auditpacks.benchmarks'))))")
    found = json.loads(subprocess.run([env / "bin" / "python", "-c", probe], check=True, capture_output=True,
                                      text=True, cwd=work).stdout)
    assert [(name, value) for name, value, _ in found] == [
        ("icj", "auditpacks.judges.icj.plugin:BENCHMARK"), ("iustitia", "auditpacks.judges.iustitia.plugin:BENCHMARK"),
        ("jacite", "auditpacks.judges.jacite.plugin:BENCHMARK")]
    assert all(Path(where).is_relative_to(env) for _, _, where in found)  # the wheel's metadata, not this checkout's


@pytest.mark.model
def test_installed_tool_builds_and_runs_from_an_unrelated_folder(installed, embedded_model):
    _, env, work = installed
    tool = env / "bin" / "auditpacks"
    where = subprocess.run([env / "bin" / "python", "-c", "import auditpacks.packs; print(auditpacks.packs.__file__)"],
                           check=True, capture_output=True, text=True, cwd=work).stdout
    assert str(env) in where and str(ROOT) not in where
    subprocess.run([tool, "--version"], check=True, cwd=work)
    subprocess.run([tool, "build", "jacite", "--out", "packs/jacite.json"], check=True, cwd=work)
    done = subprocess.run([tool, "run", "--pack", "packs/jacite.json", "--smoke", "--target", "smollm2", "--base-url",
                           embedded_model.base_url, "--max-tokens", "48", "--quiet", "--out", "results"],
                          capture_output=True, text=True, cwd=work)
    assert done.returncode == 0, done.stderr
    run = json.loads(next((work / "results").rglob("*.run.json")).read_text())
    assert run["summary"]["scenarios"] > 0
    subprocess.run([tool, "report", "results", "--pack", "packs/jacite.json", "--out", "report.html"], check=True,
                   cwd=work)
    assert "<svg" in (work / "report.html").read_text(encoding="utf-8")
    module = subprocess.run([env / "bin" / "python", "-m", "auditpacks", "--version"], capture_output=True, text=True,
                            cwd=work)
    assert module.returncode == 0 and module.stdout.startswith("auditpacks ")
