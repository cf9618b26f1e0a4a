"""Serve a local decision model: System One over any OpenAI-compatible chat server.

    auditpacks serve-decision [--upstream URL] [--model NAME] [--port N] [--max-questions 64]

``POST /v1/systemone`` (alias ``/v1/decisions``) asks the chat server once per question: state
first, question last, options labelled with single tokens, a grammar allowing exactly one
label, ``max_tokens`` 1 and ``top_logprobs`` 20. Loopback only; ``GET /health`` says ok.
An upstream that ignores the grammar or returns no logprobs gets 502, never a made-up choice.
Callers are checked: ``Host`` and any ``Origin`` must name this loopback server (403) and the body
must be declared ``application/json`` (415), so a web page cannot drive it.
Bodies are capped (413), headers checked (400; a second ``Content-Length`` that differs too), and
every wait has a total deadline, whatever a client drips: the request line and headers within
``header_timeout`` of the connection or the previous answer (an idle keep-alive connection is closed
then), the body within ``body_timeout`` (408); each socket read has ``socket_timeout``, upstream calls
their own. A client that leaves is dropped quietly, never a traceback. Requests run side by side, up
to ``parallel`` of them asking the upstream at once.
"""

from __future__ import annotations

import argparse
import signal
import socket
import sys
import threading
from http.server import BaseHTTPRequestHandler
from typing import Any

from auditpacks.core.defaults import MAX_QUESTIONS
from auditpacks.core.io import parse_json
from auditpacks.core.redact import redact
from auditpacks.core.arg_types import integer, number
from auditpacks.core.arg_types import port as port_number
from auditpacks.runner.systemone.decision_upstream import UPSTREAM_TIMEOUT_S, Upstream, UpstreamError, render_state
from auditpacks.runner.serving.loopback import LoopbackServer, send_json
from auditpacks.runner.systemone.protocol import SystemOneError, decision_response, parse_request, question_count

DECISION_PATHS = ("/v1/systemone", "/v1/decisions")
DEFAULT_PORT = 11435
SOCKET_TIMEOUT_S = 30.0
HEADER_TIMEOUT_S = 10.0
BODY_TIMEOUT_S = 30.0
MAX_BODY_BYTES = 8 * 2**20
PARALLEL = 4
#: Host names a caller may give for this loopback server.
LOCAL_HOSTS = ("127.0.0.1", "localhost", "[::1]")


class DecisionServer:
    """The System One server as a context manager; ``.url`` is ``http://127.0.0.1:PORT``.

    ``questions_per_call``: the question count of every call received (refused ones too); ``calls``:
    its length; ``refusals``: the error of every call refused with HTTP 400."""

    def __init__(self, upstream_base_url: str, *, model: str = "local", port: int = 0,
                 max_questions: int = MAX_QUESTIONS, timeout: float = UPSTREAM_TIMEOUT_S,
                 max_body_bytes: int = MAX_BODY_BYTES, socket_timeout: float = SOCKET_TIMEOUT_S,
                 parallel: int = PARALLEL, header_timeout: float = HEADER_TIMEOUT_S,
                 body_timeout: float = BODY_TIMEOUT_S):
        if max_questions < 1 or parallel < 1 or max_body_bytes < 1:
            raise ValueError("max_questions, parallel and max_body_bytes must each be at least 1")
        self.upstream = Upstream(upstream_base_url, model, timeout)
        self.model, self.port, self.max_questions, self.max_body_bytes = model, port, max_questions, max_body_bytes
        self.questions_per_call: list[int] = []
        self.refusals: list[str] = []
        self._slots = threading.BoundedSemaphore(parallel)
        handler = type("Handler", (_Handler,), {"decisions": self, "timeout": socket_timeout,
                                                "header_timeout": header_timeout, "body_timeout": body_timeout})
        self._server = LoopbackServer(handler, port)

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
        with self._slots:  # up to `parallel` requests at once; each one's questions run back to back
            results = [self.upstream.answer(state_text, question) for question in request.questions]
        answers = {question.id: result[0] for question, result in zip(request.questions, results)}
        return decision_response(self.model, answers, sum(r[1] for r in results), sum(r[2] for r in results))


