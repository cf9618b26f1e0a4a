"""Serve a local decision model: System One over any OpenAI-compatible chat server.

    auditpacks serve-decision [--upstream URL] [--model NAME] [--port N] [--max-questions 64]

``POST /v1/systemone`` (alias ``/v1/decisions``) asks the chat server once per question: state
first, question last, options labelled with single tokens, a grammar allowing exactly one
label, ``max_tokens`` 1 and ``top_logprobs`` 20. Loopback only; ``GET /health`` says ok.
"""

from __future__ import annotations

import argparse
import itertools
import json
import signal
import string
import sys
import threading
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler
from typing import Any

from auditpacks.runner.serving.loopback import LoopbackServer
from auditpacks.runner.serving.systemone import (
    ChoiceQuestion,
    SystemOneError,
    choice_answer,
    decision_response,
    label_probabilities,
    parse_request,
    question_count,
)

from auditpacks.core.defaults import MAX_QUESTIONS

DECISION_PATHS = ("/v1/systemone", "/v1/decisions")
DEFAULT_PORT = 11435
TOP_LOGPROBS = 20
UPSTREAM_TIMEOUT_S = 3600.0
#: Label candidates in order; every prefix of a label is itself a label, so one sampled token
#: always names a complete label even where a two-letter label would take two tokens.
LABEL_CANDIDATES = (*string.ascii_uppercase, *map("".join, itertools.product(string.ascii_uppercase, repeat=2)))
SYSTEM_PROMPT = ("You are a decision model. Read the state, then answer the question about it with the label "
                 "of exactly one option.")


class UpstreamError(RuntimeError):
    """The chat server failed or answered in an unexpected shape."""


def render_state(state: str | dict | list) -> str:
    """The state as prompt text: its fields as JSON, then each of its ``documents`` in full."""
    if not isinstance(state, dict):
        return state if isinstance(state, str) else json.dumps(state, ensure_ascii=False, indent=1)
    fields = {key: value for key, value in state.items() if key != "documents"}
    documents = state.get("documents") or []
    parts = [json.dumps(fields, ensure_ascii=False, indent=1)] if fields else []
    for number, doc in enumerate(documents if isinstance(documents, list) else [documents], 1):
        parts.append(f"Document {number}:\n" + (doc if isinstance(doc, str) else json.dumps(doc, ensure_ascii=False)))
    return "\n\n".join(parts) or "(empty)"


def question_messages(state_text: str, question: ChoiceQuestion, labels: list[str]) -> list[dict]:
    """Chat messages for one question; every question on one state shares the prefix up to the question."""
    options = "\n".join(f"{label}) {key}" + (f": {desc}" if desc else "")
                        for label, (key, desc) in zip(labels, question.criteria.items()))
    user = (f"State:\n{state_text}\n\nQuestion: {question.instructions.strip()}\n\nOptions:\n{options}\n\n"
            f"Answer with the label of one option ({labels[0]}-{labels[-1]}) and nothing else.")
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user}]


