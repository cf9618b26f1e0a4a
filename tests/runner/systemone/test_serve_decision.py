"""The System One decision server: protocol checks, its upstream calls, and real runs (shapes only)."""

from __future__ import annotations

import json
import math
import signal
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler

import pytest

from auditpacks.runner.serving.loopback import LoopbackServer
from auditpacks.runner.systemone.decision_upstream import Upstream, question_messages, render_state
from auditpacks.runner.systemone.serve_decision import DecisionServer
from auditpacks.runner.systemone.protocol import SystemOneError, check_response, choice_answer, label_probabilities, parse_request
from tests.support.paths import ROOT

VERDICT = {"type": "choice", "instructions": "Did the court find the defendant guilty?",
           "criteria": {"yes": "Found guilty", "no": "Not found guilty"}}
COURT = {"type": "choice", "instructions": "Which court decided?",
         "criteria": {"basic": "A basic court", "appeal": "The court of appeals", "supreme": None}}
STATE = {"jurisdiction": "Kosovo", "documents": ["Aktgjykim. The court finds the defendant guilty of assault."]}


def body_with(**questions) -> dict:
    return {"model": "local", "state": STATE, "questions": questions}


def post(url: str, body) -> tuple[int, dict]:
    data = body if isinstance(body, bytes) else json.dumps(body).encode("utf-8")
    request = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=600) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def closed_port_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}/v1"  # closed once returned


# -- the protocol (pure) --------------------------------------------------------------------------

def test_parse_request_accepts_what_decision_target_sends():
    from simpleaudit import DecisionTarget

    decision = {"id": "verdict", "type": "choice", "instructions": VERDICT["instructions"],
                "criteria": VERDICT["criteria"], "state": {"jurisdiction": "Kosovo"}}
    body = DecisionTarget(url="http://127.0.0.1:1/v1/systemone", model="local", max_options=None).build_request(
        decision, "prompt text", documents=[{"text": "Aktgjykim."}])
    request = parse_request(json.loads(json.dumps(body)))
    assert request.state == {"jurisdiction": "Kosovo", "documents": ["Aktgjykim."]}
    assert [(q.id, q.criteria) for q in request.questions] == [("verdict", VERDICT["criteria"])]


def one(**changes) -> dict:
    return {"model": "m", "state": "s", "questions": {"q": {**VERDICT, **changes}}}


@pytest.mark.parametrize("body, message", [
    ([], "request body"), ({"state": "s", "questions": {"q": VERDICT}}, "field model"),
    ({**one(), "state": 3}, "field state"), ({**one(), "questions": {}}, "questions: empty"),
    (body_with(**{f"q{i}": VERDICT for i in range(65)}), "limit of 64"), (one(type="score"), "'q' field type"),
    (one(instructions=" "), "'q' field instructions"), (one(criteria={"a": 1, "b": "x"}), "'q' field criteria.a"),
    (one(criteria={"a": "x"}), "'q' field criteria: a choice needs 2-255 options, got 1"),
    (one(criteria={str(i): "" for i in range(256)}), "got 256"),
    ({**one(), "questions": {"q": "yes?"}}, "question 'q': must be an object"),
    (body_with(a=VERDICT, b=VERDICT), "limit of 1 questions"),
])
def test_parse_request_names_the_broken_field(body, message):
    with pytest.raises(SystemOneError, match=message):
        parse_request(body, max_questions=1 if "limit of 1" in message else 64)


def test_softmax_over_labels_with_a_floor_then_rounding_and_ties():
    probs = label_probabilities({"A": math.log(0.6), "B": math.log(0.2), "The": math.log(0.1)},
                                {"A": "yes", "B": "no", "C": "maybe"})
    # "C" is unseen: its floor is the lower of the smallest listed logprob and the unlisted mass (0.1)
    assert probs == pytest.approx({"yes": 6 / 9, "no": 2 / 9, "maybe": 1 / 9})
    assert label_probabilities({}, {"A": "x", "B": "y"}) == {"x": 0.5, "y": 0.5}
    answer = choice_answer({"x": 0.5, "y": 0.5}, sampled="y")
    assert answer == {"type": "choice", "choice": "y", "confidence": 0.5, "probabilities": {"x": 0.5, "y": 0.5}}
    assert choice_answer({"x": 0.123456, "y": 0.876544})["probabilities"] == {"x": 0.1235, "y": 0.8765}


