"""The read report's own bookkeeping: table names matched to declarations, skipped files, relative folders, the flag."""

from __future__ import annotations

import argparse
import hashlib
from pathlib import Path

import pytest

from auditpacks.core.errors import PackError
from auditpacks.packs.readreport import ReadReport, add_allow_partial


def _manifest(root, **counts):
    body = ", ".join(f'"{name}": {rows}' for name, rows in counts.items())
    (root / "manifest.json").write_text(f'{{"counts": {{{body}}}}}', encoding="utf-8")


@pytest.mark.parametrize("name", ["data/tasks", "tasks/", "data\\tasks"])
def test_a_table_named_by_its_path_matches_the_declaration_of_its_last_part(tmp_path, name):
    _manifest(tmp_path, tasks=3)
    report = ReadReport(tmp_path)
    report.table(name, [tmp_path / "t.jsonl"], 2)
    assert report.problems() == ["t.jsonl: read 2 rows, manifest.json declares 3 for tasks"]


def test_a_name_ending_in_x_keeps_it(tmp_path):
    _manifest(tmp_path, INDEX=3)
    report = ReadReport(tmp_path)
    report.table("data/INDEX", [tmp_path / "i.jsonl"], 3)
    assert report.problems() == []


def test_a_declared_table_not_read_names_the_skipped_file_it_may_be(tmp_path):
    _manifest(tmp_path, more=2, tasks=3, docs=1, a=4, gone=0, other=5)
    report = ReadReport(tmp_path)
    report.skip(tmp_path / "more.v2.txt", "not a configuration")
    report.skip(tmp_path / "tasks" / "part-0.txt", "another split")
    report.skip(tmp_path / "a" / "docs" / "d.txt", "outside the tables")
    assert report.problems() == [
        "manifest.json declares more (2 rows), and it was not read: skipped more.v2.txt (not a configuration)",
        "manifest.json declares tasks (3 rows), and it was not read: skipped tasks/part-0.txt (another split)",
        "manifest.json declares docs (1 rows), and it was not read: skipped a/docs/d.txt (outside the tables)",
        "manifest.json declares a (4 rows), and it was not read: no file of the copy was read as it",
        "manifest.json declares other (5 rows), and it was not read: no file of the copy was read as it",
    ]  # `gone` declares no rows: nothing is missing


def test_a_split_of_the_unnamed_configuration_is_matched_only_when_read(tmp_path):
    (tmp_path / "dataset_info.json").write_text('{"splits": {"train": {"num_examples": 4}}}', encoding="utf-8")
    assert ReadReport(tmp_path).problems() == []


def test_the_split_read_picks_the_configurations_count(tmp_path):
    (tmp_path / "README.md").write_text("---\ndataset_info:\n  config_name: tasks\n  splits:\n  - name: train\n"
                                        "    num_examples: 7\n  - name: test\n    num_examples: 3\n---\n",
                                        encoding="utf-8")
    report = ReadReport(tmp_path, split="test")
    report.table("tasks", [tmp_path / "tasks.jsonl"], 7)
    assert report.problems() == ["tasks.jsonl: read 7 rows, README.md dataset_info declares 3 for tasks"]


def test_skipping_records_each_file_once_and_reads_data_by_its_suffix(tmp_path):
    report = ReadReport(tmp_path)
    report.skip(tmp_path / "a.parquet", "first reason")
    report.skip(tmp_path / "a.parquet", "second reason")
    report.skip(tmp_path / "b.txt", "not data")
    report.skip(tmp_path / "c.txt", "declared as data", data=True)
    report.skip(tmp_path / "d.jsonl", "a copy's index", data=False)
    assert report.as_dict() == {"tables": [], "warnings": [], "skipped": [
        {"file": "a.parquet", "why": "first reason", "looks_like_data": True},
        {"file": "b.txt", "why": "not data", "looks_like_data": False},
        {"file": "c.txt", "why": "declared as data", "looks_like_data": True},
        {"file": "d.jsonl", "why": "a copy's index", "looks_like_data": False}]}


def test_skip_unread_leaves_out_the_files_read(tmp_path):
    report = ReadReport(tmp_path)
    report.table("t", [tmp_path / "t" / "0.jsonl"], 1)
    report.skip_unread([tmp_path / "t" / "0.jsonl", tmp_path / "t" / "1.jsonl"], "not a part read")
    assert report.skipped == [{"file": "t/1.jsonl", "why": "not a part read", "looks_like_data": True}]


@pytest.mark.parametrize("tables, more", [(1, ""), (2, " (and 1 more)")])
def test_the_first_problem_is_one_line_counting_the_others(tmp_path, tables, more):
    report = ReadReport(tmp_path)
    for name in ("t", "u")[:tables]:
        report.table(name, [tmp_path / f"{name}.jsonl"], 0)
    with pytest.raises(PackError) as err:
        report.check()
    assert str(err.value) == f"t.jsonl: read as empty (0 rows){more}; --allow-partial reads on and records it"


def test_a_file_named_from_the_root_already_is_kept_as_named(tmp_path):
    report = ReadReport(tmp_path)
    report.skip("notes/readme.txt", "not data")
    assert report.skipped == [{"file": "notes/readme.txt", "why": "not data", "looks_like_data": False}]


def test_sha256sums_beside_the_tables_only_when_the_listed_file_is_data(tmp_path):
    (tmp_path / "a.jsonl").write_text("{}\n", encoding="utf-8")
    digest = hashlib.sha256(b"{}\n").hexdigest()
    (tmp_path / "SHA256SUMS").write_text(f"{digest}  a.jsonl\n{'0' * 64}  NOTES.md\n{'0' * 64}  other/b.jsonl\n",
                                         encoding="utf-8")
    report = ReadReport(tmp_path)
    report.table("a", [tmp_path / "a.jsonl"], 1)
    assert report.problems() == []


def test_a_source_folder_given_relative_is_reported_and_verified_the_same(tmp_path, monkeypatch):
    """``--source copy`` from the folder above: file names relative to the copy, SHA256SUMS still checked."""
    copy = tmp_path / "copy"
    copy.mkdir()
    (copy / "a.jsonl").write_text("{}\n", encoding="utf-8")
    (copy / "SHA256SUMS").write_text(f"{'1' * 64}  a.jsonl\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    root = Path("copy")
    report = ReadReport(root)
    report.table("a", [root / "a.jsonl"], 1)
    report.skip_unread([root / "a.jsonl"], "not read")
    assert report.tables[0]["files"] == ["a.jsonl"] and report.skipped == []
    assert report.problems() == ["a.jsonl: sha256 does not match SHA256SUMS; the file differs from the published one"]


def test_the_allow_partial_flag():
    parser = argparse.ArgumentParser()
    add_allow_partial(parser)
    assert parser.parse_args([]).allow_partial is False and parser.parse_args(["--allow-partial"]).allow_partial
    assert " ".join(parser.format_help().split()).count(
        "--allow-partial read on when the copy holds other row counts than it declares, a table read as empty or a "
        "data file left out (each a warning, recorded; by default refused)") == 1
