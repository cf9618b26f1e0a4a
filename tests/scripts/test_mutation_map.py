"""Mutation testing's map is found from the tree: every module, its mirrored tests and a few declared extras;
a table entry that names a file no longer there is reported, and a module moved keeps its tests."""

from __future__ import annotations

import importlib.util
import re
import sys

from tests.support.paths import ROOT

sys.path.insert(0, str(ROOT / "scripts"))
mutation_map = importlib.import_module("mutation_map")
spec = importlib.util.spec_from_file_location("mutation_script", ROOT / "scripts" / "mutation.py")
mutation = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mutation)


def test_every_table_entry_names_an_existing_file():
    assert mutation_map.problems() == []


def test_every_module_is_covered_but_packages_data_and_the_declared_skips():
    found = mutation_map.modules()
    assert "judges/statistics/stats.py" in found and "auditpacks/core/redact.py" in found and "runner/hosted/prices.py" in found
    assert not any(m.endswith("__init__.py") or m.startswith("packs/data/") for m in found)
    assert not set(mutation_map.SKIP) & set(found)


def test_a_modules_tests_are_its_mirrored_files_then_its_extras():
    found = mutation_map.tests_for("judges/statistics/stats.py")
    extras = ["tests/judges/jacite/test_grounding.py", "tests/judges/iustitia/test_agreement.py"]
    assert found[-2:] == extras and {"tests/judges/statistics/test_stats.py",
                                     "tests/judges/statistics/test_stats_references.py"} <= set(found)
    assert all(re.fullmatch(r"tests/judges/statistics/test_stats(_\w+)?\.py", t) for t in found[:-2])
    assert mutation_map.mirror_folder("auditpacks/core/redact.py") == "tests/core"
    assert {"tests/core/test_redact.py", "tests/core/test_redact_urls.py"} <= set(
        mutation_map.mirrored("auditpacks/core/redact.py"))
    assert "tests/runner/run/test_run_resume.py" not in mutation_map.tests_for("runner/run/run.py")
    assert mutation_map.staged_path("judges/statistics/stats.py") == "src/auditpacks/judges/statistics/stats.py"
    assert mutation_map.staged_path("auditpacks/core/redact.py") == "src/auditpacks/core/redact.py"


def test_a_module_moved_into_a_subpackage_finds_its_moved_tests_and_no_near_namesakes(tmp_path):
    for path in ("runner/execution/store/__init__.py", "runner/execution/store/journal.py",
                 "tests/runner/execution/store/test_journal.py", "tests/runner/execution/store/test_journal_edges.py",
                 "tests/runner/execution/store/test_journaling.py", "tests/runner/store/test_journal.py"):
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text("")
    assert mutation_map.modules(tmp_path) == ["runner/execution/store/journal.py"]
    assert mutation_map.tests_for("runner/execution/store/journal.py", tmp_path) == [
        "tests/runner/execution/store/test_journal.py", "tests/runner/execution/store/test_journal_edges.py"]


def test_stale_entries_are_reported(tmp_path, monkeypatch):
    monkeypatch.setattr(mutation_map, "EXTRAS", {"judges/gone.py": ["tests/judges/test_gone.py"]})
    monkeypatch.setattr(mutation_map, "SKIP", {"auditpacks/gone.py": "why"})
    monkeypatch.setattr(mutation_map, "SLOW", {"tests/test_gone.py": "why"})
    monkeypatch.setattr(mutation_map, "BY_PATH", ("runner/gone.py",))
    monkeypatch.setattr(mutation_map, "SLOW_FOR", {"runner/gone.py": {"tests/runner/test_gone.py": "why"},
                                                   "judges/statistics/stats.py": {"tests/judges/test_gone.py": "why"}})
    assert mutation_map.problems() == ["SKIP names auditpacks/gone.py, which does not exist",
                                       "SLOW names tests/test_gone.py, which does not exist",
                                       "BY_PATH names runner/gone.py, which does not exist",
                                       "EXTRAS names judges/gone.py, which does not exist",
                                       "EXTRAS for judges/gone.py names tests/judges/test_gone.py, which does not exist",
                                       "SLOW_FOR names runner/gone.py, which does not exist",
                                       "SLOW_FOR for runner/gone.py names tests/runner/test_gone.py, which does not exist",
                                       "SLOW_FOR for judges/statistics/stats.py names tests/judges/test_gone.py, "
                                       "which does not exist"]


def test_a_modules_slow_tests_are_left_out_of_its_own_runs_only(monkeypatch):
    """A file in SLOW_FOR is not run against that module's mutants, mirrored or extra; other modules keep it."""
    stats_tests = mutation_map.tests_for("judges/statistics/stats.py")
    monkeypatch.setattr(mutation_map, "SLOW_FOR", {"judges/statistics/stats.py": {
        "tests/judges/statistics/test_stats.py": "why", "tests/judges/iustitia/test_agreement.py": "why"}})
    assert mutation_map.tests_for("judges/statistics/stats.py") == [
        t for t in stats_tests if t not in {"tests/judges/statistics/test_stats.py",
                                            "tests/judges/iustitia/test_agreement.py"}]
    assert "tests/judges/iustitia/test_agreement.py" in mutation_map.tests_for("judges/choice.py")


def test_a_script_the_tests_run_by_path_is_staged_there_and_copied_beside_the_mutants(monkeypatch, tmp_path):
    monkeypatch.setattr(mutation, "STAGE", tmp_path)
    stage = mutation.stage_module("runner/run_simpleaudit.py", ["tests/runner/test_run_simpleaudit.py"])
    assert (stage / "runner" / "run_simpleaudit.py").read_bytes() == (ROOT / "runner" / "run_simpleaudit.py").read_bytes()
    assert (stage / "src" / "auditpacks" / "runner" / "run_simpleaudit.py").is_file()
    config = mutation.tomllib.loads((stage / "pyproject.toml").read_text())["tool"]["mutmut"]
    assert "runner/" in config["also_copy"] and sorted((stage / "runner").iterdir()) == [
        stage / "runner" / "run_simpleaudit.py"]   # the folder copied holds the script alone
    assert config["source_paths"] == ["src/auditpacks/runner/run_simpleaudit.py"]


def test_mutants_no_test_runs_count_against_the_score_and_listed_equivalents_do_not():
    found = {"a_1": "killed", "a_2": "timeout", "a_3": "survived", "a_4": "no tests", "a_5": "survived"}
    # killed 2; a_5 is a listed equivalent, so 2 of the 4 others
    assert mutation.score(found, {"a_5"}) == (2, 1, 50.0)
    assert mutation.score({}, set()) == (0, 0, 100.0)


def test_listing_a_module_without_tests_exits_1(capsys, monkeypatch):
    assert mutation.list_modules(["judges/statistics/stats.py"]) == 0
    assert "tests/judges/statistics/test_stats.py" in capsys.readouterr().out
    monkeypatch.setattr(mutation, "tests_for", lambda module: [])
    assert mutation.list_modules(["judges/statistics/stats.py"]) == 1
    assert "judges/statistics/stats.py: NO TESTS" in capsys.readouterr().out
