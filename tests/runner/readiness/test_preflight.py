"""The endpoint check before the first scenario: any HTTP answer passes; nothing listening is one line; a chat
model's check is its provider class's; the judge and auditor are checked unless embedded; a decision endpoint is
asked at its own URL."""

import socket
from http.server import BaseHTTPRequestHandler
from types import SimpleNamespace

import pytest

from auditpacks.runner.models.errors import RunError
from auditpacks.runner.models.providers.checks import check_reachable
from auditpacks.runner.readiness.preflight import check_chat, check_decision, check_roles
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


class FakeAPI:
    def __init__(self) -> None:
        self.checks: list[dict] = []

    def check(self, **kwargs) -> None:
        self.checks.append(kwargs)


@pytest.mark.parametrize("kwargs, asked", [({}, {"who": None, "hint": ""}),
                                           ({"who": "target", "hint": "--api-key"}, {"who": "target",
                                                                                    "hint": "--api-key"})])
def test_a_chat_models_check_is_its_provider_classes(kwargs, asked):
    api = FakeAPI()
    check_chat(api, **kwargs)
    assert api.checks == [asked]


def role(name: str, provider: str) -> SimpleNamespace:
    settings = SimpleNamespace(role=name, model=f"{name}-m", provider=provider)
    return SimpleNamespace(settings=settings, model=SimpleNamespace(api=FakeAPI()))


@pytest.mark.parametrize("judge, auditor, checked", [
    ("openai", "anthropic", ["judge model judge-m", "auditor model auditor-m"]),
    ("openai", None, ["judge model judge-m"]),
    (None, "openai", ["auditor model auditor-m"]),
    ("embedded", "openai", ["auditor model auditor-m"]),
    ("embedded", "embedded", []),
])
def test_the_judge_and_auditor_are_checked_unless_embedded(judge, auditor, checked):
    """Each role by its provider (None: no such role)."""
    roles = SimpleNamespace(judge=judge and role("judge", judge), auditor=auditor and role("auditor", auditor))
    check_roles(roles)
    models = [r for r in (roles.judge, roles.auditor) if r is not None]
    assert [c["who"] for r in models for c in r.model.api.checks] == checked


@pytest.mark.parametrize("path", ["/v1/systemone", "/v1/systemone/"])
def test_a_decision_endpoint_is_asked_at_its_own_url(path):
    Answers.status, Answers.paths = 405, []
    with LoopbackServer(Answers) as server:
        check_decision(server.url + path)
    assert Answers.paths == [path]


def test_a_decision_endpoint_not_listening_is_named_so():
    url = f"http://127.0.0.1:{free_port()}/v1/systemone"
    with pytest.raises(RunError, match=f"^decision endpoint: cannot reach {url}: "):
        check_decision(url)
