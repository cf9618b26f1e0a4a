"""Decision models on Iustitia scenarios: a fake System One server answering recorded responses."""

from __future__ import annotations

import json
from http.server import BaseHTTPRequestHandler

import pytest
from simpleaudit import Auditor, AuditResults, DecisionTarget

from auditpacks.judges import choice
from auditpacks.runner.systemone.decision import (DecisionSetupError, check_body_size, explain_decision_error, make_decision_target,
                             over_option_limit, request_body)
from auditpacks.runner.serving.loopback import LoopbackServer
from tests.support.iustitia import FIXTURE, build_pack

RESPONSES = json.loads((FIXTURE / "systemone" / "responses.json").read_text(encoding="utf-8"))


class FakeSystemOne:
    """``POST /v1/systemone`` on 127.0.0.1: records each request, answers from the recorded responses."""

    def __init__(self) -> None:
        self.requests: list[dict] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 (http.server naming)
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                owner.requests.append({"path": self.path, "body": body, "auth": self.headers.get("Authorization")})
                question = next(iter(body.get("questions") or {}), None)
                found = self.path == "/v1/systemone" and question in RESPONSES
                payload = json.dumps(RESPONSES[question] if found else {"error": "not found"}).encode()
                self.send_response(200 if found else 404)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args):
                pass

        self.server = LoopbackServer(Handler)

    def __enter__(self) -> "FakeSystemOne":
        self.root = self.server.start().url
        return self

    def __exit__(self, *exc) -> None:
        self.server.stop()


@pytest.fixture(scope="module")
def smoke(tmp_path_factory):
    return build_pack(tmp_path_factory.mktemp("smoke"), "--smoke")


def test_decision_run_keeps_choice_confidence_and_probabilities(smoke, tmp_path):
    with FakeSystemOne() as server:
        target = make_decision_target("url", "clef-64k", url=f"{server.root}/v1/systemone", api_key="k")
        results = Auditor(target=target, judge="choice_match", max_turns=1, show_progress=False).run(smoke)
    assert len(server.requests) == 3
    by_name = {r.scenario_name: r for r in results}
    verdict = by_name["GUILTY.VERDICT - domv902"].judgment
    assert verdict["choice"] == "yes" and verdict["choice_source"] == "decision" and verdict["correct"] is True
    assert verdict["confidence"] == 0.9731 and verdict["probabilities"] == {"yes": 0.9731, "no": 0.0269}
    assert by_name["DEF.SUSPENDED_SENTENCE - domv901_d1"].severity == "medium"  # chose "no"; accepted "yes"
    assert by_name["VIC.PRESENT_AT_HEARING - domv902_v1"].severity == "pass"
    assert by_name["GUILTY.VERDICT - domv902"].conversation[-1]["decision"]["confidence"] == 0.9731
    results.save(str(tmp_path / "clef.json"))
    reloaded = {r.scenario_name: r.judgment for r in AuditResults.load(str(tmp_path / "clef.json"))}
    assert reloaded["GUILTY.VERDICT - domv902"]["probabilities"] == {"yes": 0.9731, "no": 0.0269}


def test_request_carries_the_benchmark_input_and_never_the_answer(smoke):
    with FakeSystemOne() as server:
        target = make_decision_target("url", "clef-64k", url=f"{server.root}/v1/systemone", api_key="k")
        Auditor(target=target, judge="choice_match", max_turns=1, show_progress=False).run(smoke[:1])
    sent = server.requests[0]
    assert sent["auth"] == "Bearer k"
    body = sent["body"]
    question = body["questions"]["GUILTY.VERDICT"]
    assert question == {"type": "choice", "instructions": smoke[0]["decision"]["instructions"],
                        "criteria": smoke[0]["decision"]["criteria"]}
    assert set(body["state"]) == {"document", "language", "translation_notes", "documents"}
    assert body["state"]["documents"][0].startswith("[full_text]\n")
    assert body == json.loads(request_body(smoke[0], target))
    assert "accepted" not in json.dumps(body) and "Amnesty" not in json.dumps(body)