class Upstream:
    """An OpenAI-compatible chat server (llama.cpp's ``/tokenize`` is used when present)."""

    def __init__(self, base_url: str, model: str, timeout: float = UPSTREAM_TIMEOUT_S):
        self.root = base_url.rstrip("/").removesuffix("/v1")
        self.model, self.timeout = model, timeout
        self._one_token: dict[str, bool] = {}
        self._tokenize_works = True

    def post(self, path: str, body: dict) -> dict:
        request = urllib.request.Request(self.root + path, data=json.dumps(body).encode("utf-8"),
                                         headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as resp:
                return json.loads(resp.read().decode("utf-8"))
        except urllib.error.HTTPError as exc:
            text = exc.read().decode("utf-8", "replace")[:300]
            raise UpstreamError(f"upstream {path} returned HTTP {exc.code}: {text}") from None
        except (urllib.error.URLError, OSError, ValueError) as exc:
            raise UpstreamError(f"upstream {path} failed: {exc}") from None

    def labels(self, count: int) -> list[str]:
        """``count`` labels, each one token for this server (A-Z first, then two-letter labels)."""
        doubles = (label for label in LABEL_CANDIDATES[26:] if self._is_one_token(label))
        labels = list(LABEL_CANDIDATES[:min(count, 26)]) + list(itertools.islice(doubles, max(0, count - 26)))
        if len(labels) < count:
            raise UpstreamError(f"the upstream tokenizer has only {len(labels)} single-token labels; {count} needed")
        return labels

    def _is_one_token(self, label: str) -> bool:
        if self._tokenize_works and label not in self._one_token:
            try:
                self._one_token[label] = len(self.post("/tokenize", {"content": label})["tokens"]) == 1
            except (UpstreamError, KeyError, TypeError):
                self._tokenize_works = False  # no /tokenize: take the labels as they come
        return self._one_token.get(label, True) if self._tokenize_works else True

    def answer(self, state_text: str, question: ChoiceQuestion) -> tuple[dict, int, int]:
        """One question's answer, with the call's input and output token counts."""
        labels = self.labels(len(question.criteria))
        body = {"model": self.model, "messages": question_messages(state_text, question, labels),
                "temperature": 0, "max_tokens": 1, "logprobs": True, "top_logprobs": TOP_LOGPROBS,
                "grammar": "root ::= " + " | ".join(f'"{label}"' for label in labels)}  # GBNF: one label
        data = self.post("/v1/chat/completions", body)
        try:
            choice = data["choices"][0]
            sampled = (choice["message"].get("content") or "").strip()
            position = ((choice.get("logprobs") or {}).get("content") or [{}])[0]
        except (KeyError, IndexError, TypeError, AttributeError):
            raise UpstreamError(f"upstream reply has no choice: {json.dumps(data)[:300]}") from None
        alternatives = [position, *(position.get("top_logprobs") or [])]  # the sampled token, then the top 20
        top = {alt["token"]: alt["logprob"] for alt in alternatives if "token" in alt}
        keys = dict(zip(labels, question.criteria))
        answer = choice_answer(label_probabilities(top, keys), sampled=keys.get(sampled))
        usage = data.get("usage") or {}
        return answer, int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens") or 0)


class DecisionServer:
    """The System One server as a context manager; ``.url`` is ``http://127.0.0.1:PORT``.

    ``questions_per_call``: the question count of every call received (refused ones too); ``calls``:
    its length; ``refusals``: the error of every call refused with HTTP 400."""

    def __init__(self, upstream_base_url: str, *, model: str = "local", port: int = 0,
                 max_questions: int = MAX_QUESTIONS, timeout: float = UPSTREAM_TIMEOUT_S):
        if max_questions < 1:
            raise ValueError(f"max_questions must be at least 1, got {max_questions}")
        self.upstream = Upstream(upstream_base_url, model, timeout)
        self.model, self.port, self.max_questions = model, port, max_questions
        self.questions_per_call: list[int] = []
        self.refusals: list[str] = []
        self._upstream_lock = threading.Lock()
        self._server = LoopbackServer(type("Handler", (_Handler,), {"decisions": self}), port)

    @property
    def calls(self) -> int:
        return len(self.questions_per_call)

    @property
    def url(self) -> str:
        return self._server.url

    def __enter__(self) -> "DecisionServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def start(self) -> "DecisionServer":
        self._server.start()
        return self

    def stop(self) -> None:
        self._server.stop()

    def decide(self, body: Any) -> dict:
        """The response to one request body; raises SystemOneError (bad body) or UpstreamError."""
        self.questions_per_call.append(question_count(body))  # list.append is atomic
        try:
            request = parse_request(body, max_questions=self.max_questions)
        except SystemOneError as exc:
            self.refusals.append(str(exc))
            raise
        state_text = render_state(request.state)
        with self._upstream_lock:  # one request at a time: its questions run back to back on one slot
            results = [self.upstream.answer(state_text, question) for question in request.questions]
        answers = {question.id: result[0] for question, result in zip(request.questions, results)}
        return decision_response(self.model, answers, sum(r[1] for r in results), sum(r[2] for r in results))


class _Handler(BaseHTTPRequestHandler):
    decisions: DecisionServer

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def _send(self, status: int, body: dict) -> None:
        payload = json.dumps(body, ensure_ascii=False).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def do_GET(self) -> None:
        found = self.path.split("?")[0] == "/health"
        self._send(200, {"status": "ok"}) if found else self._send(404, {"error": "not found"})

    def do_POST(self) -> None:
        if self.path.split("?")[0] not in DECISION_PATHS:
            return self._send(404, {"error": "not found"})
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            body = json.loads(raw.decode("utf-8"))
        except ValueError as exc:
            return self._send(400, {"error": f"request body: not valid JSON ({exc})"})
        try:
            self._send(200, self.decisions.decide(body))
        except SystemOneError as exc:
            self._send(400, {"error": str(exc)})
        except UpstreamError as exc:
            self._send(502, {"error": str(exc)})


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--upstream", metavar="URL",
                        help="OpenAI-compatible base URL (http://HOST:PORT/v1); default: start the embedded model")
    parser.add_argument("--model", metavar="NAME",
                        help="model name sent upstream and reported (default: smollm2 embedded, else 'local')")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT,
                        help=f"port on 127.0.0.1 (default {DEFAULT_PORT}; 0 picks a free one)")
    parser.add_argument("--max-questions", type=int, default=MAX_QUESTIONS,
                        help=f"questions accepted per call (default {MAX_QUESTIONS})")


def main(args: argparse.Namespace) -> int:
    """Serve until SIGINT or SIGTERM; 2 when the embedded model or the port is unavailable."""
    from auditpacks.runner.serving.embedded import EmbeddedModel, EmbeddedModelError

    stop = threading.Event()
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    embedded = None if args.upstream else EmbeddedModel()
    try:
        if embedded is not None:
            embedded.start()
        upstream = args.upstream or embedded.base_url
        model = args.model or (embedded.model if embedded else "local")
        with DecisionServer(upstream, model=model, port=args.port, max_questions=args.max_questions) as server:
            print(f"serving System One at {server.url}/v1/systemone (upstream {upstream}, model {model})", flush=True)
            stop.wait()
    except (EmbeddedModelError, OSError) as exc:  # no model, or the port is taken
        print(f"auditpacks serve-decision: error: {exc}", file=sys.stderr)
        return 2
    finally:
        if embedded is not None:
            embedded.stop()
    return 0

