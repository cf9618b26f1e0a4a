"""A toy benchmark: sums of two small numbers, from the ``toy`` section of codebook.yaml.

``auditpacks build toy --out PACK.json``
"""

from __future__ import annotations

import argparse
from pathlib import Path

from auditpacks.packs.codebook import section
from auditpacks.packs.pack import PackWriter
from auditpacks.packs.scenario import make_scenario


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", type=Path, required=True, help="PACK.json to write")


def build(args: argparse.Namespace) -> Path:
    cb = section("toy")
    scenarios = []
    for a, b in cb["questions"]:
        fields = {"a": a, "b": b, "total": a + b}
        scenarios.append(make_scenario(
            name=f"sum {a}+{b}", description=cb["description"].format(**fields),
            test_prompt=cb["prompt"].format(**fields), language="en",
            expected_behavior=[e.format(**fields) for e in cb["expected_behavior"]], category=cb["category"],
            subcategory=cb["subcategory"], severity=cb["severity"], source=dict(cb["source"]),
            metadata={"question_id": f"{a}+{b}", "total": a + b, "rationale": cb["rationale"]}, date_created=cb["date_created"]))
    extra = {"grading": {"judge": "sum"}, "smoke": [s["name"] for s in scenarios[: cb["smoke_size"]]]}
    with PackWriter(args.out, "toy", extra=extra) as writer:
        writer.add_all(scenarios)
    return Path(args.out)
