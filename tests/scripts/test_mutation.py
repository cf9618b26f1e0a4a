"""The mutation script's verdict per module: killed and timed-out mutants over all mutants less the listed
equivalents, and the mutants no test runs, less the listed ones."""

from __future__ import annotations

import importlib.util

import pytest

from tests.support.paths import ROOT

spec = importlib.util.spec_from_file_location("mutation_script", ROOT / "scripts" / "mutation.py")
mutation = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mutation)

FOUND = {"m.x_a__mutmut_1": "killed", "m.x_a__mutmut_2": "timeout", "m.x_a__mutmut_3": "survived",
         "m.x_a__mutmut_4": "survived", "m.x_b__mutmut_1": "no tests", "m.x_b__mutmut_2": "no tests"}


def test_the_score_leaves_out_the_listed_equivalents_that_survive():
    assert mutation.score(FOUND, set()) == (2, 0, 100.0 * 2 / 6)
    assert mutation.score(FOUND, {"m.x_a__mutmut_3", "m.x_a__mutmut_1"}) == (2, 1, 100.0 * 2 / 5)
    assert mutation.score({}, set()) == (0, 0, 100.0)
    assert mutation.score({"m.x__mutmut_1": "survived"}, {"m.x__mutmut_1"}) == (0, 1, 100.0)


def test_mutants_no_test_runs_fail_a_module_unless_listed_as_equivalent():
    assert mutation.no_tests(FOUND, set()) == ["m.x_b__mutmut_1", "m.x_b__mutmut_2"]
    assert mutation.no_tests(FOUND, {"m.x_b__mutmut_2", "m.x_a__mutmut_3"}) == ["m.x_b__mutmut_1"]


def test_a_run_whose_tests_fail_unmutated_is_an_error_naming_its_log_not_a_score_of_nothing():
    """mutmut leaves every mutant "not checked" when the module's tests fail before any mutant runs."""
    module = "runner/run/run.py"
    unchecked = {"m.x_a__mutmut_1": "not checked", "m.x_a__mutmut_2": "not checked"}
    with pytest.raises(SystemExit) as stopped:
        mutation.checked(module, unchecked)
    assert str(stopped.value) == ("mutmut checked none of the 2 mutants of runner/run/run.py: its tests fail "
                                  "unmutated; see build/mutation/runner-run-run/mutmut.log")
    some = dict(unchecked, **{"m.x_a__mutmut_3": "survived"})
    assert mutation.checked(module, some) is some
    assert mutation.checked(module, {}) == {}


def test_equivalents_listed_while_a_module_runs_count_in_its_score(monkeypatch, tmp_path, capsys):
    """The doc is read after each module's run, so a reason written during a long run is not ignored."""
    doc = tmp_path / "testing.md"
    doc.write_text("", encoding="utf-8")
    monkeypatch.setattr(mutation, "EQUIVALENT_DOC", doc)

    def run_module(module, tests, max_children):
        doc.write_text("- `auditpacks.judges.choice.x_a__mutmut_2` — same value either way.\n", encoding="utf-8")
        return {"auditpacks.judges.choice.x_a__mutmut_1": "killed",
                "auditpacks.judges.choice.x_a__mutmut_2": "survived"}

    monkeypatch.setattr(mutation, "run_module", run_module)
    assert mutation.main(["judges/choice.py", "--no-diffs"]) == 0
    assert "judges/choice.py: 1/2 killed, 1 equivalent: 100.0%" in capsys.readouterr().out


def test_an_equivalent_listed_for_a_mutant_that_no_longer_exists_fails_the_module(monkeypatch, tmp_path, capsys):
    """Changed code renumbers its mutants: a listed name that matches none is reported (and only this module's)."""
    doc = tmp_path / "testing.md"
    doc.write_text("- `auditpacks.judges.choice.x_a__mutmut_9` — gone.\n"
                   "- `auditpacks.judges.choice_match.x_a__mutmut_9` — another module's.\n"
                   "- `auditpacks.judges.choice.x_a__mutmut_2` — still there.\n", encoding="utf-8")
    monkeypatch.setattr(mutation, "EQUIVALENT_DOC", doc)
    monkeypatch.setattr(mutation, "run_module", lambda module, tests, max_children: {
        "auditpacks.judges.choice.x_a__mutmut_1": "killed", "auditpacks.judges.choice.x_a__mutmut_2": "survived"})
    assert mutation.main(["judges/choice.py", "--no-diffs"]) == 1
    out = capsys.readouterr().out
    assert "judges/choice.py: 1/2 killed, 1 equivalent: 100.0%; 1 listed equivalents name no mutant" in out
    assert "but no such mutant: auditpacks.judges.choice.x_a__mutmut_9" in out and "choice_match" not in out


def test_equivalents_naming_a_function_or_module_that_is_gone_are_found_without_a_run(tmp_path):
    (tmp_path / "judges").mkdir()
    (tmp_path / "judges" / "toy.py").write_text(
        "def f():\n    pass\n\n\nclass C:\n    def m(self):\n        pass\n\n    async def a(self):\n        pass\n",
        encoding="utf-8")
    kept = {"auditpacks.judges.toy.x_f__mutmut_1", "auditpacks.judges.toy.x\u01c1C\u01c1m__mutmut_2",
            "auditpacks.judges.toy.x\u01c1C\u01c1a__mutmut_1"}
    gone = {"auditpacks.judges.toy.x_g__mutmut_1", "auditpacks.judges.toy.x\u01c1D\u01c1m__mutmut_1",
            "auditpacks.judges.toy.x_m__mutmut_1", "auditpacks.judges.moved.x_f__mutmut_1"}
    assert mutation.functions("judges/toy.py", tmp_path) == {"x_f", "x\u01c1C\u01c1m", "x\u01c1C\u01c1a"}
    assert mutation.orphan_equivalents(["judges/toy.py"], kept | gone, tmp_path) == [
        "auditpacks.judges.moved.x_f__mutmut_1: listed as equivalent, but no mapped module has it",
        "auditpacks.judges.toy.x_g__mutmut_1: listed as equivalent, but judges/toy.py has no such function",
        "auditpacks.judges.toy.x_m__mutmut_1: listed as equivalent, but judges/toy.py has no such function",
        "auditpacks.judges.toy.x\u01c1D\u01c1m__mutmut_1: listed as equivalent, but judges/toy.py has no such function"]
    assert mutation.orphan_equivalents(["judges/toy.py"], kept, tmp_path) == []


def test_every_listed_equivalent_names_a_function_its_module_still_has():
    assert mutation.orphan_equivalents(mutation.modules(), mutation.equivalent()) == []
