"""The read report: declared counts from each kind of declaration, and the problems it names."""

from __future__ import annotations

import hashlib
import json

import pytest

from auditpacks.core.errors import PackError
from auditpacks.packs.readreport import Declared, ReadReport, declared_counts

README = """---
dataset_info:
- config_name: tasks
  splits:
  - name: test
    num_bytes: 10
    num_examples: 12
- config_name: documents
  splits:
  - name: test
    num_examples: 3
configs:
- config_name: tasks
  data_files: tasks/*.parquet
---
# card
"""


def test_declared_counts_from_front_matter_dataset_infos_and_manifest(tmp_path):
    (tmp_path / "README.md").write_text(README, encoding="utf-8")
    (tmp_path / "dataset_infos.json").write_text(json.dumps(
        {"default": {"splits": {"train": {"name": "train", "num_examples": 7}}}}), encoding="utf-8")
    (tmp_path / "manifest.json").write_text(json.dumps({"counts": {"cases": 13}, "tables": [{"name": "x", "rows": 2}]}),
                                            encoding="utf-8")
    found = declared_counts(tmp_path, "test")
    assert found["tasks"] == Declared(12, "README.md dataset_info") and found["tasks/test"].rows == 12
    assert found["documents"].rows == 3
    assert found["train"] == Declared(7, "dataset_infos.json", loose=True) and "default" not in found
    assert found["cases"] == Declared(13, "manifest.json") and found["x"].rows == 2


def test_a_count_unlike_the_declared_one_names_the_file_and_both_counts(tmp_path):
    (tmp_path / "README.md").write_text(README, encoding="utf-8")
    report = ReadReport(tmp_path, split="test")
    report.table("tasks", [tmp_path / "tasks" / "a.parquet", tmp_path / "tasks" / "b.parquet"], 6)
    report.table("documents", [tmp_path / "documents.jsonl"], 3)
    with pytest.raises(PackError) as err:
        report.check()
    assert str(err.value) == ("tasks (2 files): read 6 rows, README.md dataset_info declares 12 for tasks; "
                              "--allow-partial reads on and records it")
    report.check(allow_partial=True)
    assert report.as_dict()["warnings"] == ["tasks (2 files): read 6 rows, README.md dataset_info declares 12 for tasks"]
    assert report.as_dict()["tables"][1] == {"table": "documents", "files": ["documents.jsonl"], "rows": 3,
                                            "declared": 3, "declared_by": "README.md dataset_info"}


def test_empty_tables_skipped_data_and_declared_tables_not_read(tmp_path, capsys):
    (tmp_path / "README.md").write_text(README, encoding="utf-8")
    report = ReadReport(tmp_path, split="test")
    report.table("units", [tmp_path / "units.jsonl"], 0)
    report.skip(tmp_path / "extra" / "more.parquet", "not a configuration")
    report.skip(tmp_path / "notes.txt", "not data")
    assert report.problems() == [
        "units.jsonl: read as empty (0 rows)",
        "README.md dataset_info declares tasks (12 rows), and it was not read: no file of the copy was read as it",
        "README.md dataset_info declares documents (3 rows), and it was not read: no file of the copy was read as it",
        "extra/more.parquet: skipped (not a configuration), and it looks like data"]
    with pytest.raises(PackError, match=r"^units\.jsonl: read as empty \(0 rows\) \(and 3 more\); --allow-partial"):
        report.check()
    report.check(allow_partial=True)
    assert capsys.readouterr().err.count("warning: ") == 4


def test_sha256sums_lists_files_that_must_be_there_and_match(tmp_path):
    (tmp_path / "a.jsonl").write_text('{"x": 1}\n', encoding="utf-8")
    good = hashlib.sha256(b'{"x": 1}\n').hexdigest()
    (tmp_path / "SHA256SUMS").write_text(f"{good}  a.jsonl\n{'0' * 64}  b.jsonl\n", encoding="utf-8")
    report = ReadReport(tmp_path)
    report.table("a", [tmp_path / "a.jsonl"], 1)
    assert report.problems() == ["b.jsonl: listed in SHA256SUMS beside the tables read, not in the copy"]
    (tmp_path / "SHA256SUMS").write_text(f"{'1' * 64}  a.jsonl\n", encoding="utf-8")
    assert report.problems() == ["a.jsonl: sha256 does not match SHA256SUMS; the file differs from the published one"]
