"""The tool condition a run ran under: kept in the run record, read back typed, bad fields in one line."""

from __future__ import annotations

import json

import pytest

from auditpacks.core.condition import Condition
from auditpacks.core.errors import FormatError
from auditpacks.core.runs.record import RunRecord
from tests.core.runs.test_record_roundtrip import record

CONDITION = Condition(name="Designed Tools Only", tools={"lookup_case": "get_case"}, search="bm25 (lexical)",
                      cutoff_policy="strictly before the decision date",
                      snapshots={"1986-06-27": "1986-06-27_0123456789abcdef"})


def test_a_condition_survives_the_run_record_round_trip(tmp_path):
    path = tmp_path / "m.run.json"
    record(condition=CONDITION).save(path)
    data = json.loads(path.read_text())
    assert data["condition"] == {"name": "Designed Tools Only", "tools": {"lookup_case": "get_case"},
                                 "search": "bm25 (lexical)", "cutoff_policy": "strictly before the decision date",
                                 "snapshots": {"1986-06-27": "1986-06-27_0123456789abcdef"}}
    assert RunRecord.load(path).condition == CONDITION


def test_a_run_without_tools_has_no_condition_key(tmp_path):
    path = tmp_path / "m.run.json"
    record().save(path)
    assert "condition" not in json.loads(path.read_text()) and RunRecord.load(path).condition is None


@pytest.mark.parametrize("bad, field", [({"tools": {}}, "with a name"),
                                        ({"name": "c", "tools": ["a"]}, "condition.tools"),
                                        ({"name": "c", "snapshots": {"d": 1}}, "condition.snapshots"),
                                        ({"name": "c", "search": 3}, "condition.search"),
                                        ({"name": "c", "cutoff_policy": ["before"]}, "condition.cutoff_policy"),
                                        ({"name": "", "tools": {}}, "with a name"),
                                        ("Designed Tools Only", "with a name")])
def test_a_bad_condition_is_one_line_naming_the_field(tmp_path, bad, field):
    path = tmp_path / "m.run.json"
    record().save(path)
    path.write_text(json.dumps({**json.loads(path.read_text()), "condition": bad}))
    with pytest.raises(FormatError, match=field) as caught:
        RunRecord.load(path)
    assert str(caught.value).startswith("m.run.json: field condition")


def test_a_condition_with_only_a_name_has_no_tools_search_policy_or_snapshots():
    read = Condition.from_dict({"name": "No Tools"}, "m.run.json")
    assert read == Condition(name="No Tools", tools={}, search=None, cutoff_policy=None, snapshots={})
    assert read.tools == {} and read.snapshots == {}
