"""The System One server's connection handling in process, on in-memory streams and a fake timer: whole requests
read from the raw bytes, the header and body deadlines, reads cut at a deadline, http.server's own refusals as
JSON, a client that leaves, starting and stopping, and the ``parallel`` slots."""

from __future__ import annotations

import io
import json
import socket
from types import SimpleNamespace as NS

import pytest

from auditpacks.runner.systemone import serve_decision
from auditpacks.runner.systemone.serve_decision import DecisionServer
from tests.runner.systemone.test_serve_decision_handler import PORT, body_of, server


class FakeTimer:
    """``threading.Timer``: what it would call after how long, and whether it was started and cancelled."""

    made: list["FakeTimer"] = []

    def __init__(self, seconds, function) -> None:
        self.seconds, self.function, self.daemon, self.started, self.cancelled = seconds, function, False, False, False
        FakeTimer.made.append(self)

    def start(self) -> None:
        self.started = True

    def cancel(self) -> None:
        self.cancelled = True


@pytest.fixture(autouse=True)
def timers(monkeypatch):
    FakeTimer.made = []
    monkeypatch.setattr(serve_decision.threading, "Timer", FakeTimer)
    return FakeTimer.made


class Connection:
    """The client socket: each ``shutdown`` is noted; ``fails`` makes it raise as on a closed socket."""

    def __init__(self, fails: bool = False) -> None:
        self.fails, self.shut = fails, []

    def shutdown(self, how) -> None:
        self.shut.append(how)
        if self.fails:
            raise OSError("not connected")


class Gone(io.BytesIO):
    """A reply stream whose client has left."""

    def write(self, data) -> int:
        raise BrokenPipeError("the client left")


def handler_for(made: DecisionServer, raw: bytes = b"", *, wfile=None, connection=None):
    """A handler of ``made`` on a connection whose client sent ``raw``."""
    cls = made._server.handler
    handler = cls.__new__(cls)
    handler.rfile, handler.wfile = io.BytesIO(raw), wfile or io.BytesIO()
    handler.server, handler.client_address = NS(server_address=("127.0.0.1", PORT)), ("127.0.0.1", 50000)
    handler.connection, handler.close_connection = connection or Connection(), False
    handler.request_version, handler.command, handler.requestline = "HTTP/0.9", None, ""
    return handler


CALLER = (f"Host: 127.0.0.1:{PORT}", "Content-Type: application/json")


def request(body: bytes, *headers: str, caller: tuple[str, ...] = CALLER) -> bytes:
    lines = ["POST /v1/systemone HTTP/1.1", *caller, *headers]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


def answer(handler) -> tuple[bytes, dict]:
    """The status line and the JSON body the handler sent."""
    head, _, data = handler.wfile.getvalue().partition(b"\r\n\r\n")
    return head.split(b"\r\n")[0], json.loads(data)


def test_a_whole_request_is_answered_with_a_deadline_for_its_headers_then_one_for_its_body(timers):
    made = server(header_timeout=1.5, body_timeout=2.5)
    raw = json.dumps(body_of(2)).encode()
    handler = handler_for(made, request(raw, f"Content-Length: {len(raw)}"))
    handler.handle_one_request()
    line, reply = answer(handler)
    assert line == b"HTTP/1.0 200 OK" and reply["usage"] == {"input_tokens": 10, "output_tokens": 2}
    assert [(t.seconds, t.daemon, t.started, t.cancelled) for t in timers] == [(1.5, True, True, True),
                                                                               (2.5, True, True, True)]
    assert handler._timer is None and handler._cut is False


def test_a_deadline_cuts_reads_by_shutting_the_socket_for_reading(timers):
    connection = Connection()
    handler = handler_for(server(), connection=connection)
    handler._deadline(4.0)
    (timer,) = timers
    timer.function()
    assert handler._cut is True and connection.shut == [socket.SHUT_RD]
    handler._deadline(None)
    assert timer.cancelled and handler._timer is None and handler._cut is False and len(timers) == 1


def test_cutting_a_socket_already_closed_is_quiet():
    handler = handler_for(server(), connection=Connection(fails=True))
    handler._cut_reads()
    assert handler._cut is True and handler.connection.shut == [socket.SHUT_RD]


def test_a_client_that_leaves_before_its_answer_closes_the_connection_quietly(timers):
    raw = json.dumps(body_of()).encode()
    handler = handler_for(server(), request(raw, f"Content-Length: {len(raw)}"), wfile=Gone())
    handler.handle_one_request()
    assert handler.close_connection is True and handler._timer is None and all(t.cancelled for t in timers)


