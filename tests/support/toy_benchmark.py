"""The toy benchmark's end-to-end steps (``tests/e2e/toy/``): one interpreter builds its pack, runs it twice on
the embedded model, reports, compares and exports; :func:`check_steps` holds what each step must give."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.paths import ROOT

TOY = ROOT / "tests" / "e2e" / "toy"
#: The toy's plugin modules, as its own package would hold them.
PLUGIN_FILES = {"plugin.py": TOY / "judges" / "toy" / "plugin.py", "grader.py": TOY / "judges" / "toy" / "grader.py",
                "report.py": TOY / "judges" / "toy" / "report.py", "builder.py": TOY / "packs" / "toy" / "builder.py"}

#: Run with ``python -c DRIVER BASE_URL`` in an empty folder; prints one JSON line of the steps' exit codes and output.
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
steps = {"imported": auditpacks.__file__, "list": call("list", ".", "--json"),
         "build": call("build", "toy", "--out", "toy.json")}
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

STEPS = ("list", "build", "run_a", "run_b", "report", "html", "compare", "export")


def check_steps(steps: dict, work: Path, stderr: str) -> None:
    """Every step succeeded, and the toy's figures, report section, comparison and export are its own."""
    assert {name: steps[name]["code"] for name in STEPS} == dict.fromkeys(STEPS, 0), stderr[-3000:]
    listing = json.loads(steps["list"]["out"])
    assert {"name": "toy", "title": "toy sums"} in listing["benchmarks"] and "plugins_not_loaded" not in listing

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