def test_choice_judge_on_a_decision_run(smoke):
    with FakeSystemOne() as server:
        target = make_decision_target("ollama", "clef-64k", base_url=f"{server.root}/v1")  # /v1 is dropped
        results = Auditor(target=target, judge=choice.make_judge(None), max_turns=1, show_progress=False).run(smoke)
    assert {r["path"] for r in server.requests} == {"/v1/systemone"}
    judgments = [r.judgment for r in results]
    assert {j["choice_method"] for j in judgments} == {"decision"}
    assert [j["correct"] for j in judgments] == [True, False, True]
    assert all(j["confidence"] is not None and j["probabilities"] for j in judgments)


def test_unknown_question_becomes_an_error_result_with_advice(smoke):
    scenario = json.loads(json.dumps(smoke[0]))
    scenario["decision"]["id"] = "UNRECORDED"
    with FakeSystemOne() as server:
        target = make_decision_target("url", "clef", url=f"{server.root}/v1/systemone")
        result = Auditor(target=target, judge="choice_match", max_turns=1, show_progress=False).run([scenario])[0]
    assert result.severity == "ERROR" and "HTTP 404" in result.judgment["error"]
    assert "/v1/systemone" in explain_decision_error(result.judgment["error"])


def test_family_role_questions_are_over_the_option_limit(tmp_path):
    pack = build_pack(tmp_path)
    over = [s["name"] for s in pack if over_option_limit(s, 26)]
    assert over == ["DEF.TYPE - domv901_d1", "DEF.TYPE - domv901_d2", "DEF.TYPE - domv902_d1"]
    assert not [s for s in pack if over_option_limit(s, None)]
    message = check_body_size(next(s for s in pack if s["name"] in over), make_decision_target("ollama", "clef"))
    assert "34 options" in message and "le26" in message


def test_ollama_body_limit_is_explained(smoke):
    target = make_decision_target("ollama", "clef")
    assert target.max_body_bytes == 64 * 1024 and check_body_size(smoke[0], target) is None
    small = DecisionTarget.ollama("clef", max_body_bytes=4096)
    message = check_body_size(smoke[1], small)
    assert message.startswith("DEF.SUSPENDED_SENTENCE - domv901_d1: request is ")
    assert "64 KiB" in message and "not shortened" in message and "\n" not in message


def test_ollama_body_limit_in_a_run_is_an_error_result(smoke):
    small = DecisionTarget.ollama("clef", base_url="http://127.0.0.1:9", max_body_bytes=4096)
    result = Auditor(target=small, judge="choice_match", max_turns=1, show_progress=False).run(smoke[1:2])[0]
    assert result.severity == "ERROR" and "4096-byte limit" in result.judgment["error"]
    assert "64 KiB" in explain_decision_error(result.judgment["error"])


def test_target_kinds(monkeypatch):
    monkeypatch.delenv("OPENROUTER_API_KEY", raising=False)
    assert make_decision_target("ollama", "clef").url == "http://localhost:11434/v1/systemone"
    with pytest.raises(DecisionSetupError, match="OPENROUTER_API_KEY"):
        make_decision_target("openrouter", "typesafe/jev-1.13")
    monkeypatch.setenv("OPENROUTER_API_KEY", "sk-test")
    router = make_decision_target("openrouter", "typesafe/jev-1.13")
    assert router.url.startswith("https://openrouter.ai/") and router.max_options == 26
    with pytest.raises(DecisionSetupError, match="--decision-url"):
        make_decision_target("url", "clef")
    assert make_decision_target("url", "clef", url="http://h/x", max_options=None).max_options is None
    with pytest.raises(DecisionSetupError, match="unknown decision endpoint"):
        make_decision_target("grpc", "clef")
