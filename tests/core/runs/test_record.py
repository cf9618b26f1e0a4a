"""The run record's shard block, checked when the record is read: one line naming the file, the block and the field."""

from __future__ import annotations

import pytest

from auditpacks.core.runs.record import PackRef, RecordError, Round, RunRecord

SHARD = {"spec": "2/3", "index": 2, "count": 3, "split_by": "document", "selected": 9, "selection_sha256": "s",
         "positions": [1, 4, 7]}


def record_with(shard) -> dict:
    return RunRecord(model="m", provider="openai", judge="choice_match", pack=PackRef(name="p.json", sha256="0" * 64),
                     fingerprint="f", shard=shard, rounds=[Round(round=1, seed=0, results="m.json")]).to_dict()


def test_a_shard_block_is_kept_as_written():
    assert RunRecord.from_dict(record_with(SHARD), source="m.run.json").shard == SHARD
    assert RunRecord.from_dict(record_with(None), source="m.run.json").shard is None


@pytest.mark.parametrize("shard, message", [
    ([1, 2], "m.run.json: shard: not a JSON object"),
    ({**SHARD, "positions": "1,4,7"}, "m.run.json: shard: field positions is '1,4,7', not a list"),
    ({**SHARD, "positions": [1, -4]}, "m.run.json: shard: field positions is not a list of selection positions"),
    ({**SHARD, "positions": [1, True]}, "m.run.json: shard: field positions is not a list of selection positions"),
    ({k: v for k, v in SHARD.items() if k != "index"}, "m.run.json: shard: field index is None, not a int"),
    ({**SHARD, "count": "3"}, "m.run.json: shard: field count is '3', not a int"),
    ({**SHARD, "selection_sha256": None}, "m.run.json: shard: field selection_sha256 is None, not a str"),
])
def test_a_bad_shard_block_is_one_line(shard, message):
    with pytest.raises(RecordError) as err:
        RunRecord.from_dict(record_with(shard), source="m.run.json")
    assert str(err.value) == message
