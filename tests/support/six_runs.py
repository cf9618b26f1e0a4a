"""Six hand-written runs of two tiny packs that differ in model, temperature and seed, for the report's labels."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.hand_runs import choice_result, error_result, write_run
from tests.support.tiny_pack import write_pack

#: folder → (pack, model, temperature, seed, how many of the 4 scenarios are correct, errors)
RUNS = {"run1": ("alpha", "m", 0.0, 0, 3, 0), "run2": ("alpha", "m", 0.7, 0, 2, 0),
        "run3": ("alpha", "m", 0.0, 3, 4, 0), "run4": ("beta", "m", 0.0, 0, 1, 0),
        "run5": ("beta", "n", 0.0, 0, 2, 0), "run6": ("beta", "m", 0.0, 0, 2, 1)}


def write_six_runs(root: Path) -> list[Path]:
    """The packs ``alpha.json`` and ``beta.json`` (4 scenarios each) and six runs under ``root``; their records."""
    packs = {"alpha": write_pack(root / "alpha.json", 4), "beta": write_pack(root / "beta.json", 4, documents=True)}
    paths = []
    for folder, (pack, model, temperature, seed, correct, errors) in RUNS.items():
        scenarios = json.loads(packs[pack].read_text(encoding="utf-8"))
        results = []
        for i, s in enumerate(scenarios):
            if i >= len(scenarios) - errors:
                results.append(error_result(s))
            else:
                accepted = s["decision"]["accepted"][0]
                other = next(o for o in s["decision"]["criteria"] if o not in s["decision"]["accepted"])
                results.append(choice_result(s, accepted if i < correct else other))
        path = write_run(root / "results" / folder, model, packs[pack], "choice_match", results)
        record = json.loads(path.read_text(encoding="utf-8"))
        record.update(seed=seed, parameters={"temperature": temperature, "max_turns": 1},
                      started=f"2026-12-0{folder[-1]}")
        path.write_text(json.dumps(record), encoding="utf-8")
        paths.append(path)
    return paths
