"""A fourth benchmark added to a copy of the source tree: a builder subpackage, a judge subpackage with its
declaration, a codebook section and an entry point in ``pyproject.toml`` (``tests/e2e/toy/``). It builds,
runs on the embedded model, and gets its figures in the summary, its section in the report, its comparison
and its export, with no other file touched. The copy is imported through its own folder layout, beside the
entry-point metadata that installing it would write."""

from __future__ import annotations

import filecmp
import json
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

from tests.support.toy_benchmark import DRIVER, TOY, check_steps

ROOT = Path(__file__).resolve().parents[2]
TREE = ("auditpacks", "packs", "judges", "runner", "codebook.yaml", "pyproject.toml")
GROUP_HEADER = '[project.entry-points."auditpacks.benchmarks"]\n'
TOY_ENTRY = 'toy = "auditpacks.judges.toy.plugin:BENCHMARK"\n'


def copy_with_toy(src: Path) -> None:
    """The source tree, then the toy's four parts and nothing else."""
    for name in TREE:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, src / name, symlinks=True, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(ROOT / name, src / name)
    shutil.copytree(TOY / "packs" / "toy", src / "packs" / "toy")
    shutil.copytree(TOY / "judges" / "toy", src / "judges" / "toy")
    with (src / "codebook.yaml").open("a", encoding="utf-8") as codebook:
        codebook.write((TOY / "codebook.yaml").read_text(encoding="utf-8"))
    project = src / "pyproject.toml"
    text = project.read_text(encoding="utf-8")
    assert text.count(GROUP_HEADER) == 1
    project.write_text(text.replace(GROUP_HEADER, GROUP_HEADER + TOY_ENTRY), encoding="utf-8")


def changed(src: Path) -> set[str]:
    """Files of the copy that are new or differ from the source tree."""
    out = set()
    for path in src.rglob("*"):
        relative = path.relative_to(src)
        if path.is_file() and not path.is_symlink() and "__pycache__" not in relative.parts:
            original = ROOT / relative
            if not original.is_file() or not filecmp.cmp(path, original, shallow=False):
                out.add(relative.as_posix())
    return out


def import_layout(src: Path, site: Path) -> None:
    """``auditpacks`` as pyproject.toml maps the copy's folders into it, as links, and the distribution's
    entry-point metadata as an install writes it (nothing installed)."""
    project = tomllib.loads((src / "pyproject.toml").read_text(encoding="utf-8"))
    mapping = project["tool"]["setuptools"]["package-dir"]
    top = site / "auditpacks"
    top.mkdir(parents=True)
    for entry in (src / mapping["auditpacks"]).iterdir():
        (top / entry.name).symlink_to(entry)
    for package, folder in mapping.items():
        if package != "auditpacks":
            (top / package.removeprefix("auditpacks.")).symlink_to(src / folder, target_is_directory=True)
    meta = site / f"auditpacks-{project['project']['version']}.dist-info"
    meta.mkdir()
    (meta / "METADATA").write_text(f"Metadata-Version: 2.1\nName: auditpacks\nVersion: {project['project']['version']}\n")
    (meta / "entry_points.txt").write_text("".join(
        f"[{group}]\n" + "".join(f"{name} = {value}\n" for name, value in entries.items()) + "\n"
        for group, entries in project["project"]["entry-points"].items()))


def test_a_toy_benchmark_added_as_one_plugin_runs_end_to_end(tmp_path, embedded_model):
    src, site, work = tmp_path / "src", tmp_path / "site", tmp_path / "work"
    copy_with_toy(src)
    assert changed(src) == {"packs/toy/__init__.py", "packs/toy/builder.py", "judges/toy/__init__.py",
                            "judges/toy/grader.py", "judges/toy/report.py", "judges/toy/plugin.py", "codebook.yaml",
                            "pyproject.toml"}
    import_layout(src, site)
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("AUDITPACKS_CODEBOOK", "PYTHONPATH")}
    done = subprocess.run([sys.executable, "-c", DRIVER, embedded_model.base_url], cwd=work, capture_output=True,
                          text=True, timeout=300, env={**env, "PYTHONPATH": str(site)})
    assert done.returncode == 0, done.stderr[-3000:]
    steps = json.loads(done.stdout.strip().splitlines()[-1])
    assert Path(steps["imported"]).parent == site / "auditpacks"
    check_steps(steps, work, done.stderr)
