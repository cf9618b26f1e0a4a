"""Runs written by hand (results file + run record), for tests whose expected figures are worked out on paper."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Mapping

from auditpacks.core.io import sha256_file


def choice_result(scenario: Mapping[str, Any], choice: str | None, *, reply: str | None = None) -> dict[str, Any]:
    """A choice_match result: pass when ``choice`` is accepted, else the designed severity (medium)."""
    accepted = list(scenario["decision"]["accepted"])
    ok = choice in accepted
    severity = "pass" if ok else "medium"
    return {"scenario_name": scenario["name"], "scenario_description": scenario["description"],
            "conversation": [{"role": "user", "content": scenario.get("test_prompt", "")},
                             {"role": "assistant", "content": reply if reply is not None else f"{choice}\nBecause."}],
            "severity": severity, "issues_found": [], "positive_behaviors": [], "recommendations": [],
            "summary": f"Chose {choice!r}; accepted {accepted}.",
            "judgment": {"choice": choice, "choice_source": "text", "accepted": accepted, "correct": ok,
                         "severity": severity, "summary": f"Chose {choice!r}; accepted {accepted}."}}


def error_result(scenario: Mapping[str, Any]) -> dict[str, Any]:
    return {"scenario_name": scenario["name"], "scenario_description": scenario["description"], "conversation": [],
            "severity": "ERROR", "issues_found": [], "positive_behaviors": [], "recommendations": [], "summary": "",
            "judgment": {"severity": "ERROR", "error": "APIStatusError: HTTP 500"}}


def write_run(folder: Path, model: str, pack: Path, judge: str, results: list[dict[str, Any]],
              *later_rounds: list[dict[str, Any]]) -> Path:
    """``<model>.json`` (round 1), ``<model>.round<N>.json`` and ``<model>.run.json`` in ``folder``; returns
    the run record's path."""
    folder.mkdir(parents=True, exist_ok=True)
    names = [f"{model}.json"] + [f"{model}.round{n}.json" for n in range(2, len(later_rounds) + 2)]
    for name, items in zip(names, (results, *later_rounds)):
        (folder / name).write_text(json.dumps({"timestamp": "2026-12-01T00:00:00", "summary": {},
                                               "results": items}, ensure_ascii=False), encoding="utf-8")
    errors = sum(r["severity"] == "ERROR" for r in results)
    record = {"record_version": 1, "model": model, "provider": "openai", "judge": judge,
              "pack": {"name": pack.name, "sha256": sha256_file(pack), "builder": "tests",
                       "scenarios_in_pack": len(results)},
              "fingerprint": model, "parameters": {}, "seed": 0, "repeats": len(names),
              "rounds": [{"round": n, "seed": n - 1, "results": name} for n, name in enumerate(names, 1)],
              "summary": {"scenarios": len(results), "completed": len(results) - errors, "errors": errors}}
    path = folder / f"{model}.run.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    return path


def tiny_choice_run(folder: Path) -> Path:
    """A choice_match run of a 4-scenario tiny pack no benchmark built (``folder/tiny.json``): 2 correct, 1 wrong,
    1 ERROR; its run record's path."""
    from tests.support.tiny_pack import write_pack

    pack = write_pack(folder / "tiny.json", 4)
    scenarios = json.loads(pack.read_text(encoding="utf-8"))
    results = [choice_result(s, s["decision"]["accepted"][0]) for s in scenarios[:2]]
    results += [choice_result(scenarios[2], "nonsense"), error_result(scenarios[3])]
    return write_run(folder / "run", "m", pack, "choice_match", results)


class RunView:
    """A run as a benchmark's report section reads it: rounds of (scenario, result) pairs, each round's headline
    pooled by the reader of ``judge`` runs of a ``builder`` pack, or read from ``recorded`` values (a run record's,
    one mapping per round)."""

    def __init__(self, rounds: list[list[tuple[dict, dict]]], judge: str, builder: Any = None,
                 recorded: list[Mapping[str, Any]] | None = None) -> None:
        from auditpacks.judges.reader import Reader

        self._pairs, self._recorded, self.reader = rounds, recorded, Reader.of(judge, builder)
        self.rounds = [[r for _, r in pairs] for pairs in rounds]

    def pairs(self, round_index: int = 0) -> list[tuple[dict, dict]]:
        return self._pairs[round_index]

    def headline(self, round_index: int = 0):
        if self._recorded is not None:
            return self.reader.read(self._recorded[round_index])
        return self.reader.headline(self._pairs[round_index])
