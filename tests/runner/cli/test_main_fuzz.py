"""Property-based fuzzing of every reader: any input gives a result or one clean error line.

Each property starts from a valid file (a fixture or a tiny pack), mutates it (one place of
its JSON, or its text), runs the command that reads it and checks the outcome through
``tests.support.fuzz.outcome``: exit 0, or a non-zero exit with one ``auditpacks: error:``
line; no traceback, no "unexpected" catch-all, no half-written output, no temporary file.
Examples are bounded and derandomized, so the suite is repeatable and takes minutes.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from auditpacks.packs.pack import manifest_path
from tests.support.fuzz import FEW, FUZZ, JSON, mutated_json, mutated_jsonl, mutated_text, outcome
from tests.support.tiny_pack import write_pack
from tests.support.paths import FIXTURES


def scratch() -> Path:
    return Path(tempfile.mkdtemp(prefix="fuzz-"))


def load(path: Path):
    return json.loads(path.read_text(encoding="utf-8"))


_base = scratch()
PACK = write_pack(_base / "tiny.json", 4)
PACK_DATA = load(PACK)


# -- packs and manifests -----------------------------------------------------------------------

@FUZZ
@given(mutated_json(PACK_DATA))
def test_packs(scenarios):
    folder = scratch()
    pack = folder / "p.json"
    pack.write_text(json.dumps(scenarios), encoding="utf-8")
    outcome(["check", pack, "--quiet"])
    out = folder / "out"
    outcome(["run", "--pack", pack, "--target", "m", "--base-url", "http://127.0.0.1:9/v1", "--cache-only",
             "--cache", folder / "cache", "--out", out, "--quiet", "--no-check"], [out / "m.json", out / "m.run.json"])
    shutil.rmtree(folder)


@FEW
@given(mutated_text(PACK.read_text(encoding="utf-8")))
def test_pack_text(text):
    folder = scratch()
    (folder / "p.json").write_text(text, encoding="utf-8")
    outcome(["check", folder / "p.json"])
    shutil.rmtree(folder)


@FUZZ
@given(mutated_json(load(manifest_path(PACK))) | JSON)
def test_manifests(manifest):
    folder = scratch()
    shutil.copy(PACK, folder / "tiny.json")
    manifest_path(folder / "tiny.json").write_text(json.dumps(manifest), encoding="utf-8")
    outcome(["check", folder / "tiny.json"])
    shutil.rmtree(folder)


# -- jacite: registries, benchmark files, the builder's source ---------------------------------

@FUZZ
@given(mutated_json(load(FIXTURES / "jacite" / "registry.json")))
def test_jacite_registries(registry):
    folder = scratch()
    (folder / "registry.json").write_text(json.dumps(registry, ensure_ascii=False), encoding="utf-8")
    out = folder / "rescored.json"
    outcome(["rescore", "jacite", FIXTURES / "jacite" / "benchmark.json", "--registry", folder / "registry.json",
             "--out", out], [out])
    shutil.rmtree(folder)


@FUZZ
@given(mutated_json(load(FIXTURES / "jacite" / "benchmark.json")), st.sampled_from(["full", "upstream"]))
def test_jacite_benchmark_files(rows, mode):
    folder = scratch()
    (folder / "benchmark.json").write_text(json.dumps(rows, ensure_ascii=False), encoding="utf-8")
    out = folder / "rescored.json"
    outcome(["rescore", "jacite", folder / "benchmark.json", "--mode", mode, "--out", out], [out])
    shutil.rmtree(folder)


@FEW
@given(st.sampled_from(["questions.json", "registry.json"]), st.data())
def test_jacite_sources(name, data):
    folder = scratch()
    shutil.copytree(FIXTURES / "jacite", folder / "src")
    target = folder / "src" / name
    target.write_text(json.dumps(data.draw(mutated_json(load(target))), ensure_ascii=False), encoding="utf-8")
    out = folder / "p.json"
    outcome(["build", "jacite", "--source", folder / "src", "--out", out], [out, manifest_path(out)])
    shutil.rmtree(folder)


# -- Iustitia configurations and predictions ---------------------------------------------------

IUSTITIA_CONFIGS = ["tasks", "units", "documents", "questions"]


@FEW
@given(st.sampled_from(IUSTITIA_CONFIGS), st.data())
def test_iustitia_configurations(config, data):
    folder = scratch()
    shutil.copytree(FIXTURES / "iustitia", folder / "src")
    target = next((folder / "src" / config).glob("*.jsonl"))
    target.write_text(data.draw(mutated_jsonl(target.read_text(encoding="utf-8"))), encoding="utf-8")
    out = folder / "p.json"
    outcome(["build", "iustitia", "--source", folder / "src", "--out", out], [out, manifest_path(out)])
    shutil.rmtree(folder)


def iustitia_predictions() -> str:
    lines = []
    for line in (FIXTURES / "iustitia" / "tasks" / "test-00000-of-00001.jsonl").read_text().splitlines():
        task = json.loads(line)
        if task.get("is_canonical") and task.get("accepted_options"):
            lines.append(json.dumps({"task_id": task["task_id"], "choice": task["accepted_options"][0]}))
    return "\n".join(lines) + "\n"


@FEW
@given(mutated_jsonl(iustitia_predictions()))
def test_iustitia_predictions(text):
    folder = scratch()
    (folder / "pred.jsonl").write_text(text, encoding="utf-8")
    out = folder / "scores.json"
    outcome(["score", "iustitia", "--pred", folder / "pred.jsonl", "--source", FIXTURES / "iustitia",
             "--bootstrap", "20", "--out", out], [out])
    shutil.rmtree(folder)


# -- ICJ records and predictions ---------------------------------------------------------------

@FUZZ
@given(mutated_jsonl((FIXTURES / "icj" / "results" / "predictions.jsonl").read_text(encoding="utf-8")),
       st.booleans())
def test_icj_predictions(text, partial):
    folder = scratch()
    (folder / "pred.jsonl").write_text(text, encoding="utf-8")
    out = folder / "scores.json"
    outcome(["score", "icj", "--pred", folder / "pred.jsonl", "--test", FIXTURES / "icj" / "data" / "test.jsonl",
             "--out", out, *(["--allow-partial"] if partial else [])], [out])
    shutil.rmtree(folder)


@FEW
@given(st.sampled_from(["data/test.jsonl", "data/inputs.jsonl"]), st.data())
def test_icj_records(name, data):
    folder = scratch()
    shutil.copytree(FIXTURES / "icj", folder / "src")
    target = folder / "src" / name
    target.write_text(data.draw(mutated_jsonl(target.read_text(encoding="utf-8"))), encoding="utf-8")
    out = folder / "p.json"
    outcome(["build", "icj", "--source", folder / "src", "--out", out], [out, manifest_path(out)])
    scores = folder / "scores.json"
    outcome(["score", "icj", "--pred", FIXTURES / "icj" / "results" / "predictions.jsonl", "--test", target,
             "--allow-partial", "--out", scores], [scores])
    shutil.rmtree(folder)


# -- journals, cache entries, System One requests ----------------------------------------------

JOURNAL = "\n".join([json.dumps({"fingerprint": "fp"}),
                     *(json.dumps({"key": f"k{i}", "name": f"s{i}", "result": {"severity": "pass"}}) for i in range(3))])


@FUZZ
@given(mutated_jsonl(JOURNAL + "\n") | mutated_text(JOURNAL + "\n"))
def test_journals(text):
    from auditpacks.runner.store.journal import Journal, JournalError

    folder = scratch()
    path = folder / "m.journal.jsonl"
    path.write_text(text, encoding="utf-8")
    try:
        with Journal(path, "fp").open() as journal:
            assert all(isinstance(k, str) and isinstance(v, dict) for k, v in journal.done.items())
            journal.append("new", "n", {"severity": "pass"})
        assert "new" in Journal(path, "fp").open().done  # the journal stays readable after an append
    except JournalError as exc:
        assert "\n" not in str(exc) and path.read_text(encoding="utf-8") == text  # refused, never rewritten
    shutil.rmtree(folder)


@FUZZ
@given(st.one_of(JSON, mutated_json({"key": {"v": 1, "q": 1}, "reply": {"content": "yes", "input_tokens": 3}})))
def test_cache_entries(entry):
    from auditpacks.runner.models.cache import ResponseCache

    folder = scratch()
    cache = ResponseCache(folder)
    path = cache.path_for({"q": 1})
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(entry), encoding="utf-8")
    reply = cache.get({"q": 1})
    assert reply is None or (isinstance(reply, dict) and isinstance(reply.get("content"), str))
    shutil.rmtree(folder)


SYSTEM_ONE = {"model": "m", "state": {"documents": ["The court convicted."]},
              "questions": {"q": {"type": "choice", "instructions": "Outcome?", "criteria": {"yes": "y", "no": None}}}}


@FUZZ
@given(mutated_json(SYSTEM_ONE) | JSON)
def test_system_one_requests(body):
    from auditpacks.runner.systemone.protocol import DecisionRequest, SystemOneError, parse_request

    try:
        assert isinstance(parse_request(body), DecisionRequest)
    except SystemOneError as exc:
        assert "\n" not in str(exc)


@pytest.fixture(scope="module")
def decision_server():
    from auditpacks.runner.systemone.serve_decision import DecisionServer
    from tests.runner.systemone.test_serve_decision_limits import good_upstream
    from tests.support.stub_http import StubHTTP

    with StubHTTP(good_upstream) as upstream, DecisionServer(upstream.url + "/v1", socket_timeout=2,
                                                             max_body_bytes=4096) as server:
        yield server


@FUZZ
@given(body=mutated_json(SYSTEM_ONE) | JSON, raw=st.binary(max_size=64), use_raw=st.booleans(),
       length=st.sampled_from([None, "abc", "-1", "99999999999", "1_0"]))
def test_system_one_over_http(decision_server, body, raw, use_raw, length):
    from tests.runner.systemone.test_serve_decision_limits import post

    data = raw if use_raw else json.dumps(body).encode()
    headers = {"Content-Length": str(len(data)) if length is None else length}
    if length is not None and length.strip().isdigit() and int(length) > 4096:
        data = b""  # announced, never sent: refused before reading
    elif length is not None:
        data = b""
    status, reply = post(decision_server.url, data, headers)
    assert status in (200, 400, 408, 413) and isinstance(reply, dict)
    assert status == 200 or "\n" not in reply["error"]
