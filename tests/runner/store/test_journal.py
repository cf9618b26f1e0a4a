"""Journal entries read through :class:`JournalEntry`: each field checked, ERROR results indexed as ERROR."""

from __future__ import annotations

import pytest

from auditpacks.runner.store.journal import Journal, JournalEntry, JournalError, severity_of

WHERE = "m.journal.jsonl line 4"


def test_an_entry_reads_its_key_name_and_result():
    entry = JournalEntry.parse(b'{"key": "k1", "name": "a", "result": {"severity": "pass"}}\n', where=WHERE)
    assert entry == JournalEntry(key="k1", name="a", result={"severity": "pass"})
    assert entry.severity == "pass"
    assert JournalEntry.parse(b'{"key": "k1", "result": {}}', where=WHERE).name is None


@pytest.mark.parametrize("line, message", [
    (b"{", "m.journal.jsonl line 4: not JSON (JSONDecodeError)"),
    (b'{"key": "\xff"}', "m.journal.jsonl line 4: not JSON (UnicodeDecodeError)"),
    (b'["k1"]', "m.journal.jsonl line 4: not a journal entry (a JSON object expected)"),
    (b'{"name": "a", "result": {}}', "m.journal.jsonl line 4: field key is missing or not a string"),
    (b'{"key": 5, "name": "a", "result": {}}', "m.journal.jsonl line 4: field key is missing or not a string"),
    (b'{"key": "k", "name": 5, "result": {}}', "m.journal.jsonl line 4: field name is not a string"),
    (b'{"key": "k", "name": "a"}', "m.journal.jsonl line 4: field result is missing or not an object"),
    (b'{"key": "k", "name": "a", "result": [1]}', "m.journal.jsonl line 4: field result is missing or not an object"),
    (b"[" * 100_000, "m.journal.jsonl line 4: JSON nested too deeply to read"),
    (b'{"key": "\\ud800"}', "m.journal.jsonl line 4: a lone UTF-16 surrogate \\ud800 at character 9, which is not text"),
])
def test_a_bad_entry_is_one_line_naming_file_line_and_field(line, message):
    with pytest.raises(JournalError) as err:
        JournalEntry.parse(line, where=WHERE)
    assert str(err.value) == message


@pytest.mark.parametrize("result, severity", [
    ({"severity": "ERROR"}, "ERROR"),
    ({"severity": "pass", "judgment": {"severity": "ERROR"}}, "ERROR"),  # the judge call failed
    ({"severity": "medium", "judgment": {"severity": "medium"}}, "medium"),
    ({"severity": 3}, "3"),
    ({}, None),
])
def test_the_index_holds_error_for_every_error_result(result, severity):
    assert severity_of(result) == severity


def test_a_judge_error_under_another_severity_is_rerun_on_resume(tmp_path):
    """The journal indexes it as ERROR, the word the resume step looks for, before and after reopening."""
    path = tmp_path / "m.journal.jsonl"
    failed = {"severity": "pass", "judgment": {"severity": "ERROR", "error": "judge down"}}
    with Journal(path, "fp").open() as journal:
        journal.append("k1", "a", failed)
        assert journal.done.severity("k1") == "ERROR"
    with Journal(path, "fp").open() as reopened:
        assert reopened.done.severity("k1") == "ERROR" and reopened.done["k1"] == failed


def test_an_entry_damaged_after_indexing_names_its_key(tmp_path):
    path = tmp_path / "m.journal.jsonl"
    with Journal(path, "fp").open() as journal:
        journal.append("k1", "a", {"severity": "pass"})
        text = path.read_text(encoding="utf-8")
        path.write_text(text.replace('"result": {', '"result": [', 1), encoding="utf-8")
        with pytest.raises(JournalError) as err:
            journal.done["k1"]
    assert str(err.value) == "m.journal.jsonl key k1: not JSON (JSONDecodeError)"
