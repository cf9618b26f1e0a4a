"""A run record's results paths are file names in its own folder, never a path out of it."""

from __future__ import annotations

import pytest

from auditpacks.core.runs.record import RecordError, _round


@pytest.mark.parametrize("name", ["../other.json", "/etc/passwd", "sub/../../m.json", "..", "", "a\\b.json", "m\0.json",
                                  "sub//m.json", "./m.json"])
def test_a_results_path_out_of_the_folder_is_refused_naming_record_and_field(name):
    with pytest.raises(RecordError) as err:
        _round({"round": 1, "seed": 0, "results": name}, "m.run.json: rounds[0]")
    assert str(err.value).startswith("m.run.json: rounds[0]: field results is ")


def test_a_file_name_or_a_path_below_the_folder_is_kept():
    assert _round({"round": 2, "seed": 7, "results": "m.round2.json"}, "w").results == "m.round2.json"
    assert _round({"round": 1, "seed": 7, "results": "rounds/m.json"}, "w").results == "rounds/m.json"
