"""A benchmark that lives outside this repository: the toy (``tests/e2e/toy/``) as its own small
distribution in a temporary folder, its modules under its own package and its codebook section as
package data. Installed offline into a fresh environment that sees auditpacks, it is listed, built,
run on the embedded model, reported, compared and exported, and no file of the repository changes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

from tests.support.paths import ROOT
from tests.support.toy_benchmark import DRIVER, PLUGIN_FILES, TOY, check_steps

PYPROJECT = """[build-system]
requires = ["setuptools>=68"]
build-backend = "setuptools.build_meta"

[project]
name = "toysums"
version = "0.1.0"
dependencies = ["auditpacks"]

[project.entry-points."auditpacks.benchmarks"]
toy = "toysums.plugin:BENCHMARK"

[tool.setuptools]
packages = ["toysums"]

[tool.setuptools.package-data]
toysums = ["codebook.yaml"]
"""

#: The in-tree toy's module names → the distribution's.
RENAMES = {"auditpacks.packs.toy.": "toysums.", "auditpacks.judges.toy.": "toysums.",
           "auditpacks.packs.codebook": "toysums.codebook"}

CODEBOOK = '''"""The toy's codebook section, shipped inside the package."""

from pathlib import Path

import yaml


def section(name: str) -> dict:
    return yaml.safe_load((Path(__file__).parent / "codebook.yaml").read_text(encoding="utf-8"))[name]
'''


def write_distribution(folder: Path) -> None:
    """The toy's plugin modules under ``toysums``: the same code, its own package names and codebook."""
    package = folder / "toysums"
    package.mkdir(parents=True)
    (folder / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    (package / "__init__.py").write_text('"""Sums of two small numbers, an auditpacks benchmark."""\n')
    (package / "codebook.py").write_text(CODEBOOK, encoding="utf-8")
    (package / "codebook.yaml").write_text((TOY / "codebook.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    for name, source in PLUGIN_FILES.items():
        text = source.read_text(encoding="utf-8")
        for inside, outside in RENAMES.items():
            text = text.replace(inside, outside)
        (package / name).write_text(text, encoding="utf-8")


def fresh_environment(folder: Path, wheel: Path) -> Path:
    """A venv that sees this environment's packages (auditpacks among them) and holds the toy's wheel."""
    venv.EnvBuilder(with_pip=False).create(folder)
    python = folder / "bin" / "python"
    site = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          check=True, capture_output=True, text=True).stdout.strip()
    Path(site, "_auditpacks.pth").write_text(f"import site; site.addsitedir({sysconfig.get_paths()['purelib']!r})\n")
    subprocess.run([sys.executable, "-m", "pip", "--python", python, "install", "-q", "--no-index", "--no-deps", wheel],
                   check=True)
    return python


def repository_state() -> str:
    return subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=ROOT, check=True,
                          capture_output=True, text=True).stdout


def test_a_benchmark_installed_as_its_own_distribution_runs_end_to_end(tmp_path, embedded_model):
    before = repository_state()
    dist, work = tmp_path / "toysums", tmp_path / "work"
    write_distribution(dist)
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-index", "--no-deps", "--no-build-isolation",
                    "-w", tmp_path / "wheels", dist], check=True, cwd=tmp_path)
    python = fresh_environment(tmp_path / "venv", next((tmp_path / "wheels").glob("toysums-*.whl")))
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("AUDITPACKS_CODEBOOK", "PYTHONPATH")}
    where = subprocess.run([python, "-c", "import toysums; print(toysums.__file__)"], cwd=work, env=env, check=True,
                           capture_output=True, text=True).stdout.strip()
    assert Path(where).is_relative_to(tmp_path / "venv")
    done = subprocess.run([python, "-c", DRIVER, embedded_model.base_url], cwd=work, capture_output=True, text=True,
                          timeout=300, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    steps = json.loads(done.stdout.strip().splitlines()[-1])
    assert Path(steps["imported"]).is_relative_to(ROOT)  # this repository's auditpacks, unchanged
    check_steps(steps, work, done.stderr)
    assert [b["name"] for b in json.loads(steps["list"]["out"])["benchmarks"]] == ["icj", "iustitia", "jacite", "toy"]
    assert repository_state() == before
