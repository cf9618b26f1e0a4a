"""A query encoder over an OpenAI-compatible ``/embeddings`` endpoint (vLLM, llama.cpp ``--embedding``, TEI,
hosted), for tools that search by vector: ``encode(text) -> list[float]``."""

from __future__ import annotations

from typing import Callable


def endpoint_encoder(base_url: str, model: str, *, api_key: str | None = None,
                     timeout: float = 60.0) -> Callable[[str], list[float]]:
    """``encode(text)``: the embedding ``model`` at ``base_url`` gives for ``text`` (two retries)."""
    from openai import OpenAI

    client = OpenAI(base_url=base_url, api_key=api_key or "-", timeout=timeout, max_retries=2)

    def encode(text: str) -> list[float]:
        return list(client.embeddings.create(model=model, input=[text]).data[0].embedding)

    return encode
