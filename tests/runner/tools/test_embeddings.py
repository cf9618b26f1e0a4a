"""The query encoder over an OpenAI-compatible ``/embeddings`` endpoint (the scripted server answers it)."""

from __future__ import annotations

import openai
import pytest

from auditpacks.runner.tools.embeddings import endpoint_encoder
from tests.support.tool_server import ScriptedToolServer


def _server() -> ScriptedToolServer:
    return ScriptedToolServer(lambda body, n: {"content": ""}, embed=lambda text: [len(text), 0.5, -1.0])


@pytest.fixture
def clients(monkeypatch) -> list:
    """Every SDK client the encoder builds (real ones: they still talk to the server)."""
    made = []

    class Recorded(openai.OpenAI):
        def __init__(self, **kwargs) -> None:
            super().__init__(**kwargs)
            made.append(self)

    monkeypatch.setattr(openai, "OpenAI", Recorded)
    return made


def test_the_endpoints_vector_for_the_text_is_returned():
    with _server() as server:
        encode = endpoint_encoder(server.base_url, "words")
        assert encode("Corfu Channel") == [13.0, 0.5, -1.0]
        assert server.embedded == ["Corfu Channel"] and server.requests == []


@pytest.mark.parametrize("api_key, sent", [(None, "Bearer -"), ("", "Bearer -"), ("sk-emb", "Bearer sk-emb")])
def test_the_named_model_is_asked_with_the_key_or_a_placeholder(api_key, sent):
    """A key-less local server still gets a (placeholder) key; a given key is sent as it is."""
    with _server() as server:
        endpoint_encoder(server.base_url, "bge-m3", api_key=api_key)("Nottebohm")
        assert server.embed_calls == [("bge-m3", sent)]


@pytest.mark.parametrize("kwargs, timeout", [({}, 60.0), ({"timeout": 7.5}, 7.5)])
def test_the_client_waits_the_time_out_and_retries_twice(clients, kwargs, timeout):
    """Sixty seconds a request unless told otherwise; two retries, as the docstring says."""
    with _server() as server:
        endpoint_encoder(server.base_url, "words", **kwargs)
        [client] = clients
        assert (client.timeout, client.max_retries, str(client.base_url)) == (timeout, 2, server.base_url + "/")
