"""serve-decision under hostile clients and degenerate upstreams: 413, 400, 408, 502, never a made-up choice."""

from __future__ import annotations

import http.client
import json
import math
import socket
import threading
import time

import pytest

from auditpacks.runner.systemone.serve_decision import DecisionServer
from tests.support.stub_http import StubHTTP

REQUEST = {"model": "m", "state": "The court convicted.",
           "questions": {"q": {"type": "choice", "instructions": "Outcome?", "criteria": {"yes": "y", "no": "n"}}}}


def completion(content: str, top: list[tuple[str, float]] | None) -> dict:
    choice = {"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}
    if top is not None:
        alts = [{"token": t, "logprob": lp} for t, lp in top]
        choice["logprobs"] = {"content": [{**alts[0], "top_logprobs": alts}]}
    return {"choices": [choice], "usage": {"prompt_tokens": 10, "completion_tokens": 1}}


def good_upstream(method, path, headers, body):
    if path == "/tokenize":
        return 404, {}
    return 200, completion("A", [("A", math.log(0.7)), ("B", math.log(0.2))])


def post(url: str, body: bytes, headers: dict[str, str] | None = None) -> tuple[int, dict]:
    host, port = url.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=30)
    conn.putrequest("POST", "/v1/systemone", skip_accept_encoding=True)
    for name, value in {"Content-Type": "application/json", **(headers or {"Content-Length": str(len(body))})}.items():
        conn.putheader(name, value)
    conn.endheaders()
    conn.send(body)
    response = conn.getresponse()
    status, data = response.status, json.loads(response.read() or b"{}")
    conn.close()
    return status, data


def test_bodies_over_the_limit_and_malformed_headers_are_refused_without_reading():
    with StubHTTP(good_upstream) as upstream, DecisionServer(upstream.url + "/v1", max_body_bytes=1000) as server:
        assert post(server.url, json.dumps(REQUEST).encode())[0] == 200
        status, data = post(server.url, b"x" * 2000)
        assert status == 413 and "over the limit of 1000 bytes" in data["error"]
        status, data = post(server.url, b"{}", {"Content-Length": str(10 * 2**30)})  # 10 GB announced
        assert status == 413
        for bad in ("abc", "-5", "1e3", ""):
            status, data = post(server.url, b"{}", {"Content-Length": bad})
            assert status == 400 and "Content-Length" in data["error"]
        status, _ = post(server.url, b"{}", {"Transfer-Encoding": "chunked"})
        assert status == 400
    assert len(upstream.requests) == 1  # nothing refused went upstream


def test_a_short_body_times_out_instead_of_holding_a_thread():
    with StubHTTP(good_upstream) as upstream, DecisionServer(upstream.url + "/v1", socket_timeout=0.5) as server:
        host, port = server.url.removeprefix("http://").split(":")
        with socket.create_connection((host, int(port)), timeout=30) as sock:
            sock.sendall(f"POST /v1/systemone HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
                         "Content-Length: 100\r\n\r\n{\"mo".encode())
            reply = sock.recv(4096).decode()
        assert reply.startswith("HTTP/1.0 408") or reply.startswith("HTTP/1.1 408")


def test_a_slow_upstream_times_out_as_502():
    release = threading.Event()

    def slow(method, path, headers, body):
        release.wait(10)
        return good_upstream(method, path, headers, body)

    with StubHTTP(slow) as upstream, DecisionServer(upstream.url + "/v1", timeout=0.3) as server:
        status, data = post(server.url, json.dumps(REQUEST).encode())
        release.set()
    assert status == 502 and "timed out" in data["error"]


def test_requests_are_answered_side_by_side_not_behind_one_lock():
    gate = threading.Barrier(3, timeout=10)

    def meet(method, path, headers, body):
        if path == "/v1/chat/completions":
            gate.wait()  # only passes when three requests are upstream at once
        return good_upstream(method, path, headers, body)

    with StubHTTP(meet) as upstream, DecisionServer(upstream.url + "/v1", parallel=3) as server:
        outcomes = []
        threads = [threading.Thread(target=lambda: outcomes.append(post(server.url, json.dumps(REQUEST).encode())))
                   for _ in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
    assert [status for status, _ in outcomes] == [200, 200, 200] and upstream.peak >= 3


@pytest.mark.parametrize("reply, reason", [
    (completion("Hello there", None), "no logprobs"),
    (completion("Hello", [("Hello", -0.1), ("Hi", -2.5)]), "ignored the label grammar"),
    ({"choices": None}, "not a chat completion"),
    ({"choices": [{"message": "x"}]}, "not a chat completion"),
    ([1, 2], "not a chat completion"),
])
def test_degenerate_upstream_output_is_502_never_a_made_up_choice(reply, reason):
    def degenerate(method, path, headers, body):
        return (404, {}) if path == "/tokenize" else (200, reply)

    with StubHTTP(degenerate) as upstream, DecisionServer(upstream.url + "/v1") as server:
        status, data = post(server.url, json.dumps(REQUEST).encode())
    assert status == 502 and reason in data["error"] and "\n" not in data["error"]
