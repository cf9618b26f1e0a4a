"""ICJ run settings: the default output budget fits the answer schema; --per-question is refused."""

from __future__ import annotations

import json

import pytest

from auditpacks.core.errors import PackError
from auditpacks.packs.pack import load_pack
from auditpacks.runner.cli.main import build_parser, main
from auditpacks.runner.cli.run_args import config_from_args
from auditpacks.runner.execution import selection
from tests.judges.icj.test_export import pack  # noqa: F401  (fixture)


def test_manifest_budget_fits_the_longest_reference_answer(pack):  # noqa: F811
    budget = pack.manifest["run"]["max_tokens"]
    longest = max(len(json.dumps({k.replace("gold_", ""): s["metadata"][k] for k in (
        "gold_citation_case_ids", "gold_citation_provision_keys", "gold_citation_resolution_symbols")}))
        for s in pack.scenarios)
    assert budget % 256 == 0 and budget >= 1024 and budget >= longest  # even at one character per token


def test_embedded_default_uses_the_pack_budget(pack, tmp_path):  # noqa: F811
    args = build_parser("run").parse_args(["run", "--pack", str(pack.path), "--out", str(tmp_path)])
    assert config_from_args(args).max_tokens == pack.manifest["run"]["max_tokens"]
    args = build_parser("run").parse_args(["run", "--pack", str(pack.path), "--out", str(tmp_path),
                                           "--max-tokens", "64"])
    assert config_from_args(args).max_tokens == 64


def test_per_question_is_refused_on_a_pack_without_questions(pack, tmp_path, capsys):  # noqa: F811
    with pytest.raises(PackError, match="--per-question needs questions"):
        selection.select(load_pack(pack.path), per_question_n=1)
    assert main(["run", "--pack", str(pack.path), "--per-question", "1", "--target", "m", "--base-url",
                 "http://127.0.0.1:9", "--out", str(tmp_path / "run")]) == 2
    assert "--per-question needs questions" in capsys.readouterr().err
    assert not (tmp_path / "run").exists() or not any((tmp_path / "run").iterdir())
