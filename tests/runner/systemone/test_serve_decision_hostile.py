"""serve-decision against dripping and leaving clients: headers, body and idle connections cut at their deadlines,
no traceback when a client leaves, a second Content-Length that differs refused."""

from __future__ import annotations

import json
import socket
import time

from auditpacks.runner.systemone.serve_decision import DecisionServer
from tests.runner.systemone.test_serve_decision_limits import REQUEST, good_upstream, post
from tests.support.stub_http import StubHTTP


def connect(server):
    host, port = server.url.removeprefix("http://").split(":")
    return socket.create_connection((host, int(port)), timeout=20), port


def drip(sock, data: bytes, every_s: float, limit_s: float) -> bytes:
    """Send ``data`` a byte at a time until the server answers or closes (bounded by ``limit_s``); its reply."""
    sock.settimeout(every_s)
    until = time.monotonic() + limit_s
    for byte in data:
        if time.monotonic() > until:
            break
        try:
            sock.sendall(bytes([byte]))
            return rest_of(sock, sock.recv(4096))   # an answer, or b"" for a closed connection
        except socket.timeout:
            continue
        except OSError:
            return b""
    return b"(still connected)"


def rest_of(sock, first: bytes) -> bytes:
    """``first`` and what follows until the server closes (its answers end the connection)."""
    parts = [first]
    sock.settimeout(5)
    while parts[-1]:
        parts.append(sock.recv(4096))
    return b"".join(parts)


def head(port, length: int) -> bytes:
    return (f"POST /v1/systemone HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {length}\r\n\r\n").encode()


def test_dripping_headers_are_cut_at_the_header_deadline():
    with StubHTTP(good_upstream) as upstream, DecisionServer(upstream.url + "/v1", header_timeout=1.0) as server:
        sock, port = connect(server)
        with sock:
            started = time.monotonic()
            reply = drip(sock, head(port, 10) * 20, every_s=0.1, limit_s=15)
        assert time.monotonic() - started < 4 and reply != b"(still connected)"
        status, _, rest = reply.partition(b"\r\n\r\n")
        assert status.split()[1] == b"408" and json.loads(rest) == {"error": "request headers: not received within 1 s"}


def test_a_dripping_body_is_408_at_the_body_deadline():
    with StubHTTP(good_upstream) as upstream, DecisionServer(upstream.url + "/v1", body_timeout=1.0) as server:
        sock, port = connect(server)
        with sock:
            sock.sendall(head(port, 1000))
            started = time.monotonic()
            reply = drip(sock, b"x" * 1000, every_s=0.1, limit_s=15)
        assert time.monotonic() - started < 4
        status, _, rest = reply.partition(b"\r\n\r\n")
        assert status.split()[1] == b"408" and json.loads(rest) == {"error": "request body: not received within 1 s"}
    assert upstream.requests == []


def test_an_idle_connection_is_closed_at_the_header_deadline():
    with StubHTTP(good_upstream) as upstream, DecisionServer(upstream.url + "/v1", header_timeout=0.5) as server:
        sock, _ = connect(server)
        with sock:
            started = time.monotonic()
            assert sock.recv(10) == b"" and time.monotonic() - started < 3


def test_a_client_that_leaves_before_its_answer_causes_no_traceback(capfd):
    def slow(method, path, headers, body):
        time.sleep(0.3)
        return good_upstream(method, path, headers, body)

    body = json.dumps(REQUEST).encode()
    with StubHTTP(slow) as upstream, DecisionServer(upstream.url + "/v1") as server:
        for _ in range(3):
            sock, port = connect(server)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")  # RST on close
            sock.sendall(head(port, len(body)) + body)
            sock.close()
        time.sleep(1.5)
        assert post(server.url, body)[0] == 200   # still serving
    assert "Traceback" not in capfd.readouterr().err


def test_a_second_content_length_that_differs_is_refused_one_that_agrees_is_taken():
    body = json.dumps(REQUEST).encode()
    with StubHTTP(good_upstream) as upstream, DecisionServer(upstream.url + "/v1") as server:
        sock, port = connect(server)
        with sock:
            sock.sendall(head(port, len(body))[:-2] + b"Content-Length: 5\r\n\r\n" + body)
            reply = rest_of(sock, sock.recv(4096))
        status, _, rest = reply.partition(b"\r\n\r\n")
        assert status.split()[1] == b"400"
        assert json.loads(rest) == {"error": "header Content-Length: given more than once with different values"}
        sock, port = connect(server)
        with sock:
            sock.sendall(head(port, len(body))[:-2] + f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
            assert sock.recv(4096).split()[1] == b"200"
