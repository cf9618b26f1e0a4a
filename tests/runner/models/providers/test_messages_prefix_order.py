"""Document-first prompts, document-grouped scheduling, slot pinning, and one real prefix-cache check."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

import pytest
from simpleaudit import ModelAuditor

from auditpacks.packs.pack import PackWriter
from auditpacks.packs.scenario import make_scenario
from auditpacks.runner.models.errors import RunError
from auditpacks.runner.models.retry import RetryPolicy
from auditpacks.runner.readiness.model_setup import resolve_prompt_order, resolve_slot_pinning
from auditpacks.runner.models.providers.factory import chat_model
from auditpacks.runner.targets import scenario_log
from auditpacks.runner.targets.chat_target import ChatTarget
from auditpacks.runner.models.providers.messages import document_first_messages, flat_messages, stock_messages
from tests.support.fake_openai import FakeOpenAI
from tests.support.runs import results, run_file, run_here
from tests.support.run_config import run_config

OPTIONS = {"guilty": "Found guilty.", "acquitted": "Acquitted."}
JUDGMENT = ("Judgment {doc}. The accused was charged with theft of a bicycle. Witnesses saw him ride it away. "
            "The court weighed the testimony and the recovered property.")


def scenario(doc: int, q: int, *, documents: bool = True) -> dict[str, Any]:
    question = f"Question {q}: what did the court decide in judgment {doc}?"
    lines = "\n".join(f"- {k}: {v}" for k, v in OPTIONS.items())
    return make_scenario(
        name=f"D{doc} q{q}", description="Outcome question.",
        test_prompt=f"{question}\n\nOptions:\n{lines}\n\nReply with the key of exactly one option on the first line.",
        language="en", expected_behavior=["Answers the outcome."], category="System Integrity",
        subcategory="Hallucination", severity="medium",
        source={"type": "adapted", "origin": "runner tests", "original_language": "en"},
        metadata={"verdict_id": f"D{doc}", "question_id": f"q{q}"}, date_created="2026-12-01",
        documents=[JUDGMENT.format(doc=doc), {"text": f"Appeal note on {doc}.", "relevant": False}] if documents else None,
        decision={"instructions": question, "criteria": dict(OPTIONS), "accepted": ["guilty"]},
    )


def write(path: Path, scenarios: list[dict[str, Any]]) -> Path:
    with PackWriter(path, builder="tests", extra={"grading": {"judge": "choice_match"}}) as writer:
        for s in scenarios:
            writer.add(s)
    return path


def wire_text(messages: list[dict[str, Any]]) -> str:
    """The messages as one string, roughly as a chat template lays them out."""
    return "".join(f"<{m['role']}>{m['content']}" for m in flat_messages(messages))


def test_two_questions_on_one_document_share_a_byte_identical_prefix():
    a, b = scenario(0, 1), scenario(0, 2)
    sent = [document_first_messages(system="Be careful.", user=s["test_prompt"], documents=s["documents"])
            for s in (a, b)]
    text_a, text_b = (wire_text(m) for m in sent)
    prefix_a, prefix_b = text_a.removesuffix(a["test_prompt"]), text_b.removesuffix(b["test_prompt"])
    documents = "--- DOCUMENT 1 ---\n" + JUDGMENT.format(doc=0) + "\n--- DOCUMENT 2 ---\nAppeal note on 0."
    assert sent[0][1]["content"] == documents + "\n\n" + a["test_prompt"]
    assert prefix_a == prefix_b and prefix_a.endswith(documents + "\n\n")  # all but the question, byte for byte
    assert os.path.commonprefix([text_a, text_b]).startswith(prefix_a)
    assert "relevant" not in text_a
    stock = stock_messages(system="Be careful.", user=a["test_prompt"], documents=a["documents"])
    assert wire_text(stock).index(a["test_prompt"]) < wire_text(stock).index("Judgment 0")


def test_document_first_is_the_default_for_packs_with_documents_and_on_the_wire(tmp_path):
    scenarios = [scenario(0, 1), scenario(0, 2)]
    pack = write(tmp_path / "p.json", scenarios)
    with FakeOpenAI() as server:
        assert run_here(pack, tmp_path / "auto", server.base_url, "--system-prompt", "Be careful.") == 0
        first, second = (body["messages"] for body in server.bodies)
    assert first[:1] == second[:1] == [{"role": "system", "content": "Be careful."}]
    assert first[1]["content"].endswith(scenarios[0]["test_prompt"])
    assert first[1]["content"].removesuffix(scenarios[0]["test_prompt"]) == \
        second[1]["content"].removesuffix(scenarios[1]["test_prompt"])
    assert "id_slot" not in server.bodies[0]  # a hosted-API provider never gets llama.cpp fields
    record = run_file(tmp_path / "auto")
    assert record["performance"]["prompt_order"] == "document-first"
    assert record["parameters"]["prompt_order"] == "document-first"
    conversation = results(tmp_path / "auto")[0]["conversation"]
    assert conversation[0]["content"] == scenarios[0]["test_prompt"]  # the transcript is simpleaudit's
    assert conversation[0]["documents"][0] == JUDGMENT.format(doc=0)


def test_prompt_order_stock_is_simpleaudits_own_request(tmp_path):
    s = scenario(0, 1)
    pack = write(tmp_path / "p.json", [s])
    with FakeOpenAI() as server:
        engine = ModelAuditor(model="m", provider="openai", base_url=server.base_url, api_key="x",
                              system_prompt="Be careful.", judge="choice_match", judge_model="unused", judge_provider="openai",
                              max_turns=1, show_progress=False)
        asyncio.run(engine.run_scenario(name=s["name"], description=s["description"], test_prompt=s["test_prompt"],
                                        documents=s["documents"], decision=s["decision"]))
        assert run_here(pack, tmp_path / "stock", server.base_url, "--system-prompt", "Be careful.",
                        "--prompt-order", "stock") == 0
        theirs, ours = (body["messages"] for body in server.bodies)
    assert ours == theirs
    assert run_file(tmp_path / "stock")["performance"]["prompt_order"] == "stock"


def test_packs_without_documents_keep_the_stock_layout_and_fingerprint(tmp_path):
    pack = write(tmp_path / "p.json", [scenario(0, 1, documents=False)])
    with FakeOpenAI() as server:
        assert run_here(pack, tmp_path / "auto", server.base_url) == 0
        assert run_here(pack, tmp_path / "stock", server.base_url, "--prompt-order", "stock") == 0
    auto, stock = run_file(tmp_path / "auto"), run_file(tmp_path / "stock")
    assert auto["performance"]["prompt_order"] == "stock" and auto["fingerprint"] == stock["fingerprint"]


def test_the_order_is_part_of_the_fingerprint_and_the_cache_key(tmp_path):
    pack = write(tmp_path / "p.json", [scenario(0, 1), scenario(0, 2)])
    cache = str(tmp_path / "cache")
    with FakeOpenAI() as server:
        assert run_here(pack, tmp_path / "a", server.base_url, "--cache", cache) == 0
        assert run_here(pack, tmp_path / "b", server.base_url, "--cache", cache, "--prompt-order", "stock") == 0
        assert run_here(pack, tmp_path / "c", server.base_url, "--cache", cache) == 0
        assert server.chat_requests == 4  # the stock run missed; the last run was served from the cache
    a, b, c = (run_file(tmp_path / d) for d in "abc")
    assert a["fingerprint"] != b["fingerprint"] and a["fingerprint"] == c["fingerprint"]
    assert b["cache"]["misses"] == 2 and c["cache"]["hits"] == 2


def test_scenarios_run_grouped_by_document_and_results_keep_pack_order(tmp_path):
    scenarios = [scenario(q % 3, q) for q in range(9)]  # documents interleaved: D0 D1 D2 D0 D1 D2 …
    pack = write(tmp_path / "p.json", scenarios)
    with FakeOpenAI() as server:
        assert run_here(pack, tmp_path / "out", server.base_url) == 0
        asked = [json.dumps(body["messages"]) for body in server.bodies]
    order = [next(d for d in range(3) if f"Judgment {d}." in text) for text in asked]
    assert order == [0, 0, 0, 1, 1, 1, 2, 2, 2]
    assert [r["scenario_name"] for r in results(tmp_path / "out")] == [s["name"] for s in scenarios]
    assert run_file(tmp_path / "out")["performance"]["documents"] == 3


def test_each_worker_takes_whole_documents_and_pins_one_slot(tmp_path, monkeypatch):
    from auditpacks.runner.models.providers import slots

    monkeypatch.setattr(slots, "server_slots", lambda base_url, **kw: 3)
    scenarios = [scenario(q % 3, q) for q in range(12)]
    pack = write(tmp_path / "p.json", scenarios)
    with FakeOpenAI() as server:
        assert run_here(pack, tmp_path / "out", server.base_url, "--concurrency", "3", "--slot-pinning") == 0
        sent = [(json.dumps(body["messages"]), body["id_slot"]) for body in server.bodies]
    slot_of: dict[int, set[int]] = {}
    for text, slot in sent:
        slot_of.setdefault(next(d for d in range(3) if f"Judgment {d}." in text), set()).add(slot)
    assert sorted(slot_of) == [0, 1, 2] and all(len(s) == 1 for s in slot_of.values())
    assert sorted(next(iter(s)) for s in slot_of.values()) == [0, 1, 2]
    assert [r["scenario_name"] for r in results(tmp_path / "out")] == [s["name"] for s in scenarios]
    assert run_file(tmp_path / "out")["performance"]["slot_pinning"] is True


def test_a_second_question_on_one_document_comes_from_the_servers_cache(embedded_model):
    document = " ".join(f"Article {n}. A person who damages the property of another must repair it." for n in range(25))
    target = ChatTarget(chat_model("llamacpp", model="smollm2", base_url=embedded_model.base_url, api_key="x",
                                   policy=RetryPolicy(), cache=None, slot_pinning=True), layout="document-first")
    server_tokens = target.model.api.server_tokens

    async def ask(question: str) -> dict[str, int]:
        scenario_log.begin(lane=0)
        before = dict(server_tokens)
        await target.send(system="Answer briefly.", user=question, documents=[document],
                          params={"temperature": 0.0, "max_tokens": 2})
        return {k: server_tokens[k] - before[k] for k in ("prompt_n", "cache_n")}

    async def both() -> tuple[dict[str, int], dict[str, int]]:
        try:
            return await ask("Which article is about property?"), await ask("Must the damage be repaired?")
        finally:
            await target.aclose()

    first, second = asyncio.run(both())
    assert second["cache_n"] > 0.8 * (first["prompt_n"] + first["cache_n"]) - 20
    assert second["prompt_n"] < 40 < first["prompt_n"]


def test_prompt_order_and_slot_pinning_resolve_per_target():
    with_docs, without = [scenario(0, 1)], [scenario(0, 1, documents=False)]
    embedded = run_config()
    assert resolve_prompt_order(embedded, with_docs) == "document-first"
    assert resolve_prompt_order(embedded, without) == "stock"
    assert resolve_slot_pinning(embedded) is True
    hosted = run_config(target="gpt", provider="openai")
    assert resolve_slot_pinning(hosted) is False
    assert resolve_slot_pinning(run_config(target="m", provider="llamacpp")) is True
    anthropic = run_config(target="claude", provider="anthropic")
    assert resolve_prompt_order(anthropic, with_docs) == "document-first"  # its cache reads the marked prefix
    assert resolve_prompt_order(anthropic, without) == "stock"
    mistral = run_config(target="m", provider="mistral")
    assert resolve_prompt_order(mistral, with_docs) == "stock"  # simpleaudit's own path: its own layout
    with pytest.raises(RunError, match="needs one of our chat targets"):
        resolve_prompt_order(run_config(target="c", provider="mistral",
                                        prompt_order="document-first"), with_docs)
    with pytest.raises(RunError, match="--slot-pinning needs"):
        resolve_slot_pinning(run_config(target="q", provider="ollama", slot_pinning=True))
    decision = run_config(target="clef", decision="ollama")
    assert resolve_prompt_order(decision, with_docs) is None and resolve_slot_pinning(decision) is False