@pytest.mark.parametrize("lengths, status, error", [
    (("Content-Length: 5", "Content-Length: {n}"), b"400", "header Content-Length: given more than once with "
                                                             "different values"),
    (("Content-Length: {n}", "Content-Length:  {n} "), b"200", None),
])
def test_a_second_content_length_must_agree_with_the_first(lengths, status, error):
    raw = json.dumps(body_of()).encode()
    handler = handler_for(server(), request(raw, *(h.format(n=len(raw)) for h in lengths)))
    handler.handle_one_request()
    line, reply = answer(handler)
    assert line.split()[1] == status and reply.get("error") == error


@pytest.mark.parametrize("caller, body, status, error", [
    (CALLER[1:], b"{}", b"403", f"header Host: '' is not this server (use 127.0.0.1:{PORT})"),
    (CALLER[:1], b"{}", b"415", "header Content-Type: ''; send application/json"),
    (CALLER, b"[" * 100_000 + b"]" * 100_000, b"400", "request body: JSON nested too deeply to read"),
])
def test_a_request_without_a_host_or_a_content_type_or_nested_too_deeply_is_refused(caller, body, status, error):
    handler = handler_for(server(), request(body, f"Content-Length: {len(body)}", caller=caller))
    handler.handle_one_request()
    line, reply = answer(handler)
    assert line.split()[1] == status and reply["error"].startswith(error) and "\n" not in reply["error"]


@pytest.mark.parametrize("raw, line, error", [
    (b"NONSENSE\r\n\r\n", b"HTTP/1.0 400 Bad Request", "Bad request syntax ('NONSENSE')"),
    (b"PUT /v1/systemone HTTP/1.1\r\n\r\n", b"HTTP/1.0 501 Not Implemented", "Unsupported method ('PUT')"),
    (b"GET /" + b"x" * 70000 + b" HTTP/1.1\r\n\r\n", b"HTTP/1.0 414 Request-URI Too Long", "Request-URI Too Long"),
])
def test_http_servers_own_refusals_are_json_with_a_status_line_and_close_the_connection(raw, line, error):
    handler = handler_for(server(), raw)
    handler.handle_one_request()
    assert answer(handler) == (line, {"error": error}) and handler.close_connection is True


def test_a_refusal_without_a_known_reason_says_error_and_one_cut_at_the_header_deadline_is_408():
    handler = handler_for(server())
    handler.send_error(599)
    assert answer(handler)[1] == {"error": "error"}
    cut = handler_for(server(header_timeout=1.5))
    cut._cut = True
    cut.send_error(400, "Bad request syntax")
    assert answer(cut) == (b"HTTP/1.0 408 Request Timeout", {"error": "request headers: not received within 1.5 s"})


def test_an_idle_connection_at_its_header_deadline_is_closed_without_an_answer(timers):
    handler = handler_for(server())
    handler.handle_one_request()
    assert handler.close_connection is True and handler.wfile.getvalue() == b"" and timers[0].seconds == 10.0


class Loopback:
    """The HTTP server under the decision server: started, stopped, and its URL."""

    url = "http://127.0.0.1:4321"

    def __init__(self) -> None:
        self.events = []

    def start(self):
        self.events.append("start")

    def stop(self):
        self.events.append("stop")


def test_the_server_starts_and_stops_its_loopback_server_and_serves_on_its_port():
    made = DecisionServer("http://127.0.0.1:9/v1", port=4321)
    assert made._server.port == 4321 and made.port == 4321
    made._server = loopback = Loopback()
    with made as entered:
        assert entered is made and loopback.events == ["start"] and made.url == "http://127.0.0.1:4321"
    assert loopback.events == ["start", "stop"]
    assert made.start() is made


def test_a_request_holds_one_of_the_parallel_slots_while_it_asks_the_upstream():
    made = server(parallel=3)
    held = []

    def answer_holding(state_text, question):
        free = [made._slots.acquire(blocking=False) for _ in range(3)]
        for taken in filter(None, free):
            made._slots.release()
        held.append(free)
        return {"choice": "yes", "confidence": 1.0}, 1, 1
    made.upstream.answer = answer_holding
    made.decide(body_of(2))
    assert held == [[True, True, False]] * 2
    assert all(made._slots.acquire(blocking=False) for _ in range(3))   # every slot given back
