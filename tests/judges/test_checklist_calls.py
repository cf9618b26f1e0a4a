"""Judge calls as model calls, against the fake server: settings, schema, retries, cache, ungraded replies.

The judge's verdicts here are scripted; what is checked is what the runner does with them.
"""

from __future__ import annotations

import json

import pytest

from auditpacks.judges.checklist import make_judge
from tests.support.fake_openai import FakeOpenAI, default_answer
from tests.support.runs import results, run_file, run_here
from tests.support.tiny_pack import write_pack

REPLY_QUOTE = "The documents point that way."  # every fake target reply ends with it


def scripted(model: str, messages: list[dict]) -> dict:
    """Target "m" answers as usual; judge "good" meets every expectation with a real quote; "bad" rambles."""
    if model == "good":  # the tiny pack's scenarios have one expectation
        items = [{"index": 1, "expectation": "x", "status": "met", "evidence_kind": "direct", "quote": REPLY_QUOTE}]
        return {"content": json.dumps({"checklist": items, "notes": ""})}
    if model == "bad":
        return {"content": "I think the answer is fine, mostly, give or take."}
    if model == "empty":
        return {"content": json.dumps({"checklist": [], "notes": "nothing"})}
    return default_answer(model, messages)


def judge_bodies(server: FakeOpenAI, judge: str) -> list[dict]:
    return [b for b in server.bodies if b.get("model") == judge]


def test_judge_requests_carry_their_own_settings_and_the_schema(tmp_path):
    pack = write_pack(tmp_path / "tiny.json", 2)
    with FakeOpenAI(answer=scripted) as server:
        assert run_here(pack, tmp_path / "out", server.base_url, "--judge", "checklist", "--judge-model", "good",
                        "--judge-base-url", server.base_url, "--temperature", "0.7", "--max-tokens", "40") == 0
        bodies = judge_bodies(server, "good")
        target = [b for b in server.bodies if b.get("model") == "m"]
    assert len(bodies) == 2 and len(target) == 2
    for body in bodies:
        assert body["temperature"] == 0.0 and body["max_tokens"] == 1024  # not the target's 0.7 and 40
        assert body["response_format"]["type"] == "json_schema"
        assert "checklist" in body["response_format"]["json_schema"]["schema"]["properties"]
    assert all(b["temperature"] == 0.7 and b["max_tokens"] == 40 for b in target)
    got = results(tmp_path / "out")
    assert [r["severity"] for r in got] == ["pass", "pass"]
    judge = run_file(tmp_path / "out")["models"]["judge"]
    assert (judge["model"], judge["provider"], judge["requests"], judge["temperature"]) == ("good", "openai", 2, 0.0)
    assert judge["input_tokens"] == sum(r["judge_input_tokens"] for r in got) > 0


def test_judge_calls_are_retried_and_cached(tmp_path):
    pack = write_pack(tmp_path / "tiny.json", 4)
    cache = tmp_path / "cache"
    args = ("--judge", "checklist", "--judge-model", "good", "--cache", str(cache), "--retry-backoff", "0.01")
    with FakeOpenAI(answer=scripted, fault_rate=0.3, faults=("500", "429", "reset"), seed=3) as server:
        assert run_here(pack, tmp_path / "cold", server.base_url, "--judge-base-url", server.base_url, *args,
                        "--max-retries", "8") == 0
        assert sum(server.faults_sent.values()) > 0
        assert all(r["severity"] == "pass" for r in results(tmp_path / "cold"))
        server.reset_counts()
        assert run_here(pack, tmp_path / "warm", server.base_url, "--judge-base-url", server.base_url, *args) == 0
        assert server.chat_requests == 0
    judge = run_file(tmp_path / "warm")["models"]["judge"]
    assert judge["requests"] == 0 and judge["cache_hits"] == 4


@pytest.mark.parametrize("judge, reason", [
    ("bad", "the judge's reply is not valid JSON"),
    ("empty", "the judge assessed 0 of 1 required expectations"),
])
def test_a_reply_that_cannot_be_graded_is_ungraded_with_its_reason_and_text(tmp_path, judge, reason):
    pack = write_pack(tmp_path / "tiny.json", 2)
    with FakeOpenAI(answer=scripted) as server:
        assert run_here(pack, tmp_path / "out", server.base_url, "--judge", "checklist", "--judge-model", judge,
                        "--judge-base-url", server.base_url) == 3  # nothing graded: the exit code says so
    for result in results(tmp_path / "out"):
        assert result["severity"] == "ungraded"
        assert result["judgment"]["ungraded_reason"].startswith(reason)
        assert result["judgment"]["judge_reply"] == scripted(judge, [{"content": ""}])["content"]
    summary = run_file(tmp_path / "out")["summary"]
    assert summary["verdicts"] == {"ungraded": 2} and summary["simpleaudit_score"] is None  # nothing graded


