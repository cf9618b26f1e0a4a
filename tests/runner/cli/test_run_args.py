"""Run settings: the output budget and decoding a pack carries, the default output cap; --per-question is refused."""

from __future__ import annotations

import json

import pytest

from auditpacks.core.errors import PackError
from auditpacks.packs.pack import load_pack
from auditpacks.runner.cli.main import build_parser, main
from auditpacks.runner.cli.run_args import config_from_args
from auditpacks.runner.scenarios import selection
from tests.judges.icj.test_export import pack  # noqa: F401  (fixture)


def test_manifest_budget_fits_the_longest_reference_answer(pack):  # noqa: F811
    budget = pack.manifest["run"]["max_tokens"]
    longest = max(len(json.dumps({k.replace("gold_", ""): s["metadata"][k] for k in (
        "gold_citation_case_ids", "gold_citation_provision_keys", "gold_citation_resolution_symbols")}))
        for s in pack.scenarios)
    assert budget % 256 == 0 and budget >= 1024 and budget >= longest  # even at one character per token


def test_embedded_default_uses_the_pack_budget(pack, tmp_path):  # noqa: F811
    args = build_parser("run").parse_args(["run", "--pack", str(pack.path), "--out", str(tmp_path)])
    assert config_from_args(args).decoding.max_tokens == pack.manifest["run"]["max_tokens"]
    args = build_parser("run").parse_args(["run", "--pack", str(pack.path), "--out", str(tmp_path),
                                           "--max-tokens", "64"])
    assert config_from_args(args).decoding.max_tokens == 64


def test_per_question_is_refused_on_a_pack_without_questions(pack, tmp_path, capsys):  # noqa: F811
    with pytest.raises(PackError, match="--per-question needs questions"):
        selection.select(load_pack(pack.path), per_question_n=1)
    assert main(["run", "--pack", str(pack.path), "--per-question", "1", "--target", "m", "--base-url",
                 "http://127.0.0.1:9", "--out", str(tmp_path / "run")]) == 2
    assert "--per-question needs questions" in capsys.readouterr().err
    assert not (tmp_path / "run").exists() or not any((tmp_path / "run").iterdir())


# -- the output cap: every target reply is capped, the cap is recorded, the flag overrides it ---------------

def _sent_caps(server) -> set:
    return {(b.get("max_tokens"), b.get("temperature")) for b in server.bodies}


def test_a_target_run_sends_the_default_cap_and_records_it(tmp_path):
    from auditpacks.core.defaults import MAX_TOKENS
    from tests.support.fake_openai import FakeOpenAI
    from tests.support.runs import run_file, run_here
    from tests.support.tiny_pack import write_pack

    pack = write_pack(tmp_path / "tiny.json", 2)  # a pack whose manifest names no run settings
    with FakeOpenAI() as server:
        assert run_here(pack, tmp_path / "default", server.base_url) == 0
        assert _sent_caps(server) == {(1024, 0.0)} and MAX_TOKENS == 1024
        server.reset_counts()
        assert run_here(pack, tmp_path / "given", server.base_url, "--max-tokens", "77") == 0
        assert _sent_caps(server) == {(77, 0.0)}
    assert '"max_tokens": 1024' in json.dumps(run_file(tmp_path / "default"))
    assert '"max_tokens": 77' in json.dumps(run_file(tmp_path / "given"))


def test_the_jacite_pack_carries_the_benchmarks_decoding(tmp_path):
    from tests.support.fake_openai import FakeOpenAI
    from tests.support.paths import FIXTURES
    from tests.support.runs import run_here

    pack = tmp_path / "jacite.json"
    assert main(["build", "jacite", "--source", str(FIXTURES / "jacite"), "--out", str(pack), "--limit", "2"]) == 0
    assert load_pack(pack).manifest["run"] == {"max_tokens": 512, "temperature": 0}  # greedy, 512 new tokens
    with FakeOpenAI() as server:
        assert run_here(pack, tmp_path / "run", server.base_url) == 0
        assert _sent_caps(server) == {(512, 0.0)}
        server.reset_counts()
        assert run_here(pack, tmp_path / "hot", server.base_url, "--temperature", "0.7", "--max-tokens", "9") == 0
        assert _sent_caps(server) == {(9, 0.7)}


def test_run_refuses_a_limit_over_the_pack_unless_accepted(tmp_path, capsys):
    from tests.support.fake_openai import FakeOpenAI
    from tests.support.runs import run_file, run_here
    from tests.support.tiny_pack import write_pack

    pack = write_pack(tmp_path / "tiny.json", 2)
    with FakeOpenAI() as server:
        assert run_here(pack, tmp_path / "short", server.base_url, "--limit", "3") == 2
        assert "tiny.json: --limit 3: asked for 3 scenarios, the selection has 2" in capsys.readouterr().err
        assert server.chat_requests == 0
        assert not (tmp_path / "short").exists() or not any((tmp_path / "short").iterdir())
        assert run_here(pack, tmp_path / "smoke", server.base_url, "--smoke") == 2  # no smoke list in its manifest
        assert "the manifest names no smoke scenarios" in capsys.readouterr().err
        assert run_here(pack, tmp_path / "fewer", server.base_url, "--limit", "3", "--allow-fewer") == 0
        assert "going on with 2 (--allow-fewer)" in capsys.readouterr().err
    assert run_file(tmp_path / "fewer")["parameters"]["allow_fewer"] is True

