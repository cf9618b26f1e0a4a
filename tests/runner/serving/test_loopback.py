"""The loopback HTTP server: 127.0.0.1 only, a free port, attributes for its handlers, a clean stop."""

import json
import threading
import urllib.request
from http.server import BaseHTTPRequestHandler

import pytest

from auditpacks.runner.serving.loopback import LoopbackServer


class JSONGet(BaseHTTPRequestHandler):
    """Answers each GET with :meth:`answer` as JSON."""

    def answer(self):
        raise NotImplementedError

    def do_GET(self):  # noqa: N802
        body = json.dumps(self.answer()).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


class Echo(JSONGet):
    def answer(self):
        return {"path": self.path, "greeting": self.server.greeting}


def test_serves_on_loopback_with_attributes_for_the_handler():
    with LoopbackServer(Echo, greeting="hello") as server:
        assert server.url.startswith("http://127.0.0.1:") and not server.url.endswith(":0")
        with urllib.request.urlopen(server.url + "/x?y=1", timeout=5) as resp:
            assert json.loads(resp.read()) == {"path": "/x?y=1", "greeting": "hello"}


def test_after_stop_the_port_is_closed_and_url_is_refused():
    server = LoopbackServer(Echo, greeting="").start()
    url = server.url
    server.stop()
    server.stop()  # twice is harmless
    with pytest.raises(RuntimeError, match="the server is not running"):
        server.url
    with pytest.raises(OSError):
        urllib.request.urlopen(url, timeout=2)


def test_send_json_answers_json_with_its_length_and_bytes_as_they_are():
    import http.client
    from http.server import BaseHTTPRequestHandler

    from auditpacks.runner.serving.loopback import LoopbackServer, send_json

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):
            send_json(self, 418, b"raw" if self.path == "/raw" else {"name": "Ä"})

    with LoopbackServer(Handler) as server:
        host, port = server.url.removeprefix("http://").rstrip("/").split(":")
        for path, body in (("/", '{"name": "Ä"}'.encode("utf-8")), ("/raw", b"raw")):
            conn = http.client.HTTPConnection(host, int(port), timeout=5)
            conn.request("GET", path)
            reply = conn.getresponse()
            assert (reply.status, reply.getheader("Content-Type"), reply.read()) == (418, "application/json", body)
            assert reply.getheader("Content-Length") == str(len(body))
            conn.close()


class Daemons(JSONGet):
    """Answers with whether the thread answering is a daemon thread."""

    def answer(self):
        return threading.current_thread().daemon


def test_no_thread_of_the_server_keeps_the_process_alive():
    """The serving thread and each request's thread are daemon threads, so a run that ends without stopping a
    server still exits."""
    before = set(threading.enumerate())
    with LoopbackServer(Daemons) as server:
        assert all(t.daemon for t in set(threading.enumerate()) - before)
        with urllib.request.urlopen(server.url, timeout=5) as resp:
            assert json.loads(resp.read()) is True


def test_two_servers_at_once_each_get_a_free_port():
    with LoopbackServer(Echo, greeting="a") as one, LoopbackServer(Echo, greeting="b") as two:
        assert one.url != two.url
        with urllib.request.urlopen(two.url, timeout=5) as resp:
            assert json.loads(resp.read())["greeting"] == "b"


def test_a_server_not_started_has_no_url_and_stops_harmlessly():
    server = LoopbackServer(Echo)
    with pytest.raises(RuntimeError, match="^the server is not running$"):
        server.url
    server.stop()
