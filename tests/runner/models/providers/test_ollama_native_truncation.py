"""Ollama's silent truncation, emulated, and the runner's refusal to keep a reply to a cut prompt."""

from __future__ import annotations

import json
import urllib.request

from auditpacks.packs.pack import PackWriter
from auditpacks.runner.models.providers import context_fit
from tests.support.fake_openai import FakeOpenAI
from tests.support.ollama_api import OllamaAPI
from tests.support.ollama_truncation import truncate_front
from tests.support.runs import results, run_here
from tests.support.tiny_pack import tiny_scenario

WORDS = [f"w{i}" for i in range(3000)]


def test_truncate_front_keeps_the_system_message_and_the_tail():
    words = lambda text: len(text.split())  # noqa: E731
    messages = [{"role": "system", "content": "be brief"}, {"role": "user", "content": "one two three"},
                {"role": "user", "content": " ".join(WORDS[:100])}]
    cut = truncate_front(messages, 50, words)
    assert cut[0] == messages[0] and cut[1]["content"] == ""
    assert cut[2]["content"].split() == WORDS[52:100]  # 2 + 48 = 50 words kept, the last ones
    assert truncate_front(messages, 200, words) == messages


def _chat(url: str, body: dict) -> dict:
    req = urllib.request.Request(url + "/api/chat", data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as resp:
        return json.loads(resp.read())


def test_the_emulator_drops_the_front_silently_and_reports_the_shorter_prompt():
    with FakeOpenAI(n_ctx=4096) as upstream, OllamaAPI(upstream.url, model_name="m", truncate=True) as api:
        reply = _chat(api.url, {"model": "m", "stream": False, "options": {"num_ctx": 256},
                                "messages": [{"role": "user", "content": " ".join(WORDS)}]})
        sent = upstream.bodies[-1]["messages"][0]["content"].split()
        no_options = _chat(api.url, {"model": "m", "stream": False,
                                     "messages": [{"role": "user", "content": " ".join(WORDS)}]})
    assert reply["done"] and reply["message"]["content"]  # answered: no error, no warning
    assert sent == WORDS[-len(sent):] and 250 <= len(sent) <= 256  # the front is gone
    assert reply["prompt_eval_count"] == len(sent) + 5  # the fake upstream's count of what it got
    assert no_options["prompt_eval_count"] <= 2048 + 5  # Ollama's default window


def _pack(path, scenarios):
    with PackWriter(path, builder="tests", extra={"grading": {"judge": "choice_match"}}) as writer:
        writer.add_all(scenarios)
    return path


def test_the_runner_refuses_a_reply_to_a_silently_truncated_prompt(tmp_path, monkeypatch):
    # an estimate that falls short (a tokenizer the estimate does not cover) makes num_ctx too small
    monkeypatch.setattr(context_fit, "estimate_tokens", lambda messages: 100)
    pack = _pack(tmp_path / "p.json", [tiny_scenario(0), tiny_scenario(1, prompt=" ".join(WORDS))])
    with FakeOpenAI(n_ctx=4096) as upstream, OllamaAPI(upstream.url, model_name="tiny", truncate=True) as api:
        assert run_here(pack, tmp_path / "out", api.url, "--provider", "ollama", target="tiny") == 3  # an ERROR
        cut = [b for b in upstream.bodies if "w0 " not in json.dumps(b) and "w2999" in json.dumps(b)]
    assert cut  # the long prompt did reach the model without its front
    short, long = results(tmp_path / "out", "tiny")
    assert short["severity"] != "ERROR"
    assert long["severity"] == "ERROR"
    assert "LikelyTruncated: the server evaluated" in long["judgment"]["error"]
    assert "probably truncated; reply discarded" in long["judgment"]["error"]
