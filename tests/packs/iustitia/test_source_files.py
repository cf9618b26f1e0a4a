"""An Iustitia source's files in process: found by name or front matter, their labels, manifest and read report."""

from __future__ import annotations

import json

import pytest

from auditpacks.core.errors import PackError
from auditpacks.packs.iustitia import source as source_module
from auditpacks.packs.iustitia.source import DOWNLOAD, IustitiaSource, open_source
from auditpacks.packs.sources import Source

ROW = '{"task_id": "u1::Q1"}\n'


def touch(root, *names, text=ROW):
    for name in names:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


def names(source, config):
    return [p.relative_to(source.root).as_posix() for p in source.files(config)]


@pytest.mark.parametrize("layout, found", [
    (["data/tasks/test-0.jsonl", "data/tasks/test-1.parquet", "data/tasks/notes.md"],
     ["data/tasks/test-0.jsonl", "data/tasks/test-1.parquet"]),
    (["tasks.jsonl", "tasks.parquet"], ["tasks.parquet"]),
    (["data/tasks.jsonl"], ["data/tasks.jsonl"]),
    (["tasks/train-0.jsonl", "tasks/all.jsonl"], ["tasks/all.jsonl", "tasks/train-0.jsonl"]),
])
def test_files_are_found_by_name(tmp_path, layout, found):
    source = open_source(str(touch(tmp_path, *layout)))
    assert names(source, "tasks") == found and source.other_splits == []


def test_other_splits_of_each_folder_are_left_out_and_recorded(tmp_path):
    source = open_source(str(touch(tmp_path, "tasks/test-0.jsonl", "tasks/train-0.jsonl", "tasks/validation.jsonl",
                                   "data/units/test.jsonl", "data/units/train.jsonl")))
    assert names(source, "tasks") == ["tasks/test-0.jsonl"] and names(source, "units") == ["data/units/test.jsonl"]
    assert [p.relative_to(tmp_path).as_posix() for p in source.other_splits] == [
        "tasks/train-0.jsonl", "tasks/validation.jsonl", "data/units/train.jsonl"]


def test_a_configuration_of_mixed_formats_is_named_by_its_label(tmp_path):
    source = open_source(str(touch(tmp_path, "tasks/test-0.jsonl", "tasks/test-1.parquet")))
    with pytest.raises(PackError, match=r"^tasks \(2 files\): mixed or unknown file formats \(\.jsonl, \.parquet\)$"):
        source.table("tasks")


def test_front_matter_patterns_keep_only_data_files(tmp_path):
    touch(tmp_path, "shards/a.jsonl", "shards/b.md", "shards/c.parquet")
    (tmp_path / "shards" / "d.jsonl").mkdir()
    (tmp_path / "README.md").write_text("---\nconfigs:\n- config_name: tasks\n  data_files: shards/*\n---\n",
                                        encoding="utf-8")
    source = open_source(str(tmp_path))
    assert names(source, "tasks") == ["shards/a.jsonl", "shards/c.parquet"]
    assert source.label("tasks") == "tasks (2 files)"
    assert source.label("tasks", [tmp_path / "shards" / "c.parquet"]) == "shards/c.parquet"


def test_has_tells_a_present_configuration_from_a_missing_one(tmp_path):
    source = open_source(str(touch(tmp_path, "units.jsonl")))
    assert (source.has("units"), source.has("documents")) == (True, False)


def test_open_source_downloads_only_the_data_readme_and_smoke_pack(monkeypatch, tmp_path):
    asked = []

    def resolve(spec, *, allow_patterns=None):
        asked.append((spec, allow_patterns))
        return Source(root=tmp_path, origin="hf:Kushtrim/iustitia-marigonae@abc")

    monkeypatch.setattr(source_module, "resolve_source", resolve)
    source = open_source("hf:Kushtrim/iustitia-marigonae")
    assert asked == [("hf:Kushtrim/iustitia-marigonae", DOWNLOAD)]
    assert (source.root, source.origin) == (tmp_path, "hf:Kushtrim/iustitia-marigonae@abc")