def test_check_response_rejects_a_choice_outside_the_options_and_bad_sums():
    request = parse_request(body_with(verdict=VERDICT))
    good = {"answers": {"verdict": choice_answer({"yes": 0.7, "no": 0.3})}}
    assert check_response(good, request)["verdict"]["choice"] == "yes"
    with pytest.raises(SystemOneError, match="'verdict' field choice"):
        check_response({"answers": {"verdict": {**good["answers"]["verdict"], "choice": "maybe"}}}, request)
    with pytest.raises(SystemOneError, match="sum to 0.5000"):
        check_response({"answers": {"verdict": {**good["answers"]["verdict"],
                                                "probabilities": {"yes": 0.4, "no": 0.1}}}}, request)


# -- prompts and labels ---------------------------------------------------------------------------

def test_prompt_has_the_whole_state_as_a_shared_prefix_and_the_question_last():
    text = render_state({"jurisdiction": "Kosovo", "documents": ["First text.", "Second text."]})
    assert '"jurisdiction": "Kosovo"' in text and "Document 1:\nFirst text." in text and "Second text." in text
    assert render_state("plain") == "plain" and json.loads(render_state([1, 2])) == [1, 2]
    state_text = render_state(STATE)
    request = parse_request(body_with(verdict=VERDICT, court=COURT))
    first, second = (question_messages(state_text, q, ["A", "B", "C"][:len(q.criteria)]) for q in request.questions)
    assert first[0] == second[0]
    shared = first[1]["content"].split("Question:")[0]
    assert state_text in shared and second[1]["content"].startswith(shared)
    assert "C) supreme" in second[1]["content"] and second[1]["content"].rstrip().endswith("nothing else.")


def test_labels_need_no_tokenizer_up_to_26_and_fall_back_without_one():
    upstream = Upstream(closed_port_url(), "m")
    assert upstream.labels(3) == ["A", "B", "C"]
    assert upstream.labels(30)[24:] == ["Y", "Z", "AA", "AB", "AC", "AD"]


# -- the server against a stub upstream -----------------------------------------------------------

