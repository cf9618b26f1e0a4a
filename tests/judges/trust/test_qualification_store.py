"""Where a judge's qualification is kept: one file per judge identity and benchmark, found again only by the same
identity and benchmark, and the summary's one line for it."""

from __future__ import annotations

import hashlib
import json

import pytest

from auditpacks.judges.trust import qualification_store as store

pytestmark = pytest.mark.quick

JUDGE = {"model": "qwen3:8b", "provider": "ollama", "base_url": "http://gpu1:11434", "api_key": "sk-secret"}


def test_the_file_is_named_by_the_model_and_a_hash_of_the_identity_never_the_key():
    who = {"model": "qwen3:8b", "provider": "ollama", "base_url": "http://gpu1:11434"}
    digest = hashlib.sha256(json.dumps(who, sort_keys=True).encode()).hexdigest()[:8]
    assert store.file_name(JUDGE, "jacite") == f"qwen3_8b-{digest}.jacite.qualification.json"
    assert store.identity(JUDGE) == who
    assert store.file_name({**JUDGE, "base_url": "http://gpu2:11434"}, "jacite") != store.file_name(JUDGE, "jacite")
    assert store.file_name({"model": "///"}, "icj").startswith("judge-")


def test_saved_then_found_by_the_same_identity_and_benchmark_only(tmp_path):
    path = store.save(tmp_path / "judges", JUDGE, "jacite", {"qualified": True, "created": "2026-12-01"})
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data == {"qualification_version": 1, "judge": store.identity(JUDGE), "benchmark": "jacite",
                    "qualified": True, "created": "2026-12-01"}
    assert "sk-secret" not in path.read_text(encoding="utf-8")
    found = store.find(tmp_path / "judges", {**JUDGE, "api_key": "other"}, "jacite")
    assert found == {**data, "file": path.name}
    assert store.find(tmp_path / "judges", JUDGE, "icj") is None
    assert store.find(tmp_path / "judges", {**JUDGE, "provider": "openai"}, "jacite") is None
    assert store.find(tmp_path / "nowhere", JUDGE, "jacite") is None


def test_a_file_of_another_judge_or_benchmark_under_this_name_is_not_taken(tmp_path):
    path = tmp_path / store.file_name(JUDGE, "jacite")
    path.write_text(json.dumps({"judge": {**store.identity(JUDGE), "model": "other"}, "benchmark": "jacite"}))
    assert store.find(tmp_path, JUDGE, "jacite") is None
    path.write_text(json.dumps({"judge": store.identity(JUDGE), "benchmark": "icj"}))
    assert store.find(tmp_path, JUDGE, "jacite") is None
    path.write_text(json.dumps(["not", "an", "object"]))
    assert store.find(tmp_path, JUDGE, "jacite") is None


@pytest.mark.parametrize("benchmark, found, line", [
    (None, None, "judge qwen3:8b: unchecked (the pack names no benchmark with calibration items)"),
    ("jacite", None, "judge qwen3:8b: unchecked on jacite (run `auditpacks judge-check` to qualify it)"),
    ("jacite", {"qualified": True, "file": "f.json", "created": "2026-12-01"},
     "judge qwen3:8b: qualified on jacite (f.json, 2026-12-01)"),
    ("jacite", {"qualified": True, "file": "f.json", "created": "d", "not_measured": ["bias", "drift"]},
     "judge qwen3:8b: qualified on jacite (f.json, d); not measured: bias; drift"),
    ("icj", {"qualified": False}, "judge qwen3:8b: NOT qualified on icj: below the bar"),
    ("icj", {"qualified": False, "reasons": ["kappa 0.31 < 0.6"]}, "judge qwen3:8b: NOT qualified on icj: kappa 0.31 < 0.6"),
    ("icj", {"qualified": False, "reasons": ["a", "b", "c"]}, "judge qwen3:8b: NOT qualified on icj: a (and 2 more)"),
])
def test_the_summary_line_says_qualified_not_qualified_or_unchecked(benchmark, found, line):
    assert store.status_line(benchmark, JUDGE, found) == line


def test_the_model_part_of_the_name_keeps_capitals_and_only_loses_underscores_at_its_ends():
    assert store.file_name({"model": "Qwen3-8B"}, "icj").startswith("Qwen3-8B-")
    assert store.file_name({"model": "X ray X"}, "icj").startswith("X_ray_X-")
    assert store.file_name({"model": "/org/llama:3"}, "icj").startswith("org_llama_3-")


def test_a_qualified_line_without_a_date_and_a_second_reason():
    assert store.status_line("icj", JUDGE, {"qualified": True, "file": "f.json"}) == \
        "judge qwen3:8b: qualified on icj (f.json, )"
    assert store.status_line("icj", JUDGE, {"qualified": False, "reasons": ["a", "b"]}) == \
        "judge qwen3:8b: NOT qualified on icj: a (and 1 more)"
