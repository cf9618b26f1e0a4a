"""Judge and auditor models on the real embedded model: checklist audits, follow-up turns, a warm rerun,
and the benchmark card's Ollama command against the Ollama API emulator.

SmolLM2 is a plumbing model: what is checked is that every scenario ends graded (the judge's
per-scenario bounded schema makes its reply close within the default cap), never a time-out
ERROR, that judge calls carry their own settings and structured output, go through the response
cache and are counted in the run file.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from auditpacks.runner.cli.main import main
from tests.support.runs import results, run_file
from tests.support.paths import FIXTURES

pytestmark = pytest.mark.model

LADDER = {"pass", "low", "medium", "high", "critical"}
QUICK = ["--max-tokens", "24", "--timeout", "1800", "--quiet"]   # the judge keeps its default cap
JUDGE_CAP = 1536  # the embedded judge's default


@pytest.fixture(scope="module")
def packs(tmp_path_factory, embedded_model) -> dict[str, Path]:
    """The bundled jacite pack and the fixture Iustitia smoke pack (skipped, as every model test, without the model)."""
    folder = tmp_path_factory.mktemp("packs")
    built = {"jacite": folder / "jacite.json", "iustitia": folder / "iustitia.json"}
    assert main(["build", "jacite", "--out", str(built["jacite"])]) == 0
    assert main(["build", "iustitia", "--source", str(FIXTURES / "iustitia"), "--smoke",
                 "--out", str(built["iustitia"])]) == 0
    return built


def graded_or_explained(result: dict) -> bool:
    """A verdict on the ladder with its checklist, or ungraded with a reason and the judge's raw reply."""
    judgment = result["judgment"]
    if result["severity"] in LADDER:
        return isinstance(judgment.get("checklist"), list) and bool(judgment["checklist"])
    return (result["severity"] == "ungraded" and bool(judgment.get("ungraded_reason"))
            and "judge_reply" in judgment)


def exit_for(out: Path) -> int:
    """A run's exit code from its results: 3 when its judge graded none of them (a 135M judge often finds
    nothing applicable, which grades nothing), else 0."""
    return 3 if all(r["severity"] == "ungraded" for r in results(out, "smollm2")) else 0


def cached_judge_requests(cache: Path) -> list[dict]:
    keys = [json.loads(p.read_text())["key"] for p in cache.glob("??/*.json")]
    return [k for k in keys if "response_format" in (k.get("params") or {})]


def test_checklist_audit_with_the_embedded_target_and_judge_then_a_warm_rerun(tmp_path, packs):
    cache = tmp_path / "cache"
    for bench, pack in packs.items():
        out = tmp_path / bench
        code = main(["run", "--pack", str(pack), "--limit", "1", "--judge", "checklist", "--judge-model", "embedded",
                     "--cache", str(cache), "--out", str(out), *QUICK])
        got = results(out, "smollm2")
        assert len(got) == 1 and code == exit_for(out)
        assert all(graded_or_explained(r) for r in got), [r["judgment"] for r in got]  # judged, or said why not
        for r in got:   # the judge replied in the schema every time: any ungraded one applied nothing
            assert r["severity"] in LADDER or r["judgment"]["ungraded_reason"].startswith(
                "the judge found none of the"), r["judgment"]
        run = run_file(out, "smollm2")
        judge = run["models"]["judge"]
        assert (judge["model"], judge["provider"], judge["temperature"], judge["max_tokens"]) == \
            ("smollm2", "embedded", 0.0, JUDGE_CAP)
        assert judge["requests"] == 1 and judge["cache_hits"] == 0 and judge["input_tokens"] > 0
        assert run["summary"]["tokens"]["judge_input"] == judge["input_tokens"]
    # judge requests carried the checklist schema, temperature 0 and the output cap
    judged = cached_judge_requests(cache)
    assert len(judged) == 2   # one per benchmark
    for key in judged:
        params = key["params"]
        assert params["response_format"]["type"] == "json_schema"
        checklist = params["response_format"]["json_schema"]["schema"]["properties"]["checklist"]
        assert checklist["minItems"] == checklist["maxItems"] == len(checklist["prefixItems"]) >= 1  # bounded
        assert params["temperature"] == 0.0 and params["max_tokens"] == JUDGE_CAP

    warm = tmp_path / "warm"
    assert main(["run", "--pack", str(packs["jacite"]), "--limit", "1", "--judge", "checklist", "--judge-model",
                 "embedded", "--cache", str(cache), "--out", str(warm), *QUICK]) == exit_for(tmp_path / "jacite")
    judge = run_file(warm, "smollm2")["models"]["judge"]
    assert judge["requests"] == 0 and judge["cache_hits"] == 1
    assert [r["severity"] for r in results(warm, "smollm2")] == \
        [r["severity"] for r in results(tmp_path / "jacite", "smollm2")]


def test_two_turn_audit_with_the_embedded_auditor(tmp_path, packs):
    """The auditor on the model, the grade by jacite's code grader over the whole conversation (the checklist
    judge on the model is the test above's)."""
    out = tmp_path / "turns"
    code = main(["run", "--pack", str(packs["jacite"]), "--limit", "1", "--max-turns", "2",
                 "--auditor-model", "embedded", "--auditor-max-tokens", "24", "--out", str(out), *QUICK])
    assert code == 0
    (result,) = results(out, "smollm2")
    assert result["severity"] in LADDER, result["judgment"]
    assert [m["role"] for m in result["conversation"]] == ["user", "assistant", "user", "assistant"]
    assert result["conversation"][2]["content"].strip()  # the follow-up the auditor wrote
    run = run_file(out, "smollm2")
    assert run["judge"] == "grounding" and run["summary"]["errors"] == 0
    auditor = run["models"]["auditor"]
    assert (auditor["model"], auditor["requests"], auditor["max_tokens"]) == ("smollm2", 1, 24)
    assert run["summary"]["tokens"]["auditor_output"] > 0 and run["parameters"]["max_turns"] == 2


def test_the_cards_ollama_command_sends_num_ctx_on_every_request(tmp_path, packs, ollama_endpoint):
    ollama_endpoint.requests.clear()
    out = tmp_path / "ollama"
    # the card's form: an OpenAI-style base URL and a placeholder key, no --provider
    assert main(["run", "--pack", str(packs["iustitia"]), "--limit", "2", "--target", "smollm2",
                 "--base-url", ollama_endpoint.url + "/v1", "--api-key", "local", "--max-tokens", "32",
                 "--out", str(out), "--quiet"]) == 0
    chats = [body for body in ollama_endpoint.requests if "messages" in body]
    assert len(chats) == 2
    assert all(isinstance(body["options"].get("num_ctx"), int) and body["options"]["num_ctx"] >= 2048
               for body in chats)
    got = results(out, "smollm2")
    assert all(r["severity"] != "ERROR" for r in got), [r["judgment"] for r in got]  # no truncation either
    run = run_file(out, "smollm2")
    assert run["provider"] == "ollama"
    assert any("Ollama's /api/version" in note for note in run["summary"]["notes"])
