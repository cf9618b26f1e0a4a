"""A pack is strict JSON: NaN, Infinity and a key given twice in one object are refused in one line naming the
record, when reading and when writing."""

import pytest

from auditpacks.core.errors import PackError
from auditpacks.packs.pack import PackWriter
from auditpacks.packs.stream import scan
from tests.packs.test_stream import write
from tests.support.tiny_pack import tiny_scenario


@pytest.mark.parametrize(("record", "message"), [
    ('{"name": "a", "description": "d", "metadata": {"score": NaN}}', "NaN is not a JSON number"),
    ('{"name": "a", "description": "d", "metadata": {"score": -Infinity}}', "-Infinity is not a JSON number"),
    ('{"name": "a", "description": "d", "name": "b"}', "key 'name' appears twice in one object"),
    ('{"name": "a", "description": "d", "metadata": {"k": 1, "k": 2}}', "key 'k' appears twice in one object"),
])
def test_nan_and_duplicate_keys_are_refused_naming_the_record(tmp_path, record, message):
    path = write(tmp_path / "p.json", '[{"name": "ok", "description": "d"},\n' + record + "]")
    with pytest.raises(PackError, match=rf"^p.json: record #1: {message}$"):
        scan(path)


def test_a_builder_cannot_write_nan_into_a_pack(tmp_path):
    scenario = tiny_scenario(0)
    scenario["metadata"]["score"] = float("nan")
    with pytest.raises(PackError, match=r"holds NaN or an infinite number"):
        with PackWriter(tmp_path / "p.json", builder="tests") as writer:
            writer.add(scenario)
    assert not (tmp_path / "p.json").exists()
