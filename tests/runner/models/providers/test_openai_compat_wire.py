"""Our OpenAI-compatible target: simpleaudit's message layout on the wire, reasoning kept, no key written."""

from __future__ import annotations

import asyncio

from simpleaudit import AuditResults, ModelAuditor

from auditpacks.runner.models.retry import RetryPolicy
from auditpacks.runner.models.providers.messages import stock_messages
from auditpacks.runner.models.providers.factory import chat_model
from auditpacks.runner.targets.chat_target import ChatTarget
from auditpacks.core.reasoning import split_reasoning
from tests.support.fake_openai import FakeOpenAI
from tests.support.runs import results, run_here
from tests.support.tiny_pack import tiny_scenario, write_pack

SECRET = "sk-test-SECRET"


def test_the_layout_on_the_wire_is_simpleaudits_own():
    scenario = tiny_scenario(1, documents=True)
    scenario["documents"].append({"text": "Older ruling.", "relevant": False, "source": "doc-2"})
    with FakeOpenAI() as server:
        settings = dict(model="m", provider="openai", base_url=server.base_url, api_key="x",
                        system_prompt="Be careful.", judge="choice_match", judge_model="unused",
                        judge_provider="openai", max_turns=1, show_progress=False)
        stock, ours = ModelAuditor(**settings), ModelAuditor(**settings)
        ours.set_target(ChatTarget(chat_model("openai", model="m", base_url=server.base_url, api_key="x",
                                              policy=RetryPolicy(), cache=None)))
        for engine in (stock, ours):
            asyncio.run(engine.run_scenario(name=scenario["name"], description=scenario["description"],
                                            test_prompt=scenario["test_prompt"], documents=scenario["documents"],
                                            decision=scenario["decision"], target_params={"temperature": 0.0}))
    sent_stock, sent_ours = (body["messages"] for body in server.bodies)
    assert sent_ours == sent_stock
    assert sent_ours[1]["content"][1]["text"].startswith("\n--- DOCUMENT 1 ---\nJudgment V0000.")
    assert "relevant" not in sent_ours[1]["content"][1]["text"]


def test_stock_messages_without_documents_and_with_history():
    assert stock_messages(system=None, user="hi") == [{"role": "user", "content": "hi"}]
    history = [{"role": "user", "content": "q", "documents": ["D"]}, {"role": "assistant", "content": "a",
                                                                       "reasoning": "r", "decision": {}},
               {"role": "user", "content": "q2"}]
    assert stock_messages(system="S", user="q2", history=history) == [
        {"role": "system", "content": "S"},
        {"role": "user", "content": [{"type": "text", "text": "q"}, {"type": "text", "text": "\n--- DOCUMENT 1 ---\nD"}]},
        {"role": "assistant", "content": "a"},
        {"role": "user", "content": "q2"},
    ]


def test_split_reasoning_matches_simpleaudits_stripping():
    assert split_reasoning("<think>a</think>guilty") == ("guilty", "a")
    assert split_reasoning("pre-filled</think> guilty") == ("guilty", "pre-filled")
    assert split_reasoning("guilty <think>unfinished") == ("guilty", "unfinished")
    assert split_reasoning("guilty") == ("guilty", None)
    for text in ("<THINKING>x</thinking>y", "a</think>b<think>c</think>d"):
        assert split_reasoning(text)[0] == ModelAuditor.strip_thinking(text)


def reasoning_answer(model, messages):
    prompt = messages[-1]["content"]
    if "Case 0:" in prompt:
        return {"content": "<think>The record says guilty.</think>guilty\nBecause."}
    if "Case 1:" in prompt:
        return {"content": "acquitted", "reasoning_content": "Acquittal on appeal."}
    return {"content": "dismissed"}


def test_reasoning_is_kept_beside_the_answer_and_the_file_still_loads(tmp_path):
    pack = write_pack(tmp_path / "tiny.json", 3)
    with FakeOpenAI(answer=reasoning_answer) as server:
        assert run_here(pack, tmp_path / "out", server.base_url) == 0
    replies = [r["conversation"][-1] for r in results(tmp_path / "out")]
    assert replies[0] == {"role": "assistant", "content": "guilty\nBecause.", "reasoning": "The record says guilty."}
    assert replies[1] == {"role": "assistant", "content": "acquitted", "reasoning": "Acquittal on appeal."}
    assert replies[2] == {"role": "assistant", "content": "dismissed"}
    loaded = AuditResults.load(str(tmp_path / "out" / "m.json"))
    assert [r.severity for r in loaded] == ["pass", "pass", "pass"]


def test_no_api_key_in_any_file_a_run_writes(tmp_path):
    pack = write_pack(tmp_path / "tiny.json", 10)
    cache = tmp_path / "cache"
    with FakeOpenAI(fault_rate=0.5, faults=("500",), echo_key=True, seed=3) as server:
        for out in ("a", "b"):
            assert run_here(pack, tmp_path / out, server.base_url, "--api-key", SECRET, "--cache", str(cache),
                            "--max-retries", "0") in (0, 3)
    assert server.headers[0]["authorization"] == f"Bearer {SECRET}"
    errors = [r for r in results(tmp_path / "a") if r["severity"] == "ERROR"]
    assert errors and "Bearer [api key]" in errors[0]["judgment"]["error"]
    written = [p for p in tmp_path.rglob("*") if p.is_file() and p.name != "tiny.json"]
    assert len(written) > 10
    for path in written:
        assert SECRET.encode() not in path.read_bytes(), path.name
