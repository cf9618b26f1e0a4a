"""Batched decision requests: one System One call per state (up to the limit), each answer graded as its own scenario."""

from __future__ import annotations

import hashlib
import json
import math
import threading
from collections import Counter
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest

from auditpacks.packs.pack import PackWriter
from auditpacks.packs.scenario import make_scenario
from auditpacks.runner.cli.main import main
from auditpacks.runner.serving.loopback import LoopbackServer
from tests.support.runs import results, run_file

OPTIONS = {"guilty": "Found guilty.", "acquitted": "Acquitted.", "dismissed": "Case dismissed."}


def pick(instructions: str) -> str:
    """The fake model's choice: a function of the question alone, so answers can be checked per scenario."""
    return list(OPTIONS)[int(hashlib.sha256(instructions.encode()).hexdigest(), 16) % len(OPTIONS)]


class FakeSystemOne:
    """A System One endpoint on 127.0.0.1 that records every call; ``reject`` answers batches with that status."""

    def __init__(self, *, reject: int | None = None, max_questions: int = 64) -> None:
        self.reject, self.max_questions = reject, max_questions
        self.calls: list[dict[str, Any]] = []
        self.sizes: list[int] = []
        self._lock = threading.Lock()

    def __enter__(self) -> "FakeSystemOne":
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:
                pass

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                status, reply = fake.handle(raw)
                data = json.dumps(reply).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self._server = LoopbackServer(Handler).start()
        self.url = self._server.url + "/v1/systemone"
        return self

    def __exit__(self, *exc) -> None:
        self._server.stop()

    def handle(self, raw: bytes) -> tuple[int, dict[str, Any]]:
        body = json.loads(raw)
        questions = body["questions"]
        with self._lock:
            self.calls.append(body)
            self.sizes.append(len(raw))
        if self.reject and len(questions) > 1:
            return self.reject, {"error": "one question per call"}
        if len(questions) > self.max_questions:
            return 400, {"error": f"over the limit of {self.max_questions} questions per call"}
        answers = {qid: {"type": "choice", "choice": pick(q["instructions"]), "confidence": 0.9,
                         "probabilities": {k: (0.9 if k == pick(q["instructions"]) else 0.05) for k in OPTIONS}}
                   for qid, q in questions.items()}
        return 200, {"model": "fake", "answers": answers,
                     "usage": {"input_tokens": 100 * len(questions) + 1, "output_tokens": len(questions)}}

    def calls_per_state(self) -> Counter:
        return Counter(json.dumps(call["state"], sort_keys=True) for call in self.calls)


def decision_scenario(doc: int, q: int, *, ids: bool = True, person: str | None = None,
                      text: str | None = None, pad: int = 0) -> dict[str, Any]:
    about = f" for {person}" if person else ""
    instructions = f"Question {q} on judgment J{doc}: what was the outcome{about}?" + " Consider it." * pad
    decision = {"instructions": instructions, "criteria": dict(OPTIONS), "accepted": [pick(instructions)]}
    if ids:
        decision["id"] = f"q{q}"
    if person:
        decision["state"] = {"person": person}
    return make_scenario(
        name=f"J{doc} {person or ''} q{q}", description="Outcome question.", test_prompt=instructions,
        language="en", expected_behavior=["Answers the outcome."], category="System Integrity",
        subcategory="Hallucination", severity="medium",
        source={"type": "adapted", "origin": "runner tests", "original_language": "en"},
        metadata={"verdict_id": f"J{doc}", "question_id": f"q{q}"}, date_created="2026-12-01",
        documents=[text or f"Judgment J{doc}. The court heard the case and ruled."], decision=decision,
    )


def write(path: Path, scenarios: list[dict[str, Any]]) -> Path:
    with PackWriter(path, builder="tests", extra={"grading": {"judge": "choice_match"}}) as writer:
        for scenario in scenarios:
            writer.add(scenario)
    return path


def run_decisions(pack: Path, out: Path, url: str, *extra: str) -> int:
    return main(["run", "--pack", str(pack), "--decision-url", url, "--target", "fake", "--out", str(out),
                 "--quiet", "--no-probe", *extra])


def choices(out: Path) -> dict[str, str]:
    return {r["scenario_name"]: r["conversation"][-1]["decision"]["choice"] for r in results(out, "fake")}


