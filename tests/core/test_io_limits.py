"""JSON readers at the parser's limits: deep nesting, huge integers and lone surrogates are one line naming
the file and the record, and the command exits 2."""

from __future__ import annotations

import pytest

from auditpacks.core.errors import FormatError, PackError
from auditpacks.core.io import read_json, read_jsonl
from auditpacks.runner.cli.main import main

CASES = [
    ("[" * 200_000 + "]" * 200_000, "nested too deeply"),
    ("[1" + "0" * 5000 + "]", "a number too long to read"),
    ('["\\ud800 alone"]', "a lone UTF-16 surrogate \\ud800"),
    ('["\\udc00"]', "a lone UTF-16 surrogate \\udc00"),
]


@pytest.mark.parametrize("text, message", CASES)
def test_read_json_names_the_file(tmp_path, text, message):
    path = tmp_path / "f.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(PackError) as err:
        read_json(path)
    assert str(err.value).startswith("f.json: ") and message in str(err.value)


@pytest.mark.parametrize("text, message", CASES)
def test_read_jsonl_names_the_line(tmp_path, text, message):
    path = tmp_path / "f.jsonl"
    path.write_text("[]\n" + text + "\n", encoding="utf-8")
    with pytest.raises(FormatError) as err:
        read_jsonl(path)
    assert str(err.value).startswith("f.jsonl line 2: ") and message in str(err.value)


def test_a_surrogate_pair_and_an_escaped_backslash_are_text(tmp_path):
    path = tmp_path / "f.json"
    path.write_text('["\\ud83d\\ude00", "\\\\ud800"]', encoding="utf-8")
    assert read_json(path) == ["\U0001F600", "\\ud800"]


@pytest.mark.parametrize("record, message", [
    ('{"name": "a", "description": ' + "[" * 200_000 + "]" * 200_000 + "}", "nested too deeply"),
    ('{"name": "a", "description": "d", "n": 1' + "0" * 5000 + "}", "a number too long"),
    ('{"name": "a", "description": "\\ud800"}', "lone UTF-16 surrogate"),
    ('{"name": 5, "description": "d"}', "field 'name' is missing or not a string"),
])
def test_check_on_a_hostile_pack_is_one_line_and_exit_2(tmp_path, capsys, record, message):
    pack = tmp_path / "p.json"
    pack.write_text("[" + record + "]", encoding="utf-8")
    assert main(["check", str(pack)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "p.json: record #0" in err[0] and message in err[0], err
