"""A System One server with injectable faults, for the decision probes: it reads only the first
``truncate_tokens`` whitespace tokens of the state, or prefers whichever option is listed first, or
refuses more than ``max_options`` options (400) or bodies over ``max_body_bytes`` (413), or leaves
every answer out.

The model is a rule: each option's weight is 1 + 3 × (times its key appears as a word in the part
of the state it reads), times 5 for the first option when ``order_sensitive``; probabilities are
the weights normalised and rounded to 4 decimals, the choice the heaviest (the first listed on a
tie), the confidence its probability. ``requests`` counts the POSTs.
"""

from __future__ import annotations

import json
import re
from http.server import BaseHTTPRequestHandler
from typing import Any

from auditpacks.runner.serving.loopback import LoopbackServer


def state_text(state: Any) -> str:
    if isinstance(state, dict):
        rest = {k: v for k, v in state.items() if k != "documents"}
        return json.dumps(rest) + "\n" + "\n".join(str(d) for d in state.get("documents") or [])
    return state if isinstance(state, str) else json.dumps(state)


class FaultySystemOne:
    def __init__(self, *, truncate_tokens: int | None = None, order_sensitive: bool = False,
                 max_options: int | None = None, max_body_bytes: int | None = None, drop_answers: bool = False):
        self.truncate_tokens, self.order_sensitive = truncate_tokens, order_sensitive
        self.max_options, self.max_body_bytes, self.drop_answers = max_options, max_body_bytes, drop_answers
        self.requests = 0
        self._server = LoopbackServer(_Handler, fake=self)

    @property
    def url(self) -> str:
        return self._server.url + "/v1/systemone"

    def __enter__(self) -> "FaultySystemOne":
        self._server.start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.stop()

    def answer(self, state: Any, question: dict) -> dict:
        words = re.findall(r"[a-z0-9]+", state_text(state).lower()) if self.truncate_tokens is None else \
            re.findall(r"[a-z0-9]+", " ".join(state_text(state).split()[:self.truncate_tokens]).lower())
        keys = list(question["criteria"])
        weights = [(1 + 3 * words.count(key.lower())) * (5 if self.order_sensitive and i == 0 else 1)
                   for i, key in enumerate(keys)]
        probabilities = {key: round(w / sum(weights), 4) for key, w in zip(keys, weights)}
        choice = keys[weights.index(max(weights))]
        return {"type": "choice", "choice": choice, "confidence": probabilities[choice], "probabilities": probabilities}

    def reply(self, raw: bytes) -> tuple[int, dict]:
        self.requests += 1
        if self.max_body_bytes is not None and len(raw) > self.max_body_bytes:
            return 413, {"error": f"request body over {self.max_body_bytes} bytes"}
        body = json.loads(raw)
        questions = body["questions"]
        if self.max_options is not None and any(len(q["criteria"]) > self.max_options for q in questions.values()):
            return 400, {"error": f"a choice takes at most {self.max_options} options"}
        answers = {} if self.drop_answers else {qid: self.answer(body["state"], q) for qid, q in questions.items()}
        return 200, {"model": body["model"], "answers": answers, "usage": {"input_tokens": 10, "output_tokens": 1}}


class _Handler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:  # noqa: N802 (http.server naming)
        status, payload = self.server.fake.reply(self.rfile.read(int(self.headers["Content-Length"])))
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: Any) -> None:
        pass
