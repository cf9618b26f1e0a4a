"""Reading Iustitia Marigonae sources: JSONL and parquet layouts, front matter, bad input."""

from __future__ import annotations

import json

import pytest

from auditpacks.packs.iustitia.source import open_source
from auditpacks.packs.iustitia.tasks import OPTIONAL, REQUIRED
from auditpacks.core.errors import PackError
from tests.support.iustitia import FIXTURE, build_pack, copy_source, parquet_source, rows, write_rows


#: The 17 columns the dataset viewer shows for ``tasks``, in order.
VIEWER_COLUMNS = ["unit_id", "verdict_id", "unit_type", "legacy_split", "canonical_verdict_id", "is_canonical",
                  "task_id", "question_id", "question_group", "kind", "state_json", "instructions", "options",
                  "reference_json", "accepted_options", "reference_origin", "clef_supported"]


def test_fixtures_use_the_documented_schemas():
    assert list(rows("tasks")[0]) == VIEWER_COLUMNS
    assert set(REQUIRED) | set(OPTIONAL) <= set(VIEWER_COLUMNS)
    assert list(rows("documents")[0]) == ["verdict_id", "court", "year", "source_url", "text", "sections_json"]
    assert list(rows("units")[0]) == ["unit_id", "verdict_id", "unit_type", "state_json"]
    assert list(rows("questions")[0]) == ["question_id", "question_group", "kind", "instructions", "options",
                                          "clef_supported", "reference_mapping_json", "notes"]


def test_guilty_verdict_is_copied_verbatim_from_the_viewer():
    task = next(t for t in rows("tasks") if t["task_id"] == "domv901::GUILTY.VERDICT")
    assert task["instructions"] == "Did the court find the defendant (or at least one defendant) guilty in this judgment?"
    assert task["options"] == [
        {"description": "The court found the defendant, or at least one defendant, guilty.", "key": "yes"},
        {"description": "The court found no defendant guilty (acquittal, rejection of the charge, or dismissal).",
         "key": "no"}]
    assert json.loads(task["state_json"])["translation_notes"].startswith(
        "The judgment is in Albanian (sometimes Serbian). Key terms: aktgjykim = judgment; dispozitiv = operative part;")


def test_section_offsets_slice_the_document_text():
    for document in rows("documents"):
        spans = json.loads(document["sections_json"])
        unit_state = next(json.loads(u["state_json"]) for u in rows("units") if u["unit_id"] == document["verdict_id"])
        for section, (start, end) in spans.items():
            assert document["text"][start:end] == unit_state[section]


def test_parquet_with_front_matter_builds_the_same_pack(tmp_path):
    root = parquet_source(tmp_path)
    source = open_source(str(root), cache_dir=str(tmp_path / "hf-cache"))
    assert set(source.front_matter) == {"tasks", "documents", "units", "questions"}
    assert source.label("tasks") == "tasks/test-00000-of-00001.parquet"
    from_parquet = build_pack(tmp_path, source=root, name="parquet.json")
    from_jsonl = build_pack(tmp_path, name="jsonl.json")
    assert from_parquet == from_jsonl


def test_readme_without_front_matter_falls_back_to_file_names(tmp_path):
    root = copy_source(tmp_path)
    (root / "README.md").write_text("# Iustitia Marigonae\n\nNo configs here.\n", encoding="utf-8")
    source = open_source(str(root), cache_dir=str(tmp_path / "hf-cache"))
    assert source.front_matter == {} and source.label("units") == "units/test-00000-of-00001.jsonl"
    assert len(build_pack(tmp_path, source=root)) == 15


def test_missing_configuration_is_named(tmp_path):
    root = copy_source(tmp_path)
    for path in (root / "questions").iterdir():
        path.unlink()
    with pytest.raises(PackError, match="no data files for configuration 'questions'"):
        open_source(str(root)).files("questions")


def test_missing_card_column_is_named(tmp_path):
    root = copy_source(tmp_path)
    write_rows(root, "tasks", [{k: v for k, v in t.items() if k != "accepted_options"} for t in rows("tasks")])
    with pytest.raises(PackError, match=r"tasks/test-00000-of-00001.jsonl: task domv901::GUILTY.VERDICT "
                                        r"field accepted_options: missing"):
        build_pack(tmp_path, source=root)


def test_clef_supported_is_needed_on_the_le26_track_only(tmp_path):
    root = copy_source(tmp_path)
    write_rows(root, "tasks", [{k: v for k, v in t.items() if k != "clef_supported"} for t in rows("tasks")])
    assert len(build_pack(tmp_path, source=root)) == 15
    with pytest.raises(PackError, match=r"field clef_supported: missing"):
        build_pack(tmp_path, "--track", "le26", source=root, name="le26.json")


def test_invalid_state_json_names_file_task_and_field(tmp_path):
    root = copy_source(tmp_path)
    tasks = rows("tasks")
    tasks[1]["state_json"] = "{not json"
    write_rows(root, "tasks", tasks)
    with pytest.raises(PackError) as err:
        build_pack(tmp_path, source=root)
    assert "tasks/test-00000-of-00001.jsonl: task domv901::N_GUILTY_DEFENDANTS field state_json: invalid JSON" in str(err.value)
    assert "\n" not in str(err.value)


def test_malformed_jsonl_line_is_a_pack_error(tmp_path):
    root = copy_source(tmp_path)
    with open(root / "units" / "test-00000-of-00001.jsonl", "a", encoding="utf-8") as fh:
        fh.write("{broken\n")
    with pytest.raises(PackError, match=r"^units/test-00000-of-00001.jsonl: cannot read"):
        build_pack(tmp_path, source=root)


def test_duplicate_task_id_is_rejected(tmp_path):
    root = copy_source(tmp_path)
    tasks = rows("tasks")
    write_rows(root, "tasks", tasks + [tasks[0]])
    with pytest.raises(PackError, match=r"task domv901::GUILTY.VERDICT field task_id: duplicate"):
        build_pack(tmp_path, source=root)


def test_gated_hub_source_names_hf_auth_login(monkeypatch):
    import httpx
    import huggingface_hub
    from huggingface_hub.errors import GatedRepoError

    def gated(*args, **kwargs):
        request = httpx.Request("GET", "https://huggingface.co/api/datasets/Kushtrim/iustitia-marigonae")
        raise GatedRepoError("403 gated", response=httpx.Response(403, request=request))

    monkeypatch.setattr(huggingface_hub, "snapshot_download", gated)
    with pytest.raises(PackError, match="hf auth login"):
        open_source("hf:Kushtrim/iustitia-marigonae")


def test_fixture_layout_is_the_hub_layout():
    assert sorted(p.name for p in FIXTURE.iterdir() if p.is_dir()) == [
        "documents", "questions", "simpleaudit", "systemone", "tasks", "units"]