class _Handler(BaseHTTPRequestHandler):
    decisions: DecisionServer
    header_timeout: float
    body_timeout: float
    _timer: threading.Timer | None = None
    _cut = False

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def handle_one_request(self) -> None:
        self._deadline(self.header_timeout)   # the request line and headers, counted from the wait for them
        try:
            super().handle_one_request()
        except OSError:  # the client left (or was cut at a deadline) while we read or answered: nothing to say
            self.close_connection = True
        finally:
            self._deadline(None)

    def _deadline(self, seconds: float | None) -> None:
        """From now on, reads stop after ``seconds`` in all (the socket is shut for reading then; None: none)."""
        if self._timer is not None:
            self._timer.cancel()
        self._timer, self._cut = None, False
        if seconds is not None:
            self._timer = threading.Timer(seconds, self._cut_reads)
            self._timer.daemon = True
            self._timer.start()

    def _cut_reads(self) -> None:
        self._cut = True
        try:
            self.connection.shutdown(socket.SHUT_RD)   # a blocked read returns at once; answering still works
        except OSError:
            pass

    def _send(self, status: int, body: dict) -> None:
        send_json(self, status, body)

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """http.server's own refusals (a bad request line, headers too long) as JSON with a status line; a
        request cut at its header deadline is 408."""
        if self._cut:
            code, message = 408, f"request headers: not received within {self.header_timeout:g} s"
        if self.request_version == "HTTP/0.9":  # no version read yet: answer with a status line all the same
            self.request_version = "HTTP/1.0"
        self.close_connection = True
        self._send(code, {"error": message or self.responses.get(code, ("error",))[0]})

    def do_GET(self) -> None:
        self._deadline(None)
        found = self.path.split("?")[0] == "/health"
        self._send(200, {"status": "ok"}) if found else self._send(404, {"error": "not found"})

    def do_POST(self) -> None:
        headers_cut = self._cut
        self._deadline(self.body_timeout)
        if headers_cut:
            self.close_connection = True
            return self._send(408, {"error": f"request headers: not received within {self.header_timeout:g} s"})
        if self.path.split("?")[0] not in DECISION_PATHS:
            return self._send(404, {"error": "not found"})
        try:
            self._check_caller()
            raw = self._body()
        except _Refused as refused:
            self.close_connection = True
            return self._send(refused.status, {"error": str(refused)})
        finally:
            self._deadline(None)
        try:
            body = parse_json(raw.decode("utf-8"), "request body", SystemOneError)
        except SystemOneError as exc:  # nested too deeply, a huge number, a lone surrogate
            return self._send(400, {"error": str(exc)})
        except ValueError as exc:
            return self._send(400, {"error": f"request body: not valid JSON ({exc})"})
        try:
            self._send(200, self.decisions.decide(body))
        except SystemOneError as exc:
            self._send(400, {"error": str(exc)})
        except UpstreamError as exc:
            self._send(502, {"error": redact(str(exc))})
        except Exception as exc:  # noqa: BLE001 - one line to the client, never a traceback
            self._send(500, {"error": f"internal error: {type(exc).__name__}: {str(exc)[:200]}"})

    def _check_caller(self) -> None:
        """Refuse a request a web page could have made: a Host or Origin other than this loopback server
        (403: DNS rebinding, cross-site posts) or a body not declared as JSON (415: a form post)."""
        port = self.server.server_address[1]
        local = {f"{host}:{port}" for host in LOCAL_HOSTS}
        host = (self.headers.get("Host") or "").strip().lower()
        if host not in local:
            raise _Refused(403, f"header Host: {host[:80]!r} is not this server (use 127.0.0.1:{port})")
        origin = self.headers.get("Origin")
        if origin is not None and origin.strip().lower().removeprefix("http://") not in local:
            raise _Refused(403, f"header Origin: {origin[:80]!r} may not call this server")
        kind = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        if kind != "application/json":
            raise _Refused(415, f"header Content-Type: {kind[:80]!r}; send application/json")

    def _body(self) -> bytes:
        """The request body, read within the limits; :class:`_Refused` with the HTTP status otherwise."""
        if self.headers.get("Transfer-Encoding"):
            raise _Refused(400, "Transfer-Encoding is not supported; send a Content-Length")
        if len({value.strip() for value in self.headers.get_all("Content-Length") or []}) > 1:
            raise _Refused(400, "header Content-Length: given more than once with different values")
        length = (self.headers.get("Content-Length") or "").strip()
        if not length.isascii() or not length.isdigit():
            raise _Refused(400, f"header Content-Length: {length[:40]!r} is not a byte count" if length
                           else "header Content-Length: missing")
        size = int(length[:20]) if len(length) <= 20 else self.decisions.max_body_bytes + 1
        if size > self.decisions.max_body_bytes:
            raise _Refused(413, f"request body: {length[:20]} bytes, over the limit of "
                                f"{self.decisions.max_body_bytes} bytes")
        try:
            raw = self.rfile.read(size)
        except (socket.timeout, TimeoutError):
            raise _Refused(408, "request body: not received in time") from None
        if len(raw) < size and self._cut:
            raise _Refused(408, f"request body: not received within {self.body_timeout:g} s")
        if len(raw) < size:
            raise _Refused(400, f"request body: {len(raw)} of {size} bytes received")
        return raw


class _Refused(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--upstream", metavar="URL",
                        help="OpenAI-compatible base URL (http://HOST:PORT/v1); default: start the embedded model")
    parser.add_argument("--model", metavar="NAME",
                        help="model name sent upstream and reported (default: smollm2 embedded, else 'local')")
    parser.add_argument("--port", type=port_number, default=DEFAULT_PORT,
                        help=f"port on 127.0.0.1 (default {DEFAULT_PORT}; 0 picks a free one)")
    parser.add_argument("--max-questions", type=integer(1), default=MAX_QUESTIONS,
                        help=f"questions accepted per call (default {MAX_QUESTIONS})")
    parser.add_argument("--max-body-bytes", type=integer(1), default=MAX_BODY_BYTES,
                        help=f"largest request body accepted; larger ones get 413 (default {MAX_BODY_BYTES})")
    parser.add_argument("--upstream-timeout", type=number(0.0, above=True), default=UPSTREAM_TIMEOUT_S,
                        help=f"seconds per upstream call (default {UPSTREAM_TIMEOUT_S:g})")
    parser.add_argument("--parallel", type=integer(1), default=None,
                        help=f"requests asking the upstream at once (default {PARALLEL}; 1 with the embedded model, "
                             "which has one slot)")


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
        parallel = args.parallel or (1 if embedded is not None else PARALLEL)
        with DecisionServer(upstream, model=model, port=args.port, max_questions=args.max_questions,
                            timeout=args.upstream_timeout, max_body_bytes=args.max_body_bytes,
                            parallel=parallel) as server:
            print(redact(f"serving System One at {server.url}/v1/systemone (upstream {upstream}, model {model})"),
                  flush=True)
            stop.wait()
    except (EmbeddedModelError, OSError) as exc:  # no model, or the port is taken
        print(redact(f"auditpacks serve-decision: error: {exc}"), file=sys.stderr)
        return 2
    finally:
        if embedded is not None:
            embedded.stop()
    return 0

