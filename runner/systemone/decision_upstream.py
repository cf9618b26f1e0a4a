"""The chat server behind ``serve-decision``: prompt, labels, one grammar-bound token per question.

:class:`Upstream` asks an OpenAI-compatible server one question at a time (temperature 0,
``max_tokens`` 1, ``top_logprobs`` 20, a GBNF grammar allowing one label) and turns the
answer position's logprobs into option probabilities. A reply without logprobs, one that
ignores the grammar, or one of another shape is an :class:`UpstreamError` (HTTP 502 at the
server), never a made-up choice.
"""

from __future__ import annotations

import itertools
import json
import math
import string
import threading
from typing import Any

import httpx

from auditpacks.core.bounded import http as bounded_http

from auditpacks.runner.systemone.protocol import ChoiceQuestion, choice_answer, label_probabilities

#: Largest upstream reply read (a one-token answer is a few kilobytes).
MAX_REPLY_BYTES = 8 * 2**20
TOP_LOGPROBS = 20
UPSTREAM_TIMEOUT_S = 300.0
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
        self._labels_lock = threading.Lock()

    def post(self, path: str, body: dict) -> dict:
        """The JSON answer to one POST, read under the byte cap within ``timeout`` seconds in all."""
        try:
            with bounded_http.client(self.root, timeout=self.timeout, max_bytes=MAX_REPLY_BYTES) as client:
                resp = client.post(self.root + path, content=json.dumps(body).encode("utf-8"),
                                   headers={"Content-Type": "application/json"})
            if resp.status_code >= 400:
                raise UpstreamError(f"upstream {path} returned HTTP {resp.status_code}: {resp.text[:300]}")
            return json.loads(resp.content.decode("utf-8"))
        except (httpx.HTTPError, OSError, ValueError) as exc:
            text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise UpstreamError(f"upstream {path} failed: {text}") from None

    def labels(self, count: int) -> list[str]:
        """``count`` labels, each one token for this server (A-Z first, then two-letter labels)."""
        with self._labels_lock:  # one request at a time checks (and caches) the two-letter labels
            doubles = (label for label in LABEL_CANDIDATES[26:] if self._is_one_token(label))
            labels = list(LABEL_CANDIDATES[:min(count, 26)]) + list(itertools.islice(doubles, max(0, count - 26)))
        if len(labels) < count:
            raise UpstreamError(f"the upstream tokenizer has only {len(labels)} single-token labels; {count} needed")
        return labels

    def _is_one_token(self, label: str) -> bool:
        if self._tokenize_works and label not in self._one_token:
            try:
                self._one_token[label] = len(self.post("/tokenize", {"content": label})["tokens"]) == 1
            except (UpstreamError, KeyError, TypeError, IndexError):
                self._tokenize_works = False  # no /tokenize: take the labels as they come
        return self._one_token.get(label, True)  # a label found to be two tokens stays out after a failure

    def answer(self, state_text: str, question: ChoiceQuestion) -> tuple[dict, int, int]:
        """One question's answer, with the call's input and output token counts."""
        labels = self.labels(len(question.criteria))
        body = {"model": self.model, "messages": question_messages(state_text, question, labels),
                "temperature": 0, "max_tokens": 1, "logprobs": True, "top_logprobs": TOP_LOGPROBS,
                "grammar": "root ::= " + " | ".join(f'"{label}"' for label in labels)}  # GBNF: one label
        data = self.post("/v1/chat/completions", body)
        sampled, top = read_completion(data)
        keys = dict(zip(labels, question.criteria))
        if not top:
            raise UpstreamError("upstream returned no logprobs for the answer token; serve-decision needs a server "
                                "with logprob support (top_logprobs), such as llama.cpp")
        if sampled not in keys and not set(top) & set(keys):
            raise UpstreamError(f"upstream ignored the label grammar: it answered {sampled[:40]!r} and no option "
                                "label is among its top tokens; serve-decision needs a server that honours "
                                "a GBNF grammar, such as llama.cpp")
        answer = choice_answer(label_probabilities(top, keys), sampled=keys.get(sampled))
        usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
        return answer, _count(usage.get("prompt_tokens")), _count(usage.get("completion_tokens"))


def read_completion(data: Any) -> tuple[str, dict[str, float]]:
    """The sampled text and ``{token: logprob}`` of the answer position (the sampled token, then the top
    alternatives) from a chat completion; :class:`UpstreamError` when the reply has another shape."""
    try:
        choice = data["choices"][0]
        sampled = choice["message"].get("content") or ""
        logprobs = choice.get("logprobs") or {}
        content = logprobs.get("content") or [{}] if isinstance(logprobs, dict) else None
        position = content[0] if isinstance(content, list) and content else {}
        if not isinstance(sampled, str) or not isinstance(position, dict):
            raise TypeError
        alternatives = [position, *(position.get("top_logprobs") or [])]
    except (KeyError, IndexError, TypeError, AttributeError):
        raise UpstreamError(f"upstream reply is not a chat completion: {json.dumps(data)[:300]}") from None
    top = {}
    for alt in alternatives:
        if isinstance(alt, dict) and isinstance(alt.get("token"), str) and isinstance(alt.get("logprob"), (int, float)) \
                and not isinstance(alt.get("logprob"), bool):
            if math.isnan(alt["logprob"]) or alt["logprob"] == math.inf:  # not a log probability: never a guess
                raise UpstreamError(f"upstream gave token {alt['token'][:40]!r} the logprob {alt['logprob']}, which "
                                    "is not a log probability")
            if math.isfinite(alt["logprob"]) and alt["logprob"] <= 0:
                top.setdefault(alt["token"], float(alt["logprob"]))
    return sampled.strip(), top


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0
