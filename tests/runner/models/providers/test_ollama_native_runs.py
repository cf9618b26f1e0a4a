"""The native Ollama target: num_ctx fitted per prompt, oversize prompts refused, digest in the cache key."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from auditpacks.packs.pack import PackWriter
from auditpacks.runner.models.cache import ResponseCache
from tests.support.ollama_api import OllamaAPI
from auditpacks.runner.models.retry import RetryPolicy
from auditpacks.runner.models.providers import context_fit
from auditpacks.runner.targets import scenario_log
from auditpacks.runner.models.model import Model
from auditpacks.runner.targets.chat_target import ChatTarget
from auditpacks.runner.models.providers.ollama_native import OllamaChatAPI, model_facts
from tests.support.fake_openai import FakeOpenAI
from tests.support.runs import results, run_file, run_here
from tests.support.tiny_pack import tiny_scenario, write_pack
from tests.support.paths import ROOT

LONG = "The tribunal considered the pleadings of both parties at considerable length. " * 900  # ~10k tokens


@pytest.fixture
def small_ollama():
    """An Ollama-API endpoint (context 4,096) in front of the fast fake server."""
    with FakeOpenAI(n_ctx=4096) as upstream, OllamaAPI(upstream.url, model_name="tiny") as api:
        yield api


def chats(api: OllamaAPI) -> list[dict]:
    return [body for body in api.requests if "messages" in body]


def test_each_request_gets_a_num_ctx_that_fits_and_num_predict(tmp_path, small_ollama):
    pack = write_pack(tmp_path / "tiny.json", 3)
    assert run_here(pack, tmp_path / "out", small_ollama.url, "--provider", "ollama", "--max-tokens", "32",
                    target="tiny") == 0
    bodies = chats(small_ollama)
    assert [b["options"]["num_ctx"] for b in bodies] == [2048] * 3
    assert all(b["options"]["num_predict"] == 32 and b["stream"] is False for b in bodies)
    assert all(r["severity"] != "ERROR" for r in results(tmp_path / "out", "tiny"))
    run = run_file(tmp_path / "out", "tiny")
    assert run["provider"] == "ollama" and len(run["model_digest"]) == 64


def write_scenarios(path: Path, scenarios: list[dict]) -> Path:
    with PackWriter(path, builder="tests", extra={"grading": {"judge": "choice_match"}}) as writer:
        writer.add_all(scenarios)
    return path


def test_a_prompt_longer_than_the_context_is_refused_or_skipped(tmp_path, small_ollama):
    write_scenarios(tmp_path / "long.json", [tiny_scenario(0), tiny_scenario(1, prompt=LONG)])
    assert run_here(tmp_path / "long.json", tmp_path / "out", small_ollama.url, "--provider", "ollama",
                    target="tiny") == 3  # finished with an ERROR scenario
    got = results(tmp_path / "out", "tiny")
    assert got[0]["severity"] != "ERROR" and got[1]["severity"] == "ERROR"
    assert "PromptTooLong: prompt needs about" in got[1]["judgment"]["error"]
    assert "more than the model's context of 4096 tokens; not sent" in got[1]["judgment"]["error"]
    assert len(chats(small_ollama)) == 1  # the long prompt never left the runner

    assert run_here(tmp_path / "long.json", tmp_path / "skip", small_ollama.url, "--provider", "ollama",
                    "--skip-oversize", target="tiny") == 0
    assert [r["scenario_name"] for r in results(tmp_path / "skip", "tiny")] == [got[0]["scenario_name"]]
    assert run_file(tmp_path / "skip", "tiny")["summary"]["skipped"] == {"over the model's context": 1}


def test_warm_cache_asks_only_show_and_cache_only_needs_no_server(tmp_path, small_ollama):
    pack = write_pack(tmp_path / "tiny.json", 3)
    cache = str(tmp_path / "cache")
    common = ("--provider", "ollama", "--cache", cache)
    assert run_here(pack, tmp_path / "cold", small_ollama.url, *common, target="tiny") == 0
    small_ollama.requests.clear()
    assert run_here(pack, tmp_path / "warm", small_ollama.url, *common, target="tiny") == 0
    assert small_ollama.requests == [{"model": "tiny"}]  # one show, for the digest; no chat
    url = small_ollama.url
    small_ollama.__exit__(None, None, None)
    assert run_here(pack, tmp_path / "replay", url, *common, "--cache-only", target="tiny") == 0
    assert results(tmp_path / "replay", "tiny") == results(tmp_path / "cold", "tiny")


def test_the_model_digest_is_part_of_the_cache_key(tmp_path):
    cache = ResponseCache(tmp_path)
    api = OllamaChatAPI(model="m", host="http://h:1")
    target = ChatTarget(Model(api, policy=RetryPolicy(), cache=cache))
    api.facts = {"digest": "a" * 64, "context_length": 8192}
    calls = []

    async def chat(**request):
        calls.append(request)
        return SimpleNamespace(prompt_eval_count=10, eval_count=2, done_reason="stop",
                               message=SimpleNamespace(content="<think>hm</think>guilty", thinking="first"))

    api._client = SimpleNamespace(chat=chat)

    async def send():
        log = scenario_log.begin()
        reply = await target.send(system=None, user="q?", params={"temperature": 0.0})
        return reply, log

    (reply, log), _ = asyncio.run(send()), asyncio.run(send())
    assert len(calls) == 1 and reply.content == "guilty" and log.reasoning == ["first\n\nhm"]
    api.facts = {"digest": "b" * 64, "context_length": 8192}
    asyncio.run(send())
    assert len(calls) == 2


def test_model_facts_from_show_and_list():
    show = SimpleNamespace(modelfile="FROM /models/blobs/sha256-" + "c" * 64, modelinfo={"qwen3.context_length": 40960})
    assert model_facts(show, None, "q") == {"digest": "c" * 64, "context_length": 40960}
    listed = SimpleNamespace(models=[SimpleNamespace(model="q:latest", digest="d" * 64)])
    bare = SimpleNamespace(modelfile="FROM q", modelinfo={"llama.context_length": 8192})
    assert model_facts(bare, listed, "q") == {"digest": "d" * 64, "context_length": 8192}


# -- against the real embedded model ---------------------------------------------------------------

def test_real_model_fitting_prompt_gets_a_sufficient_num_ctx(tmp_path, ollama_endpoint):
    articles = json.loads((ROOT / "packs" / "data" / "minpo.json").read_text())["articles"]
    japanese = "\n".join(a["text"] for a in articles[:3])
    albanian = "Gjykata Themelore në Prishtinë konstatoi se i akuzuari është fajtor për veprën penale. " * 8
    pack = write_scenarios(tmp_path / "mixed.json", [tiny_scenario(0), tiny_scenario(1, prompt=japanese),
                                                     tiny_scenario(2, prompt=albanian)])
    before = len(ollama_endpoint.requests)
    assert run_here(pack, tmp_path / "out", ollama_endpoint.url, "--provider", "ollama", "--max-tokens", "8",
                    target="smollm2") == 0
    bodies = [b for b in ollama_endpoint.requests[before:] if "messages" in b]
    got = results(tmp_path / "out", "smollm2")
    assert len(bodies) == 3 and all(r["severity"] != "ERROR" for r in got)
    for body, result in zip(bodies, got):
        assert body["options"]["num_predict"] == 8
        assert result["target_input_tokens"] + 8 <= body["options"]["num_ctx"] <= 8192
        assert context_fit.estimate_tokens(body["messages"]) >= result["target_input_tokens"]  # errs high


def test_real_model_refuses_a_prompt_longer_than_its_context(tmp_path, ollama_endpoint):
    write_scenarios(tmp_path / "long.json", [tiny_scenario(0, prompt=LONG)])
    before = len(ollama_endpoint.requests)
    assert run_here(tmp_path / "long.json", tmp_path / "out", ollama_endpoint.url, "--provider", "ollama",
                    target="smollm2") == 3  # finished, with that scenario an ERROR
    error = results(tmp_path / "out", "smollm2")[0]["judgment"]["error"]
    assert "more than the model's context of 8192 tokens; not sent (nothing is truncated)" in error
    assert not [b for b in ollama_endpoint.requests[before:] if "messages" in b]


def test_an_ollama_base_url_in_openai_form_is_detected_and_gets_num_ctx(tmp_path, small_ollama):
    """The benchmark card's command: --base-url http://HOST:11434/v1 --api-key local, no --provider."""
    pack = write_pack(tmp_path / "tiny.json", 3)
    assert run_here(pack, tmp_path / "out", small_ollama.url + "/v1", "--api-key", "local", target="tiny") == 0
    assert [b["options"]["num_ctx"] for b in chats(small_ollama)] == [2048] * 3
    run = run_file(tmp_path / "out", "tiny")
    assert run["provider"] == "ollama" and len(run["model_digest"]) == 64
    assert any("answers Ollama's /api/version" in note for note in run["summary"]["notes"])


def test_provider_openai_against_ollama_warns_once_with_the_prompts_at_risk(tmp_path, small_ollama, capsys):
    write_scenarios(tmp_path / "mixed.json", [tiny_scenario(0), tiny_scenario(1, prompt=LONG)])
    run_here(tmp_path / "mixed.json", tmp_path / "out", small_ollama.url + "/v1", "--provider", "openai",
             target="tiny")
    warnings = [line for line in capsys.readouterr().err.splitlines() if "is an Ollama server" in line]
    assert len(warnings) == 1
    assert "--provider openai sends no num_ctx" in warnings[0]
    assert "1 of 2 prompts are estimated above 2,048 tokens" in warnings[0]
    assert not any("num_ctx" in (b.get("options") or {}) for b in chats(small_ollama))


def test_ollama_host_is_honoured(tmp_path, small_ollama, monkeypatch):
    monkeypatch.setenv("OLLAMA_HOST", small_ollama.url.removeprefix("http://"))
    pack = write_pack(tmp_path / "tiny.json", 2)
    assert run_here(pack, tmp_path / "out", None, "--provider", "ollama", target="tiny") == 0
    assert [b["options"]["num_ctx"] for b in chats(small_ollama)] == [2048] * 2
