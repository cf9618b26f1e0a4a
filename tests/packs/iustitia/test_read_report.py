"""The Iustitia build reconciles every configuration with the copy's README ``dataset_info``."""

from __future__ import annotations

import pytest

from auditpacks.core.errors import PackError
from tests.support.iustitia import CONFIGS, build_pack, copy_source, manifest, rows


def _declare(root, counts):
    """README front matter declaring ``counts`` (configuration → num_examples of its test split)."""
    lines = ["---", "dataset_info:"]
    for config, n in counts.items():
        lines += [f"- config_name: {config}", "  splits:", "  - name: test", f"    num_examples: {n}"]
    (root / "README.md").write_text("\n".join(lines + ["---", "# copy", ""]), encoding="utf-8")


def test_every_configuration_is_read_as_the_copy_declares(tmp_path):
    root = copy_source(tmp_path)
    counts = {config: len(rows(config)) for config in CONFIGS}  # the fixture's own rows, counted here
    _declare(root, counts)
    build_pack(tmp_path, source=root)
    report = manifest(tmp_path)["read_report"]
    assert {t["table"]: (t["rows"], t["declared"]) for t in report["tables"]} == \
        {c: (n, n) for c, n in counts.items()}
    assert report["warnings"] == [] and report["skipped"] == []


def test_fewer_rows_than_declared_stop_the_build_unless_partial(tmp_path):
    root = copy_source(tmp_path)
    tasks = len(rows("tasks"))
    _declare(root, {"tasks": tasks + 5})
    with pytest.raises(PackError) as err:
        build_pack(tmp_path, source=root)
    assert str(err.value) == (f"tasks/test-00000-of-00001.jsonl: read {tasks} rows, README.md dataset_info declares "
                              f"{tasks + 5} for tasks; --allow-partial reads on and records it")
    assert not (tmp_path / "pack.json").exists()
    build_pack(tmp_path, "--allow-partial", source=root)
    assert manifest(tmp_path)["read_report"]["warnings"] == [
        f"tasks/test-00000-of-00001.jsonl: read {tasks} rows, README.md dataset_info declares {tasks + 5} for tasks"]


def test_a_data_file_of_no_configuration_is_refused_and_another_split_is_recorded(tmp_path):
    root = copy_source(tmp_path)
    (root / "tasks_extra.jsonl").write_text((root / "tasks" / "test-00000-of-00001.jsonl").read_text(encoding="utf-8"),
                                            encoding="utf-8")
    with pytest.raises(PackError, match=r"^tasks_extra\.jsonl: skipped \(not a file of any configuration read\), "
                                        r"and it looks like data"):
        build_pack(tmp_path, source=root)
    (root / "tasks_extra.jsonl").rename(root / "tasks" / "train-00000-of-00001.jsonl")
    build_pack(tmp_path, source=root)
    assert manifest(tmp_path)["read_report"]["skipped"] == [
        {"file": "tasks/train-00000-of-00001.jsonl", "why": "another split than test", "looks_like_data": False}]


def test_files_outside_the_table_folders_are_recorded_not_refused(tmp_path):
    root = copy_source(tmp_path)
    (root / "results").mkdir()
    (root / "results" / "jev.jsonl").write_text('{"task_id": "x", "choice": "yes"}\n', encoding="utf-8")
    build_pack(tmp_path, source=root)
    assert manifest(tmp_path)["read_report"]["skipped"] == [
        {"file": "results/jev.jsonl", "why": "outside the dataset's table folders", "looks_like_data": False}]