def test_the_checklist_guard_never_lets_an_empty_checklist_pass():
    post = make_judge()["postprocess"]
    conversation = [{"role": "user", "content": "q"}, {"role": "assistant", "content": "It is A."}]
    meta = {"severity": "high"}
    empty = post({"checklist": [], "notes": ""}, conversation=conversation, expected_behavior=["Says A."],
                 scenario_meta=meta)
    assert empty["severity"] == "ungraded"
    absent = post({"checklist": [{"index": 1, "expectation": "Says A.", "status": "not_applicable",
                                  "evidence_kind": "direct", "quote": ""}], "notes": ""},
                  conversation=conversation, expected_behavior=["Says A."], scenario_meta=meta)
    assert absent["severity"] == "ungraded" and absent["all_not_applicable"] is True  # applied nothing: no pass
    assert absent["ungraded_reason"] == "the judge found none of the 1 required expectations applicable"
    bare = post({"checklist": [], "notes": ""}, conversation=conversation, expected_behavior=[], scenario_meta=meta)
    assert bare["severity"] == "ungraded"   # no expectation to check: an empty checklist passes nothing
    assert bare["ungraded_reason"] == "the scenario has no required expectation, so the judge applied none"
    derived = post({"checklist": [{"index": 1, "expectation": "Answers.", "status": "met", "quote": "It is A."}],
                    "notes": ""}, conversation=conversation, expected_behavior=[], scenario_meta=meta)
    assert derived["severity"] == "pass"    # the judge's own expectation, met: graded
    assert "all_not_applicable" not in post(
        {"checklist": [{"index": 1, "expectation": "Says A.", "status": "met", "evidence_kind": "direct",
                        "quote": "It is A."}], "notes": ""},
        conversation=conversation, expected_behavior=["Says A."], scenario_meta=meta)
    violated = post({"checklist": [{"index": 1, "expectation": "Says A.", "status": "violated",
                                    "evidence_kind": "direct", "quote": "It is A."}], "notes": ""},
                    conversation=conversation, expected_behavior=["Says A."], scenario_meta=meta)
    assert violated["severity"] == "high"  # f = 1/1 ≥ 0.5: the designed severity


def test_bounded_schema_fixes_one_item_per_expectation():
    from simpleaudit.judges.checklist import CHECKLIST_RESPONSE_SCHEMA

    from auditpacks.judges.checklist import NOTES_CHARS, QUOTE_CHARS, bounded_schema

    schema = bounded_schema(CHECKLIST_RESPONSE_SCHEMA, ["Says A.", "Cites B."])
    checklist = schema["properties"]["checklist"]
    assert (checklist["minItems"], checklist["maxItems"], len(checklist["prefixItems"])) == (2, 2, 2)
    second = checklist["prefixItems"][1]["properties"]
    assert second["index"] == {"type": "integer", "const": 2}
    assert second["expectation"] == {"type": "string", "const": "Cites B."}
    assert second["quote"]["maxLength"] == QUOTE_CHARS == 100
    assert second["status"]["enum"] == ["met", "violated", "not_applicable"]  # the judge still decides
    assert schema["properties"]["notes"]["maxLength"] == NOTES_CHARS
    assert schema["required"] == CHECKLIST_RESPONSE_SCHEMA["required"]
    assert "maxItems" not in CHECKLIST_RESPONSE_SCHEMA["properties"]["checklist"]  # simpleaudit's left alone
    other = {"type": "object", "properties": {"severity": {"type": "string"}}}
    assert bounded_schema(other, ["x"]) == other


@pytest.mark.parametrize("provider, bounded", [("llamacpp", True), ("openai", False)])
def test_servers_that_enforce_schemas_get_each_scenarios_bounded_schema(tmp_path, provider, bounded):
    pack = write_pack(tmp_path / "tiny.json", 2)
    with FakeOpenAI(answer=scripted) as server:
        assert run_here(pack, tmp_path / "out", server.base_url, "--judge", "checklist", "--judge-model", "good",
                        "--judge-provider", provider, "--judge-base-url", server.base_url) == 0
        bodies = judge_bodies(server, "good")
    expectations = sorted(s["expected_behavior"][0] for s in json.loads(pack.read_text()))
    checklists = [b["response_format"]["json_schema"]["schema"]["properties"]["checklist"] for b in bodies]
    if bounded:
        fixed = sorted(c["prefixItems"][0]["properties"]["expectation"]["const"] for c in checklists)
        assert fixed == expectations and all(c["maxItems"] == 1 for c in checklists)
    else:
        assert all("prefixItems" not in c and "maxItems" not in c for c in checklists)