def test_one_call_per_state_up_to_the_limit_and_answers_go_to_their_scenarios(tmp_path):
    scenarios = [decision_scenario(d, q) for d in range(3) for q in range(6)]
    scenarios += [decision_scenario(3, q, ids=False) for q in range(70)]  # every id "answer": renamed in a batch
    pack = write(tmp_path / "p.json", scenarios)
    with FakeSystemOne() as server:
        assert run_decisions(pack, tmp_path / "batched", server.url) == 0
        per_state = server.calls_per_state()
    assert sorted(per_state.values()) == [1, 1, 1, math.ceil(70 / 64)]
    assert sorted(len(call["questions"]) for call in server.calls) == [6, 6, 6, 6, 64]
    big = max(server.calls, key=lambda c: len(c["questions"]))
    assert list(big["questions"])[:3] == ["answer", "answer~2", "answer~3"]
    stored = results(tmp_path / "batched", "fake")
    assert [r["scenario_name"] for r in stored] == [s["name"] for s in scenarios]  # pack order
    for scenario, result in zip(scenarios, stored):
        assert result["conversation"][-1]["decision"]["choice"] == pick(scenario["decision"]["instructions"])
        assert result["severity"] == "pass"
        assert result["conversation"][0]["content"] == scenario["test_prompt"]
    assert sum(r["target_input_tokens"] for r in stored) == sum(100 * len(c["questions"]) + 1 for c in server.calls)
    batching = run_file(tmp_path / "batched", "fake")["performance"]["decision_batching"]
    assert batching["batch_sizes"] == {"64": 1, "6": 4} and batching["single_calls"] == 0
    assert batching["requests"] == 5 and batching["fallbacks"] == []


def test_batch_questions_1_sends_simpleaudits_single_requests_with_the_same_choices(tmp_path):
    scenarios = [decision_scenario(d, q) for d in range(2) for q in range(5)]
    pack = write(tmp_path / "p.json", scenarios)
    with FakeSystemOne() as server:
        assert run_decisions(pack, tmp_path / "single", server.url, "--batch-questions", "1") == 0
        assert all(len(call["questions"]) == 1 for call in server.calls) and len(server.calls) == 10
    with FakeSystemOne() as server:
        assert run_decisions(pack, tmp_path / "batched", server.url) == 0
        assert len(server.calls) == 2
    assert choices(tmp_path / "single") == choices(tmp_path / "batched")
    assert run_file(tmp_path / "single", "fake")["fingerprint"] == run_file(tmp_path / "batched", "fake")["fingerprint"]


@pytest.mark.parametrize("status", [400, 413, 422])
def test_a_rejected_batch_falls_back_to_single_questions_and_says_so(tmp_path, capsys, status):
    scenarios = [decision_scenario(d, q) for d in range(2) for q in range(4)]
    pack = write(tmp_path / "p.json", scenarios)
    with FakeSystemOne(reject=status) as server:
        assert run_decisions(pack, tmp_path / "out", server.url) == 0
        sizes = [len(call["questions"]) for call in server.calls]
    stops = status in (400, 422)  # the endpoint refuses batches: stop trying after the first
    assert sizes == ([4] + [1] * 8 if stops else [4, 1, 1, 1, 1, 4, 1, 1, 1, 1])
    assert choices(tmp_path / "out") == {s["name"]: pick(s["decision"]["instructions"]) for s in scenarios}
    record = run_file(tmp_path / "out", "fake")
    fallbacks = record["performance"]["decision_batching"]["fallbacks"]
    assert [f["status"] for f in fallbacks] == [status] * (1 if stops else 2)
    assert record["summary"]["notes"][0].startswith(f"decision batch of 4 questions: HTTP {status}")
    assert "asked 4 of them one at a time" in capsys.readouterr().out


def test_states_differ_by_person_and_document(tmp_path):
    scenarios = [decision_scenario(0, q, person=p) for p in ("A", "B") for q in range(3)]
    scenarios += [decision_scenario(1, q, person="A") for q in range(3)]
    pack = write(tmp_path / "p.json", scenarios)
    with FakeSystemOne() as server:
        assert run_decisions(pack, tmp_path / "out", server.url) == 0
    assert [len(c["questions"]) for c in server.calls] == [3, 3, 3]
    assert [c["state"]["person"] for c in server.calls] == ["A", "B", "A"]
    assert all(c["state"]["documents"] for c in server.calls)


def test_batches_keep_the_ollama_body_limit_and_oversize_questions_are_skipped(tmp_path):
    text = "The court considered the evidence. " * 1700  # about 60 KB of state
    scenarios = [decision_scenario(0, q, text=text, pad=60) for q in range(5)]
    scenarios.append(decision_scenario(0, 9, text=text, pad=500))  # its own body is over 64 KiB
    pack = write(tmp_path / "p.json", scenarios)
    with FakeSystemOne() as server:
        base = server.url.removesuffix("/v1/systemone")
        code = main(["run", "--pack", str(pack), "--decision", "ollama", "--base-url", base, "--target", "fake",
                     "--no-probe", "--out", str(tmp_path / "out"), "--quiet"])
        assert code == 0
        assert all(size <= 64 * 1024 for size in server.sizes)
        assert sum(len(c["questions"]) for c in server.calls) == 5 and len(server.calls) < 5
    stored = {r["scenario_name"]: r for r in results(tmp_path / "out", "fake")}
    assert scenarios[-1]["name"] not in stored and len(stored) == 5  # too large to send: skipped and counted
    run = json.loads((tmp_path / "out" / "fake.run.json").read_text())
    assert run["summary"]["skipped"] == {"over the endpoint's 65536-byte request limit": 1}
