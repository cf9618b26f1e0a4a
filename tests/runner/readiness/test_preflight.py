"""The endpoint check before the first scenario: any HTTP answer passes; nothing listening is one line."""

import socket
from http.server import BaseHTTPRequestHandler

import pytest

from auditpacks.runner.models.errors import RunError
from auditpacks.runner.models.providers.checks import check_reachable
from auditpacks.runner.serving.loopback import LoopbackServer


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Answers(BaseHTTPRequestHandler):
    status = 404
    paths: list[str] = []

    def do_GET(self):  # noqa: N802
        Answers.paths.append(self.path)
        self.send_response(self.status)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


@pytest.mark.parametrize("status", [200, 401, 404, 500])
def test_any_http_answer_means_a_server_is_listening(status):
    Answers.status, Answers.paths = status, []
    with LoopbackServer(Answers) as server:
        check_reachable(server.url + "/v1/")
    assert Answers.paths == ["/v1/models"]


def test_nothing_listening_is_one_line_naming_the_url():
    url = f"http://127.0.0.1:{free_port()}/v1"
    with pytest.raises(RunError) as err:
        check_reachable(url)
    assert str(err.value).startswith(f"cannot reach {url}: ")
    assert "\n" not in str(err.value)


def test_a_server_that_never_answers_is_a_time_out():
    with socket.socket() as listener:  # accepts the connection (backlog), never answers
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        url = f"http://127.0.0.1:{listener.getsockname()[1]}"
        with pytest.raises(RunError) as err:
            check_reachable(url, timeout=0.3)
    assert str(err.value) == f"cannot reach {url}: no answer within 0.3 s"