def test_manifest_sources_name_each_file_read_with_its_origin(tmp_path):
    touch(tmp_path, "tasks/test-0.jsonl", "units.jsonl", "extra/notes.txt")
    hub = "hf:Kushtrim/iustitia-marigonae@abc"
    source = IustitiaSource(Source(root=tmp_path, origin=hub))
    source.table("tasks")
    entries = source.manifest_sources(extra=[tmp_path / "extra" / "notes.txt"])
    assert [(e["name"], e["origin"]) for e in entries] == [("tasks/test-0.jsonl", hub), ("extra/notes.txt", hub)]
    assert [e["name"] for e in source.manifest_sources(["units"])] == ["units.jsonl"]


def test_optional_tables_keep_their_known_columns_and_count_rows(tmp_path):
    documents = [{"verdict_id": "v1", "text": "Judgment.", "source_url": "https://x/v1", "court": "Prishtina"},
                 {"verdict_id": "v2", "court": "Peja"}]
    touch(tmp_path, "documents.jsonl", text="".join(json.dumps(d) + "\n" for d in documents))
    source = open_source(str(tmp_path))
    assert source.documents == {"v1": {"verdict_id": "v1", "text": "Judgment.", "source_url": "https://x/v1"},
                                "v2": {"verdict_id": "v2"}}
    assert source.rows_read == {"documents": 2} and source.questions == {} and source.units is None


def test_an_optional_table_with_a_number_for_an_id_names_its_file(tmp_path):
    source = open_source(str(touch(tmp_path, "units.jsonl", text='{"unit_id": 7, "verdict_id": "v1"}\n')))
    with pytest.raises(PackError, match=r"^units\.jsonl: record \? field unit_id: a int, not text$"):
        source.units


def test_smoke_file_is_found_only_when_present(tmp_path):
    source = open_source(str(touch(tmp_path, "simpleaudit/smoke.json")))
    assert source.smoke_file("simpleaudit/smoke.json") == tmp_path / "simpleaudit" / "smoke.json"
    assert source.smoke_file("simpleaudit/other.json") is None


def declare(root, tasks_rows):
    (root / "README.md").write_text(
        "---\ndataset_info:\n- config_name: tasks\n  splits:\n  - name: train\n    num_examples: 9\n"
        f"  - name: test\n    num_examples: {tasks_rows}\n---\n", encoding="utf-8")


def test_the_read_report_lists_tables_and_every_file_left_out(tmp_path):
    touch(tmp_path, "tasks/test-0.jsonl", "tasks/train-0.jsonl", "results/run.jsonl", "units.jsonl")
    declare(tmp_path, 1)
    source = open_source(str(tmp_path))
    source.rows_read["tasks"] = len(list(source.table("tasks").rows()))
    report = source.read_report(allow_partial=True)
    assert report["tables"] == [{"table": "tasks", "files": ["tasks/test-0.jsonl"], "rows": 1, "declared": 1,
                                 "declared_by": "README.md dataset_info"}]
    assert report["skipped"] == [
        {"file": "tasks/train-0.jsonl", "why": "another split than test", "looks_like_data": False},
        {"file": "units.jsonl", "why": "not a file of any configuration read", "looks_like_data": True},
        {"file": "results/run.jsonl", "why": "outside the dataset's table folders", "looks_like_data": False}]
    assert report["warnings"] == ["units.jsonl: skipped (not a file of any configuration read), and it looks like data"]
    with pytest.raises(PackError, match=r"^units\.jsonl: skipped"):
        source.read_report()


def test_a_table_read_without_counting_its_rows_reads_as_empty(tmp_path):
    source = open_source(str(touch(tmp_path, "tasks.jsonl")))
    source.table("tasks")
    with pytest.raises(PackError, match=r"^tasks\.jsonl: read as empty \(0 rows\); --allow-partial"):
        source.read_report()
