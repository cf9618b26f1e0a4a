"""The jacite builder's build() in process: the manifest's blocks, its read report, and the command's options."""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

import pytest

from auditpacks.core.errors import PackError
from auditpacks.packs.codebook import section
from auditpacks.packs.jacite import builder
from auditpacks.packs.pack import load_pack
from auditpacks.packs.sources import Source
from tests.support import paths

FIXTURES = paths.FIXTURES / "jacite"
CIVIL = "129AC0000000089"
#: the fixture registry's 民法 titles read by jacite-bench's rules (第三十八条から第八十四条まで gives its first)
FIXTURE_UPSTREAM = ["1", "2", "3", "3-2", "4", "30", "31", "38", "208", "398-2", "516", "541", "542"]


def _build(tmp_path, **options):
    args = argparse.Namespace(**{"source": None, "language": None, "limit": None, "out": tmp_path / "p.json",
                                 **options})
    out = builder.build(args)
    return load_pack(out)


def test_a_source_pack_carries_the_used_laws_registry_and_the_codebooks_settings(tmp_path):
    pack = _build(tmp_path, source=str(FIXTURES))
    manifest, book = pack.manifest, section("jacite")
    assert manifest["builder"]["name"] == "jacite"
    assert manifest["filters"] == {"language": None, "limit": None}
    assert manifest["counts"]["language"] == {"en": 4, "ja": 4} and manifest["counts"]["law"] == {CIVIL: 8}
    assert manifest["grading"]["judge"] == "grounding"
    assert list(manifest["grading"]["registry"]) == [CIVIL]  # 刑法 and 地方自治法 are asked about by no question
    assert manifest["grading"]["registry"][CIVIL]["upstream_ids"] == FIXTURE_UPSTREAM
    assert manifest["smoke"] == [pack.scenarios[0]["name"], pack.scenarios[1]["name"]]
    assert (manifest["run"], manifest["answer"]) == (book["run"], book["answer"])
    assert manifest["questions"] == "questions.json"
    assert [t["table"] for t in manifest["read_report"]["tables"]] == ["registry", "questions"]


def test_the_bundled_pack_says_its_questions_are_generated_and_quotes_each_article(tmp_path):
    pack = _build(tmp_path, language="ja", limit=2)
    assert pack.manifest["filters"] == {"language": "ja", "limit": 2}
    assert pack.manifest["questions"] == "generated (seed 42, 300 per language)"
    assert "read_report" not in pack.manifest
    notes = pack.scenarios[0]["metadata"]["judge_notes"]
    assert notes[1].startswith("Its text in the registry: 私権は、公共の福祉に適合しなければならない。")


def test_questions_from_several_files_are_listed_in_the_manifest(tmp_path):
    root = tmp_path / "src"
    root.mkdir()
    shutil.copy(FIXTURES / "registry.json", root / "registry.json")
    questions = json.loads((FIXTURES / "questions.json").read_text(encoding="utf-8"))
    for part, rows in enumerate((questions[:3], questions[3:])):
        lines = "".join(json.dumps(q, ensure_ascii=False) + "\n" for q in rows)
        (root / f"questions-0000{part}-of-00002.jsonl").write_text(lines, encoding="utf-8")
    pack = _build(tmp_path, source=str(root))
    assert pack.manifest["questions"] == "questions-00000-of-00002.jsonl, questions-00001-of-00002.jsonl"


def test_questions_may_name_their_law_in_english(tmp_path):
    root = tmp_path / "src"
    root.mkdir()
    shutil.copy(FIXTURES / "registry.json", root / "registry.json")
    (root / "questions.jsonl").write_text(json.dumps({"question": "What does Article 199 of the Penal Code say?",
                                                      "law": "Penal Code", "gold_article": "199"}) + "\n")
    pack = _build(tmp_path, source=str(root))
    assert pack.scenarios[0]["metadata"]["law_id"] == "140AC0000000045"
    assert pack.scenarios[0]["name"].startswith("Penal Code Article 199 (en)")


def test_a_copy_short_of_its_declared_questions_is_refused_unless_partial_reads_are_allowed(tmp_path):
    root = tmp_path / "src"
    shutil.copytree(FIXTURES, root)
    (root / "manifest.json").write_text('{"counts": {"questions": 9}}', encoding="utf-8")
    with pytest.raises(PackError, match=r"^questions\.json: read 8 rows, manifest\.json declares 9 for questions"):
        _build(tmp_path, source=str(root))
    assert not (tmp_path / "p.json").exists()
    pack = _build(tmp_path, source=str(root), allow_partial=True)
    assert pack.manifest["read_report"]["warnings"] == ["questions.json: read 8 rows, manifest.json declares 9 "
                                                        "for questions"]


def test_a_hub_source_asks_only_for_the_data_files(tmp_path, monkeypatch):
    asked = []

    def resolve(spec, *, allow_patterns=None):
        asked.append((spec, allow_patterns))
        return Source(root=FIXTURES, origin=spec)

    monkeypatch.setattr(builder, "resolve_source", resolve)
    pack = _build(tmp_path, source="hf:raihan-js/jacite-bench")
    assert asked == [("hf:raihan-js/jacite-bench", ["*.json", "*.jsonl", "*.parquet"])]
    assert {e["origin"] for e in pack.manifest["sources"]} == {"hf:raihan-js/jacite-bench"}


def _parser():
    parser = argparse.ArgumentParser(prog="build jacite")
    builder.add_arguments(parser)
    return parser


def test_the_options_parse_to_their_types():
    args = _parser().parse_args(["--out", "p.json", "--language", "en", "--limit", "3", "--allow-fewer"])
    assert (args.out, args.language, args.limit, args.allow_fewer, args.source) == (Path("p.json"), "en", 3, True, None)


@pytest.mark.parametrize("argv, error", [
    ([], "the following arguments are required: --out"),
    (["--out", "p.json", "--language", "JA"], "argument --language: invalid choice: 'JA' (choose from 'ja', 'en')"),
])
def test_bad_options_are_refused(capsys, argv, error):
    with pytest.raises(SystemExit):
        _parser().parse_args(argv)
    assert error in capsys.readouterr().err


@pytest.mark.parametrize("option, help_text", [
    ("--out OUT", "PACK.json to write"),
    ("--source SOURCE", "local jacite-bench copy or hf:raihan-js/jacite-bench (default: the bundled 民法 registry)"),
    ("--language {ja,en}", "only questions in this language"),
    ("--limit LIMIT", "only the first N questions (after the language filter)"),
    ("--allow-fewer", "accept fewer scenarios than --limit asks for (noted; by default refused)"),
])
def test_the_help_says_what_each_option_does(option, help_text):
    text = " ".join(_parser().format_help().split())
    assert f"{option} {help_text}" in text
