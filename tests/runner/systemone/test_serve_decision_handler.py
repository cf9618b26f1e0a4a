"""The System One server's request handling in process, on a fake connection and a fake upstream: the
decision of one body, the callers and bodies refused with their status, http.server's own refusals, the
health check, and the deadlines that cut reads."""

from __future__ import annotations

import http.client
import io
import json
from types import SimpleNamespace as NS

import pytest

from auditpacks.runner.systemone.decision_upstream import UpstreamError
from auditpacks.runner.systemone.serve_decision import DecisionServer

PORT = 4321
QUESTION = {"type": "choice", "instructions": "Guilty?", "criteria": {"yes": "Yes.", "no": "No."}}


class FakeUpstream:
    """Answers every question ``yes`` with 5 input and 1 output tokens, or raises ``error``."""

    def __init__(self, error: Exception | None = None) -> None:
        self.error, self.asked = error, []

    def answer(self, state_text, question):
        self.asked.append((state_text, question.id))
        if self.error is not None:
            raise self.error
        return {"choice": "yes", "confidence": 1.0}, 5, 1


def server(error: Exception | None = None, **options) -> DecisionServer:
    made = DecisionServer("http://127.0.0.1:9/v1", model="clef", **options)
    made.upstream = FakeUpstream(error)
    return made


def body_of(count: int = 1, **fields) -> dict:
    return {"model": "clef", "state": {"case": "A"}, "questions": {f"q{i}": QUESTION for i in range(count)}, **fields}


HEADERS = {"Host": f"127.0.0.1:{PORT}", "Content-Type": "application/json"}


def exchange(made: DecisionServer, body: bytes | dict | None = None, *, path="/v1/systemone", method="POST",
             headers=None, cut=False, rfile=None) -> tuple[int, dict, object]:
    """One request through the server's handler on in-memory streams: the status, the JSON answer, the handler."""
    raw = body if isinstance(body, bytes) else json.dumps(body).encode() if body is not None else b""
    given = {**HEADERS, **({"Content-Length": str(len(raw))} if body is not None else {}), **(headers or {})}
    cls = made._server.handler
    handler = cls.__new__(cls)
    handler.rfile, handler.wfile = io.BytesIO(raw), io.BytesIO()
    handler.server, handler.client_address = NS(server_address=("127.0.0.1", PORT)), ("127.0.0.1", 50000)
    handler.connection = NS(shutdown=lambda how: None)
    handler.command, handler.path, handler.request_version = method, path, "HTTP/1.1"
    handler.requestline, handler.close_connection = f"{method} {path} HTTP/1.1", False
    handler.headers = http.client.parse_headers(io.BytesIO("".join(f"{k}: {v}\r\n" for k, v in given.items())
                                                           .encode("latin-1") + b"\r\n"))
    handler._cut = cut
    if rfile is not None:
        handler.rfile = rfile(handler)
    getattr(handler, f"do_{method}")()
    head, _, data = handler.wfile.getvalue().partition(b"\r\n\r\n")
    return int(head.split()[1]), json.loads(data), handler


def test_a_decision_asks_the_upstream_once_per_question_and_adds_up_the_tokens():
    made = server()
    status, answer, handler = exchange(made, body_of(3))
    assert status == 200 and answer == {"model": "clef", "answers": {f"q{i}": {"choice": "yes", "confidence": 1.0}
                                                                     for i in range(3)},
                                        "usage": {"input_tokens": 15, "output_tokens": 3}}
    assert [qid for _, qid in made.upstream.asked] == ["q0", "q1", "q2"] and '"case": "A"' in made.upstream.asked[0][0]
    assert (made.calls, made.questions_per_call, made.refusals) == (1, [3], []) and not handler.close_connection


def test_the_alias_path_and_a_query_string_are_served():
    assert exchange(server(), body_of(), path="/v1/decisions?x=1")[0] == 200


@pytest.mark.parametrize("body, status, error", [
    (body_of(3), 400, "request field questions: 3 questions, over the limit of 2 questions per call"),
    (b"{not json", 400, "request body: not valid JSON ("),
    (b"[1, 2", 400, "request body: not valid JSON ("),
    (json.dumps({"model": "clef"}).encode(), 400, "request field state: must be a string, an object or an array"),
])
def test_a_body_that_is_not_a_decision_request_is_400(body, status, error):
    made = server(max_questions=2)
    got, answer, _ = exchange(made, body)
    assert got == status and answer["error"].startswith(error)


def test_a_refused_request_is_counted_with_its_reason():
    made = server(max_questions=2)
    exchange(made, body_of(3))
    assert made.questions_per_call == [3] and len(made.refusals) == 1 and "questions" in made.refusals[0]


@pytest.mark.parametrize("error, status, message", [
    (UpstreamError("upstream said no: Bearer abcdef0123456789xyz"), 502, "upstream said no: Bearer [api key]"),
    (KeyError("x" * 300), 500, "internal error: KeyError: '" + "x" * 199),
])
def test_an_upstream_failure_is_502_and_anything_else_500_in_one_line(error, status, message):
    got, answer, _ = exchange(server(error), body_of())
    assert got == status and answer["error"] == message


