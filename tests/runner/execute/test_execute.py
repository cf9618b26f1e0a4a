"""Executing scenarios: a scenario's own system message reaches every chat provider in the system role."""

from __future__ import annotations

import pytest

from auditpacks.packs.pack import load_pack
from auditpacks.runner.cli.main import main
from tests.support.fake_openai import FakeOpenAI
from tests.support.ollama_api import OllamaAPI
from tests.support.paths import FIXTURES
from tests.support.runs import run_here


@pytest.fixture(scope="module")
def icj_pack(tmp_path_factory):
    out = tmp_path_factory.mktemp("icj") / "icj.json"
    assert main(["build", "icj", "--source", str(FIXTURES / "icj"), "--limit", "2", "--out", str(out)]) == 0
    return load_pack(out)


def _expected(pack):
    return [[{"role": "system", "content": s["metadata"]["system_prompt"]},
             {"role": "user", "content": s["test_prompt"]}] for s in pack.scenarios]


def test_openai_compatible_targets_get_system_and_user_turns(icj_pack, tmp_path):
    with FakeOpenAI() as server:
        assert run_here(icj_pack.path, tmp_path / "out", server.base_url) == 0
        sent = [b["messages"] for b in server.bodies]
    assert sorted(map(str, sent)) == sorted(map(str, _expected(icj_pack)))


def test_ollama_targets_get_system_and_user_turns(icj_pack, tmp_path):
    with FakeOpenAI(n_ctx=8192) as upstream, OllamaAPI(upstream.url, model_name="tiny") as api:
        assert run_here(icj_pack.path, tmp_path / "out", api.url, "--provider", "ollama", target="tiny") == 0
        sent = [b["messages"] for b in api.requests if "messages" in b]
    assert sorted(map(str, sent)) == sorted(map(str, _expected(icj_pack)))
