"""The mutation script's verdict per module: killed and timed-out mutants over all mutants less the listed
equivalents, and the mutants no test runs, less the listed ones."""

from __future__ import annotations

import importlib.util

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
