"""What a built Iustitia pack's manifest says (the smoke scenarios the pack holds, smoke tasks it could not find,
every source file read, the counts), and the builds refused for fewer scenarios or rows than asked or declared."""

from __future__ import annotations

import json

import pytest

from auditpacks.core.errors import PackError
from auditpacks.packs.iustitia.builder import build
from tests.packs.iustitia.test_read_report import _declare
from tests.support.iustitia import SMOKE_FILE, build_args, build_pack, copy_source, manifest, rows, write_rows

TABLES = ["tasks/test-00000-of-00001.jsonl", "documents/test-00000-of-00001.jsonl",
          "units/test-00000-of-00001.jsonl", "questions/test-00000-of-00001.jsonl"]
PUBLISHED_SMOKE = ["GUILTY.VERDICT - domv902", "DEF.SUSPENDED_SENTENCE - domv901_d1",
                   "VIC.PRESENT_AT_HEARING - domv902_v1"]


def test_the_manifest_lists_every_table_and_the_published_smoke_pack(tmp_path):
    build_pack(tmp_path)
    assert [source["name"] for source in manifest(tmp_path)["sources"]] == [*TABLES, SMOKE_FILE]


def test_without_a_smoke_pack_every_table_is_listed_and_nothing_else(tmp_path):
    build_pack(tmp_path, source=copy_source(tmp_path, smoke=False))
    assert sorted(source["name"] for source in manifest(tmp_path)["sources"]) == sorted(TABLES)


def test_a_limited_build_names_only_the_smoke_scenarios_it_holds(tmp_path):
    names = [s["name"] for s in build_pack(tmp_path, "--limit", "3")]
    written = manifest(tmp_path)
    assert written["smoke"] == [n for n in PUBLISHED_SMOKE if n in names] == ["DEF.SUSPENDED_SENTENCE - domv901_d1"]
    assert "smoke_missing" not in written


def test_a_smoke_task_the_track_lacks_is_noted_and_the_others_named(tmp_path):
    root = copy_source(tmp_path)
    published = json.loads((root / SMOKE_FILE).read_text(encoding="utf-8"))
    (root / SMOKE_FILE).write_text(json.dumps(published + [{"name": "Q.GONE - domv999"}]), encoding="utf-8")
    build_pack(tmp_path, source=root)
    written = manifest(tmp_path)
    assert written["smoke"] == PUBLISHED_SMOKE
    assert written["smoke_missing"] == ["smoke task domv999::Q.GONE: not an eligible task of this track"]


def test_a_smoke_question_not_found_by_content_is_noted_by_a_full_build(tmp_path):
    root = copy_source(tmp_path, smoke=False)
    write_rows(root, "tasks", [t for t in rows("tasks") if t["question_id"] != "VIC.PRESENT_AT_HEARING"])
    build_pack(tmp_path, source=root)
    written = manifest(tmp_path)
    assert written["smoke"] == ["GUILTY.VERDICT - domv901", "DEF.SUSPENDED_SENTENCE - domv901_d1"]
    (missing,) = written["smoke_missing"]
    assert missing.startswith("smoke question '") and "no eligible question of the tasks asks it" in missing


def test_the_manifest_names_the_builder_the_smoke_filter_and_the_read_report(tmp_path):
    build_pack(tmp_path, "--smoke")
    written = manifest(tmp_path)
    assert written["builder"]["name"] == "iustitia" and written["filters"]["smoke"] is True
    assert [table["table"] for table in written["read_report"]["tables"]] == ["tasks", "documents", "units",
                                                                            "questions"]


def test_a_task_without_a_unit_type_is_counted_as_unknown(tmp_path):
    root = copy_source(tmp_path)
    write_rows(root, "tasks", [{k: v for k, v in t.items() if k != "unit_type"} for t in rows("tasks")])
    build_pack(tmp_path, source=root)
    assert manifest(tmp_path)["counts"]["unit_type"] == {"unknown": 15}


def smoke_of_two(tmp_path):
    """A source whose published smoke pack has two of the three smoke scenarios."""
    root = copy_source(tmp_path)
    published = json.loads((root / SMOKE_FILE).read_text(encoding="utf-8"))
    (root / SMOKE_FILE).write_text(json.dumps(published[:2]), encoding="utf-8")
    return root


def without_a_smoke_question(tmp_path):
    """A source without a smoke pack whose tasks never ask whether the victim was present."""
    root = copy_source(tmp_path, smoke=False)
    write_rows(root, "tasks", [t for t in rows("tasks") if t["question_id"] != "VIC.PRESENT_AT_HEARING"])
    return root


SMOKE_NOTE = "iustitia --smoke: asked for 3 scenarios, the selection has 2"
LIMIT_NOTE = "iustitia --limit 99: asked for 99 scenarios, the selection has 15"


@pytest.mark.parametrize("source, argv, refused, noted, kept", [
    (smoke_of_two, ("--smoke",), f"{SMOKE_NOTE} (--allow-fewer accepts fewer)", f"{SMOKE_NOTE}; going on with 2", 2),
    (without_a_smoke_question, ("--smoke",), "smoke question '", f"{SMOKE_NOTE}; going on with 2", 2),
    (copy_source, ("--limit", "99"), f"{LIMIT_NOTE} (--allow-fewer accepts fewer)", f"{LIMIT_NOTE}; going on with 15",
     15),
])
def test_fewer_scenarios_than_asked_are_refused_unless_allowed_and_then_noted(tmp_path, capsys, source, argv,
                                                                               refused, noted, kept):
    root = source(tmp_path)
    with pytest.raises(PackError) as err:
        build_pack(tmp_path, *argv, source=root)
    assert str(err.value).startswith(refused)
    assert len(build_pack(tmp_path, *argv, "--allow-fewer", source=root)) == kept
    assert capsys.readouterr().err == f"note: {noted} (--allow-fewer)\n"


def test_allow_partial_reads_a_copy_with_fewer_rows_than_it_declares(tmp_path):
    root = copy_source(tmp_path)
    _declare(root, {"tasks": len(rows("tasks")) + 5})
    with pytest.raises(PackError, match="--allow-partial reads on and records it$"):
        build_pack(tmp_path, source=root)
    assert len(build_pack(tmp_path, "--allow-partial", source=root)) == 15


@pytest.mark.parametrize("argv, declared", [(("--limit", "99"), 0), ((), 5)])
def test_a_namespace_without_the_allow_options_allows_neither(tmp_path, argv, declared):
    root = copy_source(tmp_path)
    if declared:
        _declare(root, {"tasks": len(rows("tasks")) + declared})
    args = build_args(root, tmp_path / "pack.json", *argv)
    del args.allow_fewer, args.allow_partial
    with pytest.raises(PackError, match=r"\(--allow-fewer accepts fewer\)$|--allow-partial reads on"):
        build(args)