@pytest.mark.parametrize("headers, status, error", [
    ({"Host": "evil.example:4321"}, 403, "header Host: 'evil.example:4321' is not this server (use 127.0.0.1:4321)"),
    ({"Host": "LOCALHOST:4321 "}, 200, None), ({"Host": "[::1]:4321"}, 200, None),
    ({"Origin": "http://evil.example"}, 403, "header Origin: 'http://evil.example' may not call this server"),
    ({"Origin": "http://127.0.0.1:4321"}, 200, None), ({"Origin": "localhost:4321"}, 200, None),
    ({"Content-Type": "text/plain"}, 415, "header Content-Type: 'text/plain'; send application/json"),
    ({"Content-Type": "Application/JSON; charset=utf-8"}, 200, None),
    ({"Transfer-Encoding": "chunked"}, 400, "Transfer-Encoding is not supported; send a Content-Length"),
    ({"Content-Length": "abc"}, 400, "header Content-Length: 'abc' is not a byte count"),
    ({"Content-Length": "²"}, 400, "header Content-Length: '²' is not a byte count"),
    ({"Host": "h" * 100}, 403, f"header Host: {'h' * 80!r} is not this server (use 127.0.0.1:4321)"),  # cut at 80
    ({"Origin": "o" * 100}, 403, f"header Origin: {'o' * 80!r} may not call this server"),
    ({"Content-Type": "t" * 100}, 415, f"header Content-Type: {'t' * 80!r}; send application/json"),
    ({"Content-Length": "x" * 50}, 400, f"header Content-Length: {'x' * 40!r} is not a byte count"),  # at 40
])
def test_callers_and_headers_are_checked_before_the_body_is_read(headers, status, error):
    got, answer, handler = exchange(server(), body_of(), headers=headers)
    assert got == status and answer.get("error") == error
    assert handler.close_connection is (status != 200)


def test_a_missing_or_doubled_content_length_is_400():
    assert exchange(server(), None)[1]["error"] == "header Content-Length: missing"
    made = server()
    cls = made._server.handler
    assert cls.decisions is made and cls.header_timeout == 10.0 and cls.body_timeout == 30.0 and cls.timeout == 30.0


@pytest.mark.parametrize("limit, length, status, error", [
    (10, "11", 413, "request body: 11 bytes, over the limit of 10 bytes"),
    (10, "9" * 25, 413, f"request body: {'9' * 20} bytes, over the limit of 10 bytes"),
    (10, "0" * 21, 413, f"request body: {'0' * 20} bytes, over the limit of 10 bytes"),  # over 20 digits: not read
    (100, "50", 400, "request body: 3 of 50 bytes received"),
])
def test_a_body_over_the_limit_is_413_and_a_short_one_400(limit, length, status, error):
    got, answer, _ = exchange(server(max_body_bytes=limit), b"abc", headers={"Content-Length": length})
    assert (got, answer["error"]) == (status, error)


class Dripping(io.BytesIO):
    """A body whose read ends at the deadline: the handler is cut while it waits."""

    def __init__(self, handler, data: bytes = b"ab") -> None:
        super().__init__(data)
        self.handler = handler

    def read(self, size=-1):
        self.handler._cut = True
        return super().read(size)


def test_a_short_body_cut_at_its_deadline_is_408():
    got, answer, _ = exchange(server(body_timeout=2.5), b"abc", headers={"Content-Length": "50"}, rfile=Dripping)
    assert (got, answer) == (408, {"error": "request body: not received within 2.5 s"})


def test_the_declared_body_is_read_to_its_length_and_answered_even_when_its_deadline_passes_as_it_ends():
    raw = json.dumps(body_of()).encode()
    at_limit = {"Content-Length": str(len(raw)).zfill(20)}   # exactly the limit, in 20 digits
    assert exchange(server(max_body_bytes=len(raw)), raw, headers=at_limit)[0] == 200
    pipelined = exchange(server(), raw, rfile=lambda handler: io.BytesIO(raw + b"GET /health HTTP/1.1\r\n\r\n"))
    assert pipelined[:2] == (200, exchange(server(), raw)[1])   # what follows is the next request's
    assert exchange(server(), raw, rfile=lambda handler: Dripping(handler, raw))[0] == 200


class Stalled(io.BytesIO):
    def read(self, size=-1):
        raise TimeoutError("timed out")


def test_a_body_whose_socket_read_times_out_is_408():
    got, answer, _ = exchange(server(), body_of(), rfile=lambda handler: Stalled())
    assert (got, answer) == (408, {"error": "request body: not received in time"})


def test_headers_cut_at_their_deadline_are_408():
    got, answer, handler = exchange(server(header_timeout=1.5), body_of(), cut=True)
    assert (got, answer) == (408, {"error": "request headers: not received within 1.5 s"}) and handler.close_connection


def test_an_unknown_path_is_404_and_health_is_ok():
    assert exchange(server(), body_of(), path="/v1/other")[:2] == (404, {"error": "not found"})
    assert exchange(server(), path="/health?full=1", method="GET")[:2] == (200, {"status": "ok"})
    assert exchange(server(), path="/status", method="GET")[:2] == (404, {"error": "not found"})


@pytest.mark.parametrize("options", [{"max_questions": 0}, {"parallel": 0}, {"max_body_bytes": 0}])
def test_each_limit_is_at_least_one(options):
    with pytest.raises(ValueError, match="^max_questions, parallel and max_body_bytes must each be at least 1$"):
        DecisionServer("http://127.0.0.1:9/v1", **options)


def test_by_default_the_model_is_local_on_a_free_port_and_limits_of_one_are_allowed():
    made = DecisionServer("http://127.0.0.1:9/v1")
    assert (made.model, made.upstream.model, made.port, made._server.port) == ("local", "local", 0, 0)
    smallest = DecisionServer("http://127.0.0.1:9/v1", max_questions=1, parallel=1, max_body_bytes=1)
    assert (smallest.max_questions, smallest.max_body_bytes) == (1, 1)


def test_the_upstream_is_the_given_server_and_model():
    made = DecisionServer("http://127.0.0.1:9/v1/", model="m", timeout=7.0)
    assert (made.upstream.root, made.upstream.model, made.upstream.timeout, made.model) == \
        ("http://127.0.0.1:9", "m", 7.0, "m")
    with pytest.raises(RuntimeError, match="not running"):
        made.url
