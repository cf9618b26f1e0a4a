"""Builder: pack from the fixture dataset, prompt layout, manifest, strict source reading, fixture sanity."""

from __future__ import annotations

import argparse
import csv
import json
import shutil
from pathlib import Path

import pytest
from auditpacks.packs.checks import ERROR, check_pack
from auditpacks.packs.codebook import section
from auditpacks.packs.icj import builder as icj
from auditpacks.packs.pack import load_pack
from auditpacks.packs.sources import Source

from auditpacks.core.errors import PackError
from auditpacks.core.registry import BENCHMARKS
from tests.support.paths import FIXTURES

FIX = FIXTURES / "icj"
SYSTEM = (FIX / "protocol" / "system_prompt.txt").read_text().strip()


def build(source, out, *extra):
    parser = argparse.ArgumentParser()
    icj.add_arguments(parser)
    return icj.build(parser.parse_args(["--source", str(source), "--out", str(out), *extra]))


@pytest.fixture  # built for each test that reads it, so that mutation testing knows each test runs the build
def pack(tmp_path):
    return load_pack(build(FIX, tmp_path / "pack" / "icj.json"), require_manifest=True)


def test_registered():
    assert BENCHMARKS["icj"].builder == "auditpacks.packs.icj.builder"


def test_pack_passes_checks(pack):
    assert len(pack.scenarios) == 5
    assert [f for f in check_pack(pack.scenarios) if f.level == ERROR] == []
    for s in pack.scenarios:
        assert (s["category"], s["subcategory"], s["language"]) == ("System Integrity", "Hallucination", "en")
        assert 3 <= len(s["expected_behavior"]) <= 7
        assert "judge_notes" not in s["metadata"]


def test_scenario_fields(pack):
    s = pack.scenarios[0]
    assert s["name"] == "ICJ 001 - Precedent citations, parametric [ICJ_001_CorfuChannel_GBR_ALB_1949-12-15_JUD_01_CO_00_EN]"
    meta = s["metadata"]
    assert {k: meta[k] for k in ("case_id", "target_decision_date", "cutoff_date", "condition", "case_type")} == {
        "case_id": "001", "target_decision_date": "1949-12-15", "cutoff_date": "1949-12-15",
        "condition": "parametric", "case_type": "contentious"}
    assert meta["gold_citation_case_ids"] == [] and meta["gold_citation_resolution_symbols"] == []
    assert meta["gold_citation_provision_keys"] == [
        "rules:article_68", "statute:article_48", "statute:article_50", "statute:article_53", "statute:article_57"]
    assert "statute:article_48, statute:article_50" in s["expected_behavior"][2]
    assert "reference list is empty" in s["expected_behavior"][1]


def test_system_and_user_messages_keep_their_roles(pack):
    record = json.loads((FIX / "data" / "inputs.jsonl").read_text().splitlines()[3])
    system, user = (m["content"] for m in record["messages"])
    s = pack.scenarios[3]
    assert s["test_prompt"] == user and s["metadata"]["system_prompt"] == system  # sent as the system turn
    assert system not in s["test_prompt"]
    assert "053" not in s["test_prompt"] and "S/RES/1515" not in s["test_prompt"]  # no gold in the prompt
    assert "S/RES/1515(2003)" in s["expected_behavior"][3]


def test_manifest(pack):
    m = pack.manifest
    assert m["builder"]["name"] == "icj" and m["counts"]["scenarios"] == 5
    assert m["counts"]["case_type"] == {"advisory": 3, "contentious": 2}
    assert m["grading"] == {"judge": "citations", "pass_f1": 0.5}
    assert m["smoke"] == [s["name"] for s in pack.scenarios[:3]]
    assert [e["name"] for e in m["sources"]] == ["data/inputs.jsonl", "data/test.jsonl", "manifest.json"]
    assert all(e["origin"] == "local" and len(e["sha256"]) == 64 for e in m["sources"])
    text = json.dumps(m)  # no machine paths: neither the source folder nor the output folder
    assert str(FIX.parent) not in text and str(pack.path.parent) not in text
    assert not any(Path(e["name"]).is_absolute() for e in m["sources"])