class StubChat(BaseHTTPRequestHandler):
    """An OpenAI chat server that always samples "B" and records the bodies it gets."""
    bodies: list[dict] = []

    def log_message(self, *args):
        pass

    def do_POST(self):
        StubChat.bodies.append(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
        top = [{"token": t, "logprob": math.log(p)} for t, p in (("B", 0.7), ("A", 0.2), ("Hello", 0.05))]
        payload = json.dumps({"choices": [{"message": {"role": "assistant", "content": "B"},
                                           "logprobs": {"content": [{**top[0], "top_logprobs": top}]}}],
                              "usage": {"prompt_tokens": 50, "completion_tokens": 1}}).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


@pytest.fixture
def stub_server():
    StubChat.bodies = []
    with LoopbackServer(StubChat) as upstream, DecisionServer(f"{upstream.url}/v1", model="stub") as server:
        yield server


def test_each_question_is_one_grammar_constrained_single_token_call(stub_server):
    status, reply = post(f"{stub_server.url}/v1/systemone", body_with(verdict=VERDICT, court=COURT))
    assert status == 200 and reply["model"] == "stub" and reply["usage"] == {"input_tokens": 100, "output_tokens": 2}
    assert reply["answers"]["verdict"]["choice"] == "no" and reply["answers"]["court"]["choice"] == "appeal"
    check_response(reply, parse_request(body_with(verdict=VERDICT, court=COURT)))
    first, second = StubChat.bodies
    assert (first["max_tokens"], first["temperature"], first["logprobs"], first["top_logprobs"]) == (1, 0, True, 20)
    assert first["grammar"] == 'root ::= "A" | "B"' and second["grammar"] == 'root ::= "A" | "B" | "C"'
    assert stub_server.calls == 1 and stub_server.questions_per_call == [2]


def test_refusals_are_400_with_one_line_naming_the_limit(stub_server):
    status, reply = post(f"{stub_server.url}/v1/decisions", body_with(**{f"q{i}": VERDICT for i in range(65)}))
    assert status == 400 and "limit of 64 questions per call" in reply["error"]
    status, reply = post(f"{stub_server.url}/v1/systemone", one(criteria={"yes": "x"}))
    assert status == 400 and reply["error"] == "question 'q' field criteria: a choice needs 2-255 options, got 1"
    assert post(f"{stub_server.url}/v1/systemone", b"{not json")[0] == 400
    assert post(f"{stub_server.url}/v1/other", body_with(q=VERDICT))[0] == 404
    assert stub_server.questions_per_call == [65, 1] and len(stub_server.refusals) == 2 and not StubChat.bodies


def test_an_unreachable_upstream_is_502_and_health_stays_ok():
    with DecisionServer(closed_port_url()) as server:
        status, reply = post(f"{server.url}/v1/systemone", body_with(verdict=VERDICT))
        assert status == 502 and "upstream /v1/chat/completions failed" in reply["error"]
        with urllib.request.urlopen(f"{server.url}/health", timeout=10) as resp:
            assert json.loads(resp.read()) == {"status": "ok"}


def test_cli_main_serves_until_sigterm():
    code = ("import argparse, sys; from auditpacks.runner.systemone.serve_decision import add_arguments, main; "
            "p = argparse.ArgumentParser(); add_arguments(p); sys.exit(main(p.parse_args(sys.argv[1:])))")
    proc = subprocess.Popen([sys.executable, "-c", code, "--upstream", closed_port_url(), "--port", "0"],
                            cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        assert line.startswith("serving System One at http://127.0.0.1:") and "model local" in line
        base = line.split(" at ")[1].split("/v1/systemone")[0]
        with urllib.request.urlopen(f"{base}/health", timeout=10) as resp:
            assert json.loads(resp.read()) == {"status": "ok"}
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0
    finally:
        proc.kill()
        proc.wait()
        proc.stdout.close()


# -- the real embedded model (shapes only) -------------------------------------------------------

@pytest.fixture(scope="module")
def decision_server(embedded_model):
    with DecisionServer(embedded_model.base_url, model=embedded_model.model) as server:
        yield server


def test_real_model_answers_a_batch_including_more_than_26_options(decision_server, embedded_model):
    for label in decision_server.upstream.labels(28)[24:]:  # Y, Z, AA, AB: one token each
        assert len(post(f"{embedded_model.root_url}/tokenize", {"content": label})[1]["tokens"]) == 1, label
    many = {"type": "choice", "instructions": "Pick seven.", "criteria": {f"n{i}": None for i in range(28)}}
    body = body_with(verdict=VERDICT, court=COURT, n=many)
    status, reply = post(f"{decision_server.url}/v1/systemone", body)
    assert status == 200, reply
    answers = check_response(reply, parse_request(body))  # choices among the options, confidences in [0, 1]
    for qid, answer in answers.items():
        assert set(answer["probabilities"]) == set(body["questions"][qid]["criteria"])
        assert sum(answer["probabilities"].values()) == pytest.approx(1.0, abs=0.02)
        assert answer["confidence"] == max(answer["probabilities"].values())
    assert reply["usage"]["input_tokens"] > 0 and reply["usage"]["output_tokens"] == 3


def test_simpleaudit_decision_target_keeps_choice_confidence_and_probabilities(decision_server):
    from simpleaudit import Auditor, DecisionTarget

    scenarios = [
        {"name": "Verdict - Guilty", "description": "Reads a short verdict.", "severity": "medium",
         "documents": ["Aktgjykim. The court finds the defendant guilty."],
         "decision": {"id": "verdict", "instructions": VERDICT["instructions"], "criteria": VERDICT["criteria"],
                      "accepted": ["yes"], "state": {"jurisdiction": "Kosovo"}}},
        {"name": "Court - Level", "description": "Names the court.",
         "decision": {"id": "court", "instructions": COURT["instructions"], "criteria": COURT["criteria"]}},
    ]
    target = DecisionTarget(url=f"{decision_server.url}/v1/systemone", model="local", max_options=None)
    auditor = Auditor(target=target, judge="choice_match", max_turns=1, show_progress=False)
    results = {result.scenario_name: result for result in auditor.run(scenarios).results}
    for scenario in scenarios:
        result, criteria = results[scenario["name"]], scenario["decision"]["criteria"]
        assert result.severity != "ERROR", result.summary
        decision = result.conversation[-1]["decision"]
        assert decision["choice"] in criteria and result.judgment["choice"] == decision["choice"]
        assert result.judgment["confidence"] == decision["confidence"] and 0.0 <= decision["confidence"] <= 1.0
        assert set(result.judgment["probabilities"]) == set(criteria)
        assert sum(result.judgment["probabilities"].values()) == pytest.approx(1.0, abs=0.01)
