"""The jacite builder: question replay, pack contents, manifest, bad sources."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from auditpacks.packs.checks import ERROR, check_pack
from auditpacks.core.io import sha256_file
from auditpacks.packs.pack import load_pack
from auditpacks.runner.cli.main import main
from tests.support import paths

FIXTURES = paths.FIXTURES / "jacite"


@pytest.fixture(scope="module")
def bundled_pack(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("jacite") / "jacite.json"
    assert main(["build", "jacite", "--out", str(out)]) == 0
    return out


def test_bundled_registry_replays_jacite_question_generation(bundled_pack):
    pack = load_pack(bundled_pack, require_manifest=True)
    meta = [s["metadata"] for s in pack.scenarios]
    assert len(meta) == 600
    assert [m["language"] for m in meta[:4]] == ["ja", "en", "ja", "en"]
    assert [m["question_id"] for m in meta[:2]] == ["q0000", "q0001"]
    assert meta[0]["article"] == "第一条" and meta[-1]["article"] == "第三百五十八条"
    for language in ("ja", "en"):
        branch = [m for m in meta if m["language"] == language and "-" in m["gold_article"]]
        assert len(branch) == 20
    assert pack.scenarios[0]["test_prompt"].startswith("【民法】第一条")
    assert pack.scenarios[1]["test_prompt"].count("Article 1 of the Civil Code") == 1


def test_bundled_pack_passes_the_checker_with_unique_names(bundled_pack):
    scenarios = json.loads(bundled_pack.read_text())
    assert not [f for f in check_pack(scenarios) if f.level == ERROR]
    assert len({s["name"] for s in scenarios}) == len(scenarios)
    assert main(["check", str(bundled_pack)]) == 0


def test_manifest_records_sources_counts_registry_and_smoke(bundled_pack):
    manifest = json.loads(bundled_pack.with_name("jacite.manifest.json").read_text())
    assert manifest["sha256"] == sha256_file(bundled_pack)
    assert manifest["sources"][0]["sha256"] == "58b5cae27232671d5afa0497f521b973d86b8d0c65b418acf717f4b18b127201"
    assert manifest["counts"]["language"] == {"en": 300, "ja": 300}
    law = manifest["grading"]["registry"]["129AC0000000089"]
    assert len(law["upstream_ids"]) == 1171 and "541" in law["ids"] and "208" in law["deleted"]
    assert len(manifest["smoke"]) == 3


def test_same_registry_same_pack(bundled_pack, tmp_path):
    again = tmp_path / "again.json"
    assert main(["build", "jacite", "--out", str(again)]) == 0
    assert sha256_file(again) == sha256_file(bundled_pack)


def test_local_source_uses_questions_json_as_is(tmp_path):
    out = tmp_path / "local.json"
    assert main(["build", "jacite", "--source", str(FIXTURES), "--out", str(out)]) == 0
    questions = json.loads((FIXTURES / "questions.json").read_text())
    pack = load_pack(out)
    assert [s["test_prompt"] for s in pack.scenarios] == [q["question"] for q in questions]
    assert [s["metadata"]["gold_article"] for s in pack.scenarios] == [q["gold_article"] for q in questions]
    assert {entry["name"] for entry in pack.manifest["sources"]} == {"registry.json", "questions.json"}


def test_local_registry_without_questions_generates_them(tmp_path):
    source = tmp_path / "src"
    source.mkdir()
    (source / "registry.json").write_bytes((FIXTURES / "registry.json").read_bytes())
    out = tmp_path / "gen.json"
    assert main(["build", "jacite", "--source", str(source), "--out", str(out), "--language", "en"]) == 0
    pack = load_pack(out)
    golds = [s["metadata"]["gold_article"] for s in pack.scenarios]
    assert golds and all(s["language"] == "en" for s in pack.scenarios)
    assert "38" not in golds  # a deleted range heading has no caption: no question


def test_malformed_registry_entry_is_one_line_and_writes_nothing(tmp_path, capsys):
    source = tmp_path / "bad"
    source.mkdir()
    registry = json.loads((FIXTURES / "registry.json").read_text())
    registry["laws"][0]["articles"][2]["article"] = 17
    (source / "registry.json").write_text(json.dumps(registry, ensure_ascii=False))
    out = tmp_path / "out" / "bad.json"
    assert main(["build", "jacite", "--source", str(source), "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert err == ("auditpacks: error: registry.json: law 129AC0000000089 article #2 field 'article' "
                   "is missing or not a string")
    assert not out.parent.exists() or not any(out.parent.iterdir())


def _clone(tmp_path, questions: bool = True) -> Path:
    """A clone of the benchmark's GitHub repository: code at the top, the data under data/."""
    clone = tmp_path / "jacite-bench"
    (clone / "data" / "results").mkdir(parents=True)
    (clone / "src" / "jacite").mkdir(parents=True)
    (clone / "README.md").write_text("# jacite-bench\n")
    (clone / "pyproject.toml").write_text("[project]\nname = 'jacite'\n")
    (clone / "data" / "registry.json").write_bytes((FIXTURES / "registry.json").read_bytes())
    if questions:
        (clone / "data" / "questions.json").write_bytes((FIXTURES / "questions.json").read_bytes())
    (clone / "data" / "results" / "benchmark.json").write_bytes((FIXTURES / "benchmark.json").read_bytes())
    return clone


def test_a_clone_of_the_repository_builds_the_same_pack_as_the_hf_layout(tmp_path):
    hf, clone = tmp_path / "hf.json", tmp_path / "clone.json"
    assert main(["build", "jacite", "--source", str(FIXTURES), "--out", str(hf)]) == 0
    assert main(["build", "jacite", "--source", str(_clone(tmp_path)), "--out", str(clone)]) == 0
    assert clone.read_bytes() == hf.read_bytes()
    assert len(load_pack(clone).scenarios) == 8  # the fixture's 8 questions, none dropped
    names = {entry["name"] for entry in load_pack(clone).manifest["sources"]}
    assert names == {"data/registry.json", "data/questions.json"}


def test_the_file_is_chosen_by_content(tmp_path):
    clone = _clone(tmp_path)
    (clone / "registry.json").write_text('{"note": "not a registry"}')  # a stray file at the top
    out = tmp_path / "pack.json"
    assert main(["build", "jacite", "--source", str(clone), "--out", str(out)]) == 0
    assert {e["name"] for e in load_pack(out).manifest["sources"]} == {"data/registry.json", "data/questions.json"}


def test_a_folder_without_the_data_says_where_it_looked(tmp_path, capsys):
    empty = tmp_path / "checkout"
    empty.mkdir()
    (empty / "README.md").write_text("# jacite-bench\n")  # a clone without data/, which git ignores
    out = tmp_path / "out.json"
    assert main(["build", "jacite", "--source", str(empty), "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0
    assert f"registry.json: not found in {empty}" in err
    assert "registry.json (absent), data/registry.json (absent)" in err
    assert not out.exists()


def test_a_limit_over_the_questions_is_refused_unless_accepted(tmp_path, capsys):
    out = tmp_path / "pack.json"
    assert main(["build", "jacite", "--source", str(FIXTURES), "--limit", "9", "--out", str(out)]) == 2
    assert "jacite --limit 9: asked for 9 scenarios, the selection has 8" in capsys.readouterr().err
    assert not out.exists()
    assert main(["build", "jacite", "--source", str(FIXTURES), "--limit", "9", "--allow-fewer", "--out", str(out)]) == 0
    assert len(load_pack(out).scenarios) == 8