def test_build_is_deterministic_and_limited(tmp_path, pack):
    again = build(FIX, tmp_path / "again.json")
    assert again.read_bytes() == pack.path.read_bytes()
    limited = load_pack(build(FIX, tmp_path / "two.json", "--limit", "2"))
    assert [s["name"] for s in limited.scenarios] == [s["name"] for s in pack.scenarios[:2]]
    assert limited.manifest["smoke"] == [s["name"] for s in limited.scenarios]
    assert limited.manifest["filters"] == {"limit": 2, "condition": "parametric"}


def copy_source(tmp_path, drop_messages=False, drop_protocol=False):
    src = tmp_path / "src"
    shutil.copytree(FIX, src, ignore=shutil.ignore_patterns("bad", "results", "cd-icj"))
    if drop_messages:
        path = src / "data" / "inputs.jsonl"
        rows = [json.loads(line) for line in path.read_text().splitlines()]
        path.write_text("".join(json.dumps({k: v for k, v in r.items() if k != "messages"}) + "\n" for r in rows))
    if drop_protocol:
        shutil.rmtree(src / "protocol")
    return src


def test_renders_input_with_protocol_system_prompt(tmp_path):
    out = load_pack(build(copy_source(tmp_path, drop_messages=True), tmp_path / "p.json"))
    prompt = out.scenarios[2]["test_prompt"]
    assert out.scenarios[2]["metadata"]["system_prompt"] == SYSTEM
    assert out.manifest["run"]["system_prompt"] == SYSTEM  # one for all: also simpleaudit's run-level setting
    assert prompt.startswith("Case description (JSON):\n{\n  \"applicant\": \"Nicaragua\",")
    assert "cite in\nits decision of 1986-06-27 in this case?" in prompt
    assert '{"citation_case_ids": [...], "citation_provision_keys": [...], "citation_resolution_symbols": [...]}' in prompt
    assert "protocol/system_prompt.txt" in [e["name"] for e in out.manifest["sources"]]


def test_renders_with_codebook_system_prompt_without_protocol(tmp_path):
    out = load_pack(build(copy_source(tmp_path, drop_messages=True, drop_protocol=True), tmp_path / "p.json"))
    assert out.scenarios[0]["metadata"]["system_prompt"] == section("icj")["system_prompt"].strip()
    assert out.scenarios[0]["test_prompt"].startswith("Case description (JSON):")


def rewrite(path, index, **change):
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    rows[index].update(change)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


@pytest.mark.parametrize("change,message", [
    ({"target_document_id": "ICJ_999_X"}, r"^inputs\.jsonl line 2: target_document_id 'ICJ_999_X' is not a target"),
    ({"case_id": "004"}, r"^inputs\.jsonl line 2 \(ICJ_003_\S+\): case_id '004' does not match the test file \(003\)$"),
    ({"messages": [{"role": "assistant", "content": "x"}]}, r"line 2 \(ICJ_003_\S+\): messages\[0\]\.role is 'assistant'"),
    ({"messages": "hello"}, r"line 2 \(ICJ_003_\S+\): field messages is not a non-empty list$"),
    ({"input": ["not", "an", "object"]}, r"line 2 \(ICJ_003_\S+\): field input is not a JSON object$"),
])
def test_rejects_bad_inputs(tmp_path, change, message):
    src = copy_source(tmp_path)
    rewrite(src / "data" / "inputs.jsonl", 1, **change)
    out = tmp_path / "p.json"
    with pytest.raises(PackError, match=message):
        build(src, out)
    assert not out.exists() and not out.with_name("p.manifest.json").exists()


def test_rejects_target_without_input(tmp_path):
    src = copy_source(tmp_path)
    path = src / "data" / "inputs.jsonl"
    path.write_text("".join(path.read_text().splitlines(keepends=True)[:4]))
    with pytest.raises(PackError, match=r"^inputs\.jsonl: 1 test targets have no input \(first: ICJ_187_"):
        build(src, tmp_path / "p.json")


@pytest.mark.parametrize("bad", ["test_missing_gold.jsonl", "test_duplicate_target.jsonl", "test_bad_date.jsonl"])
def test_rejects_bad_test_file(tmp_path, bad):
    src = copy_source(tmp_path)
    shutil.copy(FIX / "bad" / bad, src / "data" / "test.jsonl")
    with pytest.raises(PackError, match=r"^test\.jsonl line \d"):
        build(src, tmp_path / "p.json")


