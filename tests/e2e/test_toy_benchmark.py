"""A fourth benchmark is one plugin: added to a copy of the source tree as a builder subpackage, a judge
subpackage, a codebook section and a registry entry (``tests/e2e/toy/``), it builds, runs on the embedded
model, and gets its figures in the summary, its section in the report, its comparison and its export,
with no other file touched and nothing installed (the copy is imported through its own folder layout)."""

from __future__ import annotations

import filecmp
import json
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TOY = Path(__file__).resolve().parent / "toy"
TREE = ("auditpacks", "packs", "judges", "runner", "codebook.yaml", "pyproject.toml")
ENTRY_AFTER = "BENCHMARKS: dict[str, Benchmark] = {\n"

DRIVER = """
import contextlib, io, json, sys
import auditpacks
from auditpacks.runner.cli.main import main

def call(*argv):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(list(argv))
    return {"code": code, "out": out.getvalue()}

url = sys.argv[1]
steps = {"imported": auditpacks.__file__, "build": call("build", "toy", "--out", "toy.json")}
for name, extra in (("a", []), ("b", ["--temperature", "0.9", "--seed", "7"])):
    steps["run_" + name] = call("run", "--pack", "toy.json", "--target", "smollm2", "--base-url", url,
                                "--limit", "2", "--max-tokens", "12", "--out", "run_" + name, "--quiet", "--json",
                                *extra)
runs = ["run_a/smollm2.run.json", "run_b/smollm2.run.json"]
steps["report"] = call("report", *runs, "--format", "md")
steps["html"] = call("report", *runs, "--out", "report.html")
steps["compare"] = call("compare", *runs, "--json")
steps["export"] = call("export", "toy", "run_a/smollm2.json", "--out", "answers.jsonl")
print(json.dumps(steps))
"""


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
    registry = src / "auditpacks" / "core" / "registry.py"
    text = registry.read_text(encoding="utf-8")
    assert text.count(ENTRY_AFTER) == 1
    registry.write_text(text.replace(ENTRY_AFTER, ENTRY_AFTER + (TOY / "registry_entry.txt").read_text("utf-8")),
                        encoding="utf-8")


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
    """``auditpacks`` as pyproject.toml maps the copy's folders into it, as links (nothing installed)."""
    mapping = tomllib.loads((src / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["package-dir"]
    top = site / "auditpacks"
    top.mkdir(parents=True)
    for entry in (src / mapping["auditpacks"]).iterdir():
        (top / entry.name).symlink_to(entry)
    for package, folder in mapping.items():
        if package != "auditpacks":
            (top / package.removeprefix("auditpacks.")).symlink_to(src / folder, target_is_directory=True)


def test_a_toy_benchmark_added_as_one_plugin_runs_end_to_end(tmp_path, embedded_model):
    src, site, work = tmp_path / "src", tmp_path / "site", tmp_path / "work"
    copy_with_toy(src)
    assert changed(src) == {"packs/toy/__init__.py", "packs/toy/builder.py", "judges/toy/__init__.py",
                            "judges/toy/grader.py", "judges/toy/report.py", "codebook.yaml",
                            "auditpacks/core/registry.py"}
    import_layout(src, site)
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("AUDITPACKS_CODEBOOK", "PYTHONPATH")}
    done = subprocess.run([sys.executable, "-c", DRIVER, embedded_model.base_url], cwd=work, capture_output=True,
                          text=True, timeout=300, env={**env, "PYTHONPATH": str(site)})
    assert done.returncode == 0, done.stderr[-3000:]
    steps = json.loads(done.stdout.strip().splitlines()[-1])
    assert Path(steps["imported"]).parent == site / "auditpacks"
    names = ("build", "run_a", "run_b", "report", "html", "compare", "export")
    assert {name: steps[name]["code"] for name in names} == dict.fromkeys(names, 0), done.stderr[-3000:]

    results = json.loads((work / "run_a" / "smollm2.json").read_text(encoding="utf-8"))["results"]
    assert [r["scenario_name"] for r in results] == ["sum 2+3", "sum 4+4"]
    summary = json.loads(steps["run_a"]["out"])
    accuracy = next(f for f in summary["figures"] if f["name"] == "toy accuracy")
    assert accuracy["value"] == sum(r["severity"] == "pass" for r in results) / 2
    assert accuracy["interval_name"] == "95% Wilson interval"

    report = steps["report"]["out"]
    assert "| temperature 0.9 · seed 7 | toy accuracy |" in report and "toy sums, judge sum, 2 scenarios" in report
    assert "| Sum | Answer | Right |" in report and "| sum 2+3 |" in report
    html = (work / "report.html").read_text(encoding="utf-8")
    assert "<h3>Toy sums</h3>" in html and html.count('<svg') == 2  # one plot per run

    (comparison,) = json.loads(steps["compare"]["out"])
    assert comparison["benchmark"] == "toy" and comparison["method"] == "paired bootstrap over questions"
    assert [f["figure"] for f in comparison["figures"]] == ["toy accuracy"] and comparison["paired"] == 2

    answers = (work / "answers.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["name"] for line in answers] == ["sum 2+3", "sum 4+4"]
