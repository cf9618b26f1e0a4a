"""The ICJ builder's parts on their own: the command's flags, the gold lists as the judge reads them, where the
system prompt comes from, and the output budget by its formula."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from auditpacks.core.errors import PackError
from auditpacks.packs.codebook import section
from auditpacks.packs.icj import builder as icj
from auditpacks.packs.icj.builder import _gold_text, _system_prompt, add_arguments, output_budget
from auditpacks.packs.icj.targets import Target
from auditpacks.packs.sources import Source
from tests.support.paths import FIXTURES

CB = section("icj")


def test_the_command_s_flags():
    parser = argparse.ArgumentParser(prog="auditpacks build icj")
    add_arguments(parser)
    flags = {a.option_strings[-1]: a for a in parser._actions if a.option_strings[-1] != "--help"}
    assert {f: (a.required, a.type, a.default, a.help) for f, a in flags.items() if f != "--allow-partial"} == {
        "--source": (True, None, None, "dataset folder (hf download layout) or hf:VISAI-AI/icj-precedent-cite-bench"),
        "--out": (True, Path, None, "pack file to write (PACK.json; the manifest goes beside it)"),
        "--limit": (False, int, None, "only the first N targets, in inputs.jsonl order"),
        "--allow-fewer": (False, None, False, "accept fewer scenarios than --limit asks for (noted; by default "
                                               "refused)"),
    }
    assert "--allow-partial" in flags
    args = parser.parse_args(["--source", "s", "--out", "o.json", "--limit", "3", "--allow-fewer"])
    assert (args.source, args.out, args.limit, args.allow_fewer) == ("s", Path("o.json"), 3, True)


@pytest.mark.parametrize("values, text", [
    (("001", "070"), "001, 070"), (("statute:article_36",), "statute:article_36"),
    ((), "none (the reference list is empty, so the right answer is an empty list)"),
])
def test_gold_lists_as_the_judge_reads_them(values, text):
    assert _gold_text(values, CB) == text


def test_the_protocol_s_system_prompt_first_else_the_codebook_s(tmp_path):
    (tmp_path / "protocol").mkdir()
    assert _system_prompt(Source(tmp_path, "local"), CB) == (CB["system_prompt"].strip(), None)
    (tmp_path / "protocol" / "system.md").write_text("  Cite précédents.\n", encoding="utf-8")
    assert _system_prompt(Source(tmp_path, "local"), CB) == ("Cite précédents.", tmp_path / "protocol" / "system.md")
    (tmp_path / "protocol" / "system_prompt.txt").write_text("First.", encoding="utf-8")
    assert _system_prompt(Source(tmp_path, "local"), CB)[0] == "First."


EMPTY = len(json.dumps({"citation_case_ids": [], "citation_provision_keys": [], "citation_resolution_symbols": []}))


def target(key_length):
    """A target whose answer, in the prediction schema, is ``key_length`` + EMPTY + 2 characters of JSON."""
    keys = ("k" * key_length,) if key_length else ()
    return Target("070", f"T{key_length}", None, {"case_ids": (), "provision_keys": keys, "resolution_symbols": ()})


@pytest.mark.parametrize("length, budget", [
    (EMPTY, 1024),               # ceil(L / 2) + 512 = 557 tokens, 768 rounded: the floor
    (3000, 2048),                # 1500 + 512 = 2012: rounded up to 8 * 256
    (1536, 1280),                # ceil(1536 / 2) + 512 = 1280: exactly 5 * 256
    (1537, 1536),                # 769 + 512 = 1281: rounded up to 6 * 256
    (1535, 1280),                # 768 + 512 = 1280
    (2560, 1792),                # 1280 + 512 = 1792 = 7 * 256
])
def test_the_output_budget_fits_the_longest_answer(length, budget):
    pad = length - EMPTY - 2 if length > EMPTY else 0
    targets = [target(0), target(pad), target(0)]
    assert output_budget(targets, CB) == budget


def test_the_budget_formula_reads_the_codebook():
    cb = {"output_budget": {"chars_per_token": 4, "margin": 100, "floor": 10}}
    assert output_budget([target(400 - EMPTY - 2)], cb) == 256  # 100 + 100 tokens: one block of 256
    assert output_budget([target(1200 - EMPTY - 2)], cb) == 512  # 300 + 100 = 400


def build(tmp_path, **args):
    return icj.build(argparse.Namespace(source=str(FIXTURES / "icj"), out=tmp_path / "p.json", **args))


def test_a_limit_of_one_is_one_scenario_and_the_flags_default_to_refusing(tmp_path):
    from auditpacks.packs.pack import load_pack

    assert len(load_pack(build(tmp_path, limit=1)).scenarios) == 1
    with pytest.raises(PackError, match="icj --limit 99: asked for 99 scenarios, the selection has 5"):
        build(tmp_path, limit=99)  # neither allow_fewer nor allow_partial on the namespace: refused


def test_the_output_budget_is_a_whole_number():
    assert type(output_budget([target(1537 - EMPTY - 2)], CB)) is int


def test_a_scenario_holds_the_target_s_identifiers_case_and_gold():
    from auditpacks.packs.icj.builder import make_target_scenario
    from auditpacks.packs.icj.inputs import Prompt

    gold = {"case_ids": ("001",), "provision_keys": (), "resolution_symbols": ("S/RES/1515(2003)",)}
    nicaragua = Target("070", "ICJ_070_1986-06-27_JUD", "1986-06-27", gold)
    case = {"case_name": "Military and Paramilitary Activities", "case_type": "contentious"}
    scenario = make_target_scenario(nicaragua, Prompt("  Be brief.  ", "Which cases?", case), CB, "parametric")
    assert scenario["name"] == "ICJ 070 - Precedent citations, parametric [ICJ_070_1986-06-27_JUD]"
    assert scenario["test_prompt"] == "Which cases?" and scenario["language"] == "en"
    assert scenario["description"].startswith("Asks a model, without tools, which earlier ICJ cases, legal provisions "
                                              "and UN resolutions the Court cites in its decision of 1986-06-27 in "
                                              "Military and Paramilitary Activities. ")
    assert scenario["metadata"] == {
        "author": "auditpacks", "date_created": "2026-12-01", "benchmark": "VISAI-AI/icj-precedent-cite-bench",
        "case_id": "070", "target_document_id": "ICJ_070_1986-06-27_JUD", "target_decision_date": "1986-06-27",
        "cutoff_date": "1986-06-27", "condition": "parametric", "case_name": "Military and Paramilitary Activities",
        "case_type": "contentious", "system_prompt": "Be brief.", "gold_citation_case_ids": ["001"],
        "gold_citation_provision_keys": [], "gold_citation_resolution_symbols": ["S/RES/1515(2003)"]}
    assert any("S/RES/1515(2003)" in item for item in scenario["expected_behavior"])
    assert any("none (the reference list is empty" in item for item in scenario["expected_behavior"])
    unnamed = make_target_scenario(nicaragua, Prompt("", "Which cases?", {}), CB, "parametric")
    assert unnamed["metadata"]["case_name"] == "ICJ case 070" and "system_prompt" not in unnamed["metadata"]
    assert "in ICJ case 070." in unnamed["description"] and unnamed["metadata"]["case_type"] is None


def copy(tmp_path):
    import shutil

    root = tmp_path / "src"
    shutil.copytree(FIXTURES / "icj" / "data", root / "data")
    return root


def test_fewer_scenarios_are_accepted_when_asked(tmp_path):
    from auditpacks.packs.pack import load_pack

    assert len(load_pack(build(tmp_path, limit=99, allow_fewer=True)).scenarios) == 5


def test_a_partial_copy_is_refused_unless_the_namespace_allows_it(tmp_path):
    import shutil

    root = copy(tmp_path)
    shutil.copy(root / "data" / "test.jsonl", root / "data" / "test-part2.jsonl")
    args = dict(source=str(root), out=tmp_path / "p.json", limit=None)
    with pytest.raises(PackError, match=r"^data/test-part2\.jsonl: skipped"):
        icj.build(argparse.Namespace(**args))
    assert icj.build(argparse.Namespace(**args, allow_partial=True)).is_file()


def test_the_inputs_split_is_checked_where_a_configuration_declares_several(tmp_path):
    root = copy(tmp_path)
    (root / "dataset_infos.json").write_text(json.dumps({"inputs": {"splits": {"train": 99, "test": 4}}}))
    with pytest.raises(PackError) as err:
        icj.build(argparse.Namespace(source=str(root), out=tmp_path / "p.json", limit=None))
    assert str(err.value).startswith("data/inputs.jsonl: read 5 rows, dataset_infos.json declares 4 for inputs")


def test_listed_checksums_are_verified_and_the_list_is_a_source(tmp_path):
    import hashlib

    from auditpacks.packs.pack import load_pack

    root = copy(tmp_path)
    digest = hashlib.sha256((root / "data" / "test.jsonl").read_bytes()).hexdigest()
    (root / "SHA256SUMS").write_text(f"{digest}  data/test.jsonl\n{'0' * 64}  data/inputs.jsonl\n")
    with pytest.raises(PackError, match=r"^data/inputs\.jsonl: sha256 does not match SHA256SUMS"):
        icj.build(argparse.Namespace(source=str(root), out=tmp_path / "p.json", limit=None))
    (root / "SHA256SUMS").write_text(f"{digest}  data/test.jsonl\n")
    manifest = load_pack(icj.build(argparse.Namespace(source=str(root), out=tmp_path / "p.json", limit=None)),
                         require_manifest=True).manifest
    assert [e["name"] for e in manifest["sources"]] == ["data/inputs.jsonl", "data/test.jsonl", "SHA256SUMS"]


def test_the_checksums_cover_the_files_read_besides_the_tables(tmp_path):
    """The dataset's own manifest is no table the read report checks: the builder checks it against SHA256SUMS."""
    root = copy(tmp_path)
    (root / "manifest.json").write_text("{}", encoding="utf-8")
    (root / "SHA256SUMS").write_text(f"{'0' * 64}  manifest.json\n")
    with pytest.raises(PackError, match=r"^manifest\.json: sha256 does not match SHA256SUMS"):
        icj.build(argparse.Namespace(source=str(root), out=tmp_path / "p.json", limit=None))


def test_the_manifest_names_the_condition_the_run_settings_and_the_counts(tmp_path):
    from auditpacks.packs.pack import load_pack

    root = copy(tmp_path)
    path = root / "data" / "inputs.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    path.write_text("".join(json.dumps({"target_document_id": r["target_document_id"],
                                        "messages": [{"role": "user", "content": f"Question {i}"}]}) + "\n"
                            for i, r in enumerate(rows)), encoding="utf-8")
    manifest = load_pack(icj.build(argparse.Namespace(source=str(root), out=tmp_path / "p.json", limit=None)),
                         require_manifest=True).manifest
    assert manifest["condition"] == "parametric" and manifest["run"] == {"max_tokens": 1024}  # no system prompt
    assert manifest["counts"]["case_type"] == {"unknown": 5} and manifest["counts"]["condition"] == {"parametric": 5}
