"""The run-time guard: later identifiers and dates anywhere in a result are refused."""

from __future__ import annotations

from datetime import date

import pytest

from auditpacks.packs.icj.tools.guard import Guard, LeakError

GUARD = Guard("1986-06-27", {"ICJ_X_1990", "A/RES/ES-10/14"})


@pytest.mark.parametrize("result", [
    {"rows": [["ICJ_X_1990"]]}, {"resolution": {"symbol": "A/RES/ES-10/14"}}, {"date": "1986-06-27"},
    {"rows": [[date(1990, 1, 1)]]}, {"rows": [["1999-01-01"]]}, {"source_dates": ["1950-01-01", "2001-02-03"]},
    {"judge": {"term_start": "1994"}}, {"x": {"first_date": "1986-06-27T00:00:00"}}])
def test_later_things_are_refused(result):
    with pytest.raises(LeakError, match="leak refused"):
        GUARD.check(result)


@pytest.mark.parametrize("result", [
    {"date": "1986-06-26"}, {"text": "The Court fixed 1990-01-01 as a time-limit in its text."},
    {"rows": [["ICJ_X_1990 is mentioned in passing"]]}, {"cases": [{"case_id": "070"}]}, {"date": None}])
def test_earlier_things_and_free_text_pass(result):
    assert GUARD.check(result) is result
