"""The query encoder over an OpenAI-compatible ``/embeddings`` endpoint (the scripted server answers it)."""

from __future__ import annotations

from auditpacks.runner.tools.embeddings import endpoint_encoder
from tests.support.tool_server import ScriptedToolServer


def test_the_endpoints_vector_for_the_text_is_returned():
    with ScriptedToolServer(lambda body, n: {"content": ""}, embed=lambda text: [len(text), 0.5, -1.0]) as server:
        encode = endpoint_encoder(server.base_url, "words")
        assert encode("Corfu Channel") == [13.0, 0.5, -1.0]
        assert server.embedded == ["Corfu Channel"] and server.requests == []