def test_rejects_missing_files_and_bad_limit(tmp_path):
    with pytest.raises(PackError, match="data/inputs.jsonl not found"):
        build(tmp_path, tmp_path / "p.json")
    with pytest.raises(PackError, match="--limit 0"):
        build(FIX, tmp_path / "p.json", "--limit", "0")


def test_scenario_name_round_trip():
    name = icj.scenario_name("187", "parametric", "ICJ_187_2025-07-23_ADV_EN")
    assert icj.parse_scenario_name(name) == {
        "case_id": "187", "condition": "parametric", "target_document_id": "ICJ_187_2025-07-23_ADV_EN"}
    assert icj.parse_scenario_name("Civil Code Article 1 (ja) - Statute citation grounding [q0000]") is None


def test_fixture_ids_follow_cd_icj():
    """CD-ICJ-style target ids agree with the copied CD-ICJ tables; gold case ids are real case numbers."""
    with open(FIX / "cd-icj" / "CD-ICJ_Source_CaseNames.csv", newline="") as fh:
        short = {int(r["caseno"]): r["casename_short"] for r in csv.DictReader(fh)}
    with open(FIX / "cd-icj" / "CD-ICJ_Source_Stages_Filenames.csv", newline="") as fh:
        stages = {r["old"]: r["new"] for r in csv.DictReader(fh)}
    rows = [json.loads(line) for line in (FIX / "data" / "test.jsonl").read_text().splitlines()]
    for row in rows:
        date, doc = row["target_decision_date"][:10], row["target_document_id"]
        assert 25 <= len(doc) <= 83
        for gold in ("gold_citation_case_ids", "gold_citation_provision_keys", "gold_citation_resolution_symbols"):
            assert row[gold] == sorted(row[gold])
        assert all(int(c) in short for c in row["gold_citation_case_ids"])
        if len(doc) < 40:  # the short, non-CD-ICJ scheme
            continue
        kind = "ADV" if row["input"]["case_type"] == "advisory" else "JUD"
        stage = "NA" if kind == "ADV" else stages[f"{date}_JUD_01"].rsplit("_", 1)[1]
        assert doc == f"ICJ_{row['case_id']}_{short[int(row['case_id'])]}_{date}_{kind}_01_{stage}_00_EN"
    assert sum(len(r["target_document_id"]) < 40 for r in rows) == 1


def test_hf_source_is_resolved_with_the_card_layout(tmp_path, monkeypatch):
    calls = []

    def fake_resolve(spec, *, allow_patterns=None):
        calls.append((spec, allow_patterns))
        return Source(root=FIX, origin="hf:VISAI-AI/icj-precedent-cite-bench@0123abcd")

    monkeypatch.setattr(icj, "resolve_source", fake_resolve)
    out = load_pack(build("hf:VISAI-AI/icj-precedent-cite-bench", tmp_path / "p.json"))
    assert calls == [("hf:VISAI-AI/icj-precedent-cite-bench", ["data/*", "protocol/*", "manifest.json", "SHA256SUMS"])]
    assert {e["origin"] for e in out.manifest["sources"]} == {"hf:VISAI-AI/icj-precedent-cite-bench@0123abcd"}


def test_a_limit_over_the_targets_is_refused_unless_accepted(tmp_path, capsys):
    from auditpacks.runner.cli.main import main

    out = tmp_path / "icj.json"
    assert main(["build", "icj", "--source", str(FIXTURES / "icj"), "--limit", "999", "--out", str(out)]) == 2
    assert "icj --limit 999: asked for 999 scenarios, the selection has" in capsys.readouterr().err
    assert not out.exists()


def test_plain_text_messages_that_differ_per_target_keep_their_roles(tmp_path):
    src = copy_source(tmp_path)
    path = src / "data" / "inputs.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    for i, row in enumerate(rows):  # another layout the card allows: system/user text fields, one system each
        system, user = (m["content"] for m in row.pop("messages"))
        row.update(system_prompt=f"{system} (variant {i})", user_prompt=user)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = load_pack(build(src, tmp_path / "p.json"))
    assert [s["metadata"]["system_prompt"] for s in out.scenarios] == [r["system_prompt"] for r in rows]
    assert [s["test_prompt"] for s in out.scenarios] == [r["user_prompt"] for r in rows]
    assert "system_prompt" not in out.manifest["run"]  # no one system prompt for the whole run
