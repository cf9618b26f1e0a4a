"""The provider table: every fact the runner knows about a provider, in one place.

Each row says which client carries the provider's calls (``api``: ``openai`` for our
OpenAI-compatible client, ``ollama`` for our native Ollama client, ``anyllm`` for
simpleaudit's any-llm path), its default base URL, the environment variable holding
its key, whether it needs no key (local servers), whether its any-llm SDK client
takes ``max_retries``/``timeout`` (so the SDK's own retries can be switched off), and
whether the server compiles a whole JSON schema into a sampling grammar (``grammar``:
llama.cpp, vLLM, Ollama, LM Studio), so that length and item bounds in a schema hold, and
which optional OpenAI-style parameters its SDK refuses (``rejects``: never sent; Anthropic's
Messages API has no ``seed``), and whether it caches a prompt's prefix only up to a block marked
``cache_control`` (``cache_marks``: Anthropic; the chat target then marks the document block), and
which keyword of its SDK's constructor takes an ``httpx.AsyncClient`` (``http_client``), through
which the any-llm path gives the SDK one of :mod:`auditpacks.core.bounded.http` (the byte cap and
the deadline of our own clients); a provider without one (xAI's SDK speaks gRPC) is not capped.
A provider not in the table is an any-llm provider with none of these defaults.

This module imports nothing else of the runner's, so the configuration and the targets can
both read it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass


OPENAI, OLLAMA, ANYLLM = "openai", "ollama", "anyllm"
EMBEDDED = "embedded"          # the model name that asks for the embedded local model (judge, auditor)
EMBEDDED_MODEL = "smollm2"     # the embedded local model's name on the wire
OLLAMA_DEFAULT = "http://localhost:11434"


@dataclass(frozen=True)
class Provider:
    name: str
    api: str = ANYLLM
    base_url: str | None = None
    key_variable: str | None = None
    keyless: bool = False
    sdk_retries: bool = False   # the any-llm SDK client accepts max_retries and timeout
    grammar: bool = False       # JSON schemas are enforced by a grammar, maxLength and maxItems included
    rejects: tuple[str, ...] = ()  # optional request parameters the provider refuses (left out of its requests)
    cache_marks: bool = False   # the prompt cache reads the prefix up to a block marked cache_control
    http_client: str | None = None  # the SDK constructor's keyword for an httpx.AsyncClient (any-llm path)


_ROWS = (
    Provider("openai", OPENAI, "https://api.openai.com/v1", "OPENAI_API_KEY", sdk_retries=True),
    Provider("vllm", OPENAI, "http://localhost:8000/v1", keyless=True, sdk_retries=True, grammar=True),
    Provider("llamacpp", OPENAI, "http://127.0.0.1:8080/v1", keyless=True, sdk_retries=True, grammar=True),
    Provider("openrouter", OPENAI, "https://openrouter.ai/api/v1", "OPENROUTER_API_KEY", sdk_retries=True),
    Provider("lmstudio", OPENAI, "http://localhost:1234/v1", keyless=True, sdk_retries=True, grammar=True),
    Provider("deepseek", OPENAI, "https://api.deepseek.com/v1", "DEEPSEEK_API_KEY", sdk_retries=True),
    Provider("together", OPENAI, "https://api.together.xyz/v1", "TOGETHER_API_KEY", sdk_retries=True),
    Provider("groq", OPENAI, "https://api.groq.com/openai/v1", "GROQ_API_KEY", sdk_retries=True),
    Provider("ollama", OLLAMA, OLLAMA_DEFAULT, keyless=True, grammar=True),
    Provider("xai", ANYLLM, key_variable="XAI_API_KEY", sdk_retries=True),
    Provider("anthropic", ANYLLM, key_variable="ANTHROPIC_API_KEY", sdk_retries=True,
             rejects=("seed", "n", "presence_penalty", "frequency_penalty", "user"), cache_marks=True,
             http_client="http_client"),
    Provider("mistral", ANYLLM, key_variable="MISTRAL_API_KEY", http_client="async_client"),
    Provider("gemini", ANYLLM, key_variable="GEMINI_API_KEY"),
)
PROVIDERS: dict[str, Provider] = {row.name: row for row in _ROWS}


def provider(name: str | None) -> Provider:
    """The row for ``name`` (``openai`` when None); an unknown name is a plain any-llm provider."""
    name = name or "openai"
    return PROVIDERS.get(name) or Provider(name)


def ours(name: str | None) -> bool:
    """Whether one of our own clients (OpenAI-compatible or native Ollama) carries this provider."""
    return provider(name).api in (OPENAI, OLLAMA)


def extra_package(name: str) -> str:
    """The pip requirement that installs an any-llm provider's SDK."""
    return f"any-llm-sdk[{name}]"


def key_from_environment(name: str | None) -> str | None:
    variable = provider(name).key_variable
    return os.environ.get(variable) if variable else None


def ollama_host(base_url: str | None) -> str:
    """The Ollama root URL: ``base_url``, else ``$OLLAMA_HOST``, else localhost (``/v1`` is dropped)."""
    host = (base_url or os.environ.get("OLLAMA_HOST") or OLLAMA_DEFAULT).rstrip("/")
    if not host.startswith("http"):
        host = "http://" + host
    return host.removesuffix("/v1")


def openai_base_url(name: str | None, base_url: str | None) -> str:
    """The OpenAI-compatible base URL: given, else ``$OPENAI_BASE_URL`` for openai, else the table's."""
    if base_url:
        return base_url
    if (name or "openai") == "openai" and os.environ.get("OPENAI_BASE_URL"):
        return os.environ["OPENAI_BASE_URL"]
    default = provider(name).base_url
    if default is None:
        raise ValueError(f"provider {name!r} has no OpenAI-compatible default URL; give a base URL")
    return default


def official_openai(name: str | None, url: str) -> bool:
    """The official OpenAI endpoint, which wants ``max_completion_tokens`` instead of ``max_tokens``."""
    return (name or "openai") == "openai" and url.rstrip("/") == PROVIDERS["openai"].base_url
