"""The run's chat endpoint: the named target's, or the embedded model's server started for the run (and for an
embedded judge) and stopped after it; none started to replay from the cache."""

from __future__ import annotations

import httpx
import pytest

from auditpacks.runner.models.errors import RunError
from auditpacks.runner.models.providers import EMBEDDED_MODEL
from auditpacks.runner.run.endpoint import Endpoint, embedded_identity, endpoint
from auditpacks.runner.serving import embedded
from tests.support.run_config import run_config


@pytest.fixture
def no_server(monkeypatch):
    """The embedded model's server, refusing to start (a test that reaches it fails)."""
    def refuse(*args, **kwargs):
        raise AssertionError("the embedded model was started")
    monkeypatch.setattr(embedded, "EmbeddedModel", refuse)


def test_a_named_target_is_its_own_endpoint(no_server):
    with endpoint(run_config(target="m", base_url="http://h:8000/v1")) as ep:
        assert ep == Endpoint(model="m", base_url="http://h:8000/v1", embedded=False, embedded_url=None)


def test_a_replay_from_the_cache_starts_no_server(no_server, tmp_path):
    with endpoint(run_config(cache_dir=tmp_path, cache_only=True)) as ep:
        assert ep == Endpoint(model=EMBEDDED_MODEL, base_url=None, embedded=True, embedded_url=None)
    with endpoint(run_config(target="m", judge_model="embedded", cache_dir=tmp_path, cache_only=True)) as ep:
        assert ep == Endpoint(model="m", base_url=None, embedded=False, embedded_url=None)


def test_a_server_that_cannot_start_is_one_line(monkeypatch):
    class Broken:
        def __init__(self, ctx):
            raise RuntimeError(f"no model file for a {ctx}-token context")
    monkeypatch.setattr(embedded, "EmbeddedModel", Broken)
    with pytest.raises(RunError, match="^embedded model: no model file for a 4096-token context$"):
        with endpoint(run_config(embedded_ctx=4096)):
            pass


@pytest.mark.model
def test_the_embedded_server_runs_inside_the_context_only(embedded_model):
    with endpoint(run_config(target="m", base_url="http://h:8000/v1", judge_model="embedded")) as ep:
        assert (ep.model, ep.base_url, ep.embedded) == ("m", "http://h:8000/v1", False)
        assert httpx.get(ep.embedded_url + "/models", timeout=30).status_code == 200
    with pytest.raises(httpx.ConnectError):
        httpx.get(ep.embedded_url + "/models", timeout=5)


class FakeServer:
    """The embedded model's server as a run uses it: started with a context size, a base URL while it runs."""

    runs: list["FakeServer"] = []

    def __init__(self, ctx: int) -> None:
        self.ctx, self.state = ctx, "made"
        FakeServer.runs.append(self)

    @property
    def base_url(self) -> str:
        return "http://127.0.0.1:41234/v1"

    def __enter__(self) -> "FakeServer":
        self.state = "running"
        return self

    def __exit__(self, *exc) -> None:
        self.state = "stopped"


@pytest.fixture
def fake_server(monkeypatch) -> list[FakeServer]:
    FakeServer.runs = []
    monkeypatch.setattr(embedded, "EmbeddedModel", FakeServer)
    return FakeServer.runs


@pytest.mark.parametrize("settings, expected", [
    ({"embedded_ctx": 4096}, Endpoint(model=EMBEDDED_MODEL, base_url="http://127.0.0.1:41234/v1", embedded=True,
                                      embedded_url="http://127.0.0.1:41234/v1")),
    ({"target": "m", "base_url": "http://h:8000/v1", "judge_model": "embedded", "embedded_ctx": 4096},
     Endpoint(model="m", base_url="http://h:8000/v1", embedded=False, embedded_url="http://127.0.0.1:41234/v1")),
])
def test_the_embedded_server_serves_the_target_or_only_the_judge_and_stops_after(fake_server, settings, expected):
    with endpoint(run_config(**settings)) as ep:
        assert ep == expected
        assert [(s.ctx, s.state) for s in fake_server] == [(4096, "running")]
    assert fake_server[0].state == "stopped"


def test_the_embedded_identity_is_its_name_and_its_files_sha256(monkeypatch, tmp_path):
    """The port changes every run, so the cache knows the model by its file (sha256 of ``abc``, FIPS 180-2)."""
    model = tmp_path / "model.gguf"
    model.write_bytes(b"abc")
    monkeypatch.setattr(embedded, "find_model_path", lambda: model)
    assert embedded_identity() == {
        "base_url": None, "embedded": EMBEDDED_MODEL,
        "digest": "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"}
