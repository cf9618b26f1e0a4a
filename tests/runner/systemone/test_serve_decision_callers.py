"""serve-decision answers only callers on this machine that send JSON: a foreign Host or Origin is 403 (DNS
rebinding, a web page's post) and another content type is 415, before the body is read."""

from __future__ import annotations

import http.client
import json

import pytest

from auditpacks.runner.systemone.serve_decision import DecisionServer
from tests.support.stub_http import StubHTTP

BODY = json.dumps({"model": "m", "state": "s", "questions": {
    "q": {"type": "choice", "instructions": "?", "criteria": {"yes": "y", "no": "n"}}}}).encode()


def upstream(method, path, headers, body):
    if path == "/tokenize":
        return 404, {}
    top = {"token": "A", "logprob": -0.1}
    return 200, {"choices": [{"message": {"content": "A"}, "logprobs": {"content": [{**top, "top_logprobs": [top]}]}}]}


def post(port: int, headers: dict[str, str]) -> tuple[int, str]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.putrequest("POST", "/v1/systemone", skip_host=True, skip_accept_encoding=True)
    for name, value in {**headers, "Content-Length": str(len(BODY))}.items():
        conn.putheader(name, value)
    conn.endheaders()
    conn.send(BODY)
    response = conn.getresponse()
    status, text = response.status, response.read().decode()
    conn.close()
    return status, text


@pytest.mark.parametrize("headers, status, words", [
    ({"Host": "evil.example:{port}", "Content-Type": "application/json"}, 403, "header Host"),
    ({"Content-Type": "application/json"}, 403, "header Host"),  # none at all
    ({"Host": "127.0.0.1:{port}", "Origin": "http://evil.example", "Content-Type": "application/json"}, 403,
     "header Origin"),
    ({"Host": "127.0.0.1:{port}", "Content-Type": "text/plain"}, 415, "Content-Type"),
    ({"Host": "127.0.0.1:{port}"}, 415, "Content-Type"),
    ({"Host": "localhost:{port}", "Origin": "http://127.0.0.1:{port}",
      "Content-Type": "application/json; charset=utf-8"}, 200, "answers"),
])
def test_callers_are_checked(headers, status, words):
    with StubHTTP(upstream) as stub, DecisionServer(stub.url + "/v1") as server:
        port = int(server.url.rsplit(":", 1)[1])
        got, text = post(port, {k: v.format(port=port) for k, v in headers.items()})
        calls = len(stub.requests)
    assert got == status and words in text, text
    assert (calls == 0) is (status != 200)  # a refused caller never reaches the upstream


@pytest.mark.parametrize("body, words", [
    (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
    (b'{"model": "m", "state": 1' + b"0" * 5000 + b"}", "a number too long"),
    (b'{"model": "\\ud800", "state": "s", "questions": {}}', "lone UTF-16 surrogate"),
])
def test_a_body_at_the_parsers_limits_is_400_in_one_line(body, words):
    with StubHTTP(upstream) as stub, DecisionServer(stub.url + "/v1") as server:
        port = int(server.url.rsplit(":", 1)[1])
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        conn.request("POST", "/v1/systemone", body=body, headers={"Content-Type": "application/json"})
        response = conn.getresponse()
        status, data = response.status, json.loads(response.read())
        conn.close()
    assert status == 400 and words in data["error"] and "\n" not in data["error"]
