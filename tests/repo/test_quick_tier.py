"""The quick tier covers what it promises: a quick test file for every grader, statistic and reader module, the
runner's models and its execution core, and no test that needs the model."""

from __future__ import annotations

import importlib
import sys

from tests.conftest import NOT_QUICK, QUICK, in_tier
from tests.support.paths import ROOT

sys.path.insert(0, str(ROOT / "scripts"))
mutation_map = importlib.import_module("mutation_map")

#: The runner's execution core by module name (found wherever the module lies under runner/).
EXECUTION_CORE = ("journal", "selection", "shard", "schedule", "results_file", "results_reader", "results_split",
                  "plan", "reconcile", "merge", "cache", "retry")


def quick(path: str) -> bool:
    return in_tier(path, QUICK) and not in_tier(path, NOT_QUICK)


def promised() -> list[str]:
    """Graders and statistics (judges), the core helpers but start-up hygiene (``simpleaudit_decision``), readers,
    the runner's models and execution core."""
    def wanted(m: str) -> bool:
        name = m.rsplit("/", 1)[-1][:-3]
        return (m.startswith(("judges/", "runner/models/")) or m.startswith("auditpacks/core/") and name != "simpleaudit_decision"
                or m.startswith("runner/") and name in EXECUTION_CORE
                or "reader" in name or m in ("packs/pack.py", "packs/checks.py"))
    return [m for m in mutation_map.modules() if wanted(m)]


def test_every_promised_module_with_tests_has_a_quick_one():
    missing = [m for m in promised() if mutation_map.tests_for(m) and not any(map(quick, mutation_map.tests_for(m)))]
    assert missing == []


def test_the_execution_core_is_found_and_in_the_tier():
    found = {m.rsplit("/", 1)[-1][:-3] for m in promised() if m.startswith("runner/")}
    assert found >= {"journal", "selection", "shard", "schedule", "results_file", "plan", "reconcile"}


def test_every_tier_path_exists():
    assert [p for p in QUICK + NOT_QUICK if not (ROOT / p).exists()] == []
