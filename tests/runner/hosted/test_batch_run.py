"""``--batch-api`` against a fake provider's batch endpoints: submit, poll, results, errors, expiry, resume."""

import json
import os
import subprocess
import sys
import time

import pytest

import auditpacks
from auditpacks.core.runs.run_files import batches_name
from auditpacks.runner.settings.config import model_stem
from auditpacks.runner.hosted import prices
from auditpacks.runner.models.usage import Usage
from tests.support.fake_hosted import FakeHosted
from tests.support.hosted_pack import write_hosted_pack, write_prices
from tests.support.paths import ROOT


@pytest.fixture
def setup(tmp_path):
    return write_hosted_pack(tmp_path / "long.json"), write_prices(tmp_path / "prices.yaml")


def batch_run(server, pack, table, out, provider="openai", **options):
    model = "claude-sonnet-4-0" if provider == "anthropic" else "gpt-4o-mini"
    url = server.url if provider == "anthropic" else server.base_url
    return auditpacks.run(pack, target=model, provider=provider, base_url=url, api_key="sk-test", prices=table,
                          out=out, batch_api=True, batch_poll=0.05, quiet=True, **options)[1]


def test_openai_batch_run_is_graded_and_billed_at_half_price(tmp_path, setup):
    pack, table = setup
    with FakeHosted() as server:
        record = batch_run(server, pack, table, tmp_path / "out")
    assert server.chat_requests == [] and server.submitted == ["batch_1"]
    assert record.summary.completed == 9 and record.summary.errors == 0
    bodies = [r["body"] for r in server.batches["batch_1"]["requests"]]
    keys = [b["prompt_cache_key"] for b in bodies]
    assert len(set(keys)) == 3 and keys[0] == keys[1] == keys[2]     # one key per document, its questions together
    incurred = record.cost["incurred"]
    assert {k: incurred[k] for k in server.bill} == server.bill and record.cost["way"] == "both"
    full = prices.cost(Usage(**server.bill), prices.load(table).lookup("gpt-4o-mini"))
    assert incurred["cost"] == pytest.approx(full / 2)
    assert record.cost["quote"]["cost"] == pytest.approx(incurred["cost"], rel=0.03)


def test_anthropic_batch_marks_the_document_block_and_normalises_usage(tmp_path, setup):
    pack, table = setup
    with FakeHosted() as server:
        record = batch_run(server, pack, table, tmp_path / "out", provider="anthropic")
    params = server.batches["msgbatch_1"]["requests"][0]["params"]
    document, question = params["messages"][0]["content"]
    assert document["cache_control"] == {"type": "ephemeral"} and "cache_control" not in question
    assert document["text"].startswith("--- DOCUMENT 1 ---") and question["text"].startswith("Case 0")
    assert record.summary.completed == 9
    incurred = record.cost["incurred"]
    assert {k: incurred[k] for k in server.bill} == server.bill
    assert incurred["cache_write"] > 0 and incurred["cached_input"] == 2 * incurred["cache_write"]
    assert incurred["input"] > incurred["cached_input"] + incurred["cache_write"]


def test_failed_requests_are_errors_and_an_expired_batch_is_submitted_again(tmp_path, setup):
    pack, table = setup
    with FakeHosted() as server:
        server.fail_first = 1
        record = batch_run(server, pack, table, tmp_path / "failed")
        assert record.summary.errors == 1 and record.summary.completed == 8
        assert "invalid request" in record.summary.commonest_error["message"]
        server.fail_first, server.expire = 0, True
        expired = batch_run(server, pack, table, tmp_path / "expired")
        assert expired.summary.errors == 9 and "expired" in expired.summary.commonest_error["message"]
        again = batch_run(server, pack, table, tmp_path / "expired")
    assert again.summary.errors == 0 and server.submitted == ["batch_1", "batch_2", "batch_3"]


def test_a_killed_batch_run_re_attaches_without_resubmitting(tmp_path, setup):
    pack, table = setup
    out = tmp_path / "out"
    log = out / batches_name(model_stem("gpt-4o-mini"))
    with FakeHosted() as server:
        server.hold.set()
        command = [sys.executable, "-m", "auditpacks", "run", "--pack", str(pack), "--target", "gpt-4o-mini",
                   "--provider", "openai", "--base-url", server.base_url, "--api-key", "sk-test", "--prices",
                   str(table), "--out", str(out), "--batch-api", "--batch-poll", "0.05", "--quiet"]
        child = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                 env={**os.environ, "PYTHONPATH": str(ROOT)})
        try:
            deadline = time.monotonic() + 120
            while not (log.exists() and server.submitted) and time.monotonic() < deadline:
                time.sleep(0.1)
            assert server.submitted == ["batch_1"]
        finally:
            child.kill()
            child.wait()
        assert json.loads(log.read_text().splitlines()[0])["submitted"] == "batch_1"
        server.hold.clear()
        record = batch_run(server, pack, table, out)
    assert server.submitted == ["batch_1"] and record.summary.completed == 9 and record.summary.errors == 0

