"""Hosted paths against hostile local servers: an endless reply through a provider's SDK (any-llm) and endless
``--batch-api`` results files end the run within their caps, under 600 MB, each scenario an ERROR naming the limit.
Time and peak memory are measured around a child process."""

from __future__ import annotations

import json

import pytest

from tests.e2e.test_hostile_servers import measured_run
from tests.support.fake_hosted import FakeHosted
from tests.support.hosted_pack import write_hosted_pack, write_prices
from tests.support.hostile import HostileServer
from tests.support.tiny_pack import write_pack


def results(out, model):
    return json.loads((out / f"{model}.json").read_text(encoding="utf-8"))["results"]


def test_an_endless_reply_through_the_anthropic_sdk_stops_at_the_cap_under_600_mb(tmp_path):
    pack, out = write_pack(tmp_path / "tiny.json", 1), tmp_path / "out"
    with HostileServer("endless") as server:
        args = ["run", "--pack", str(pack), "--target", "claude-x", "--out", str(out), "--quiet",
                "--provider", "anthropic", "--api-key", "sk-ant-x", "--base-url", server.base_url.removesuffix("/v1")]
        code, seconds, rss_mb = measured_run(args, limit_s=300)
    assert code == 3 and seconds < 120 and rss_mb < 600, (code, seconds, rss_mb)
    [result] = results(out, "claude-x")
    assert result["severity"] == "ERROR"
    assert f"reply from 127.0.0.1:{server.port} over the 64 MiB cap on a response body" in result["issues_found"][0]
    assert server.posts == 1   # a reply over the cap is not asked for again


@pytest.mark.parametrize(("provider", "model", "mode"), [("openai", "gpt-4o-mini", "endless_lines"),
                                                         ("anthropic", "claude-sonnet-4-0", "endless")])
def test_an_endless_batch_results_file_stops_at_its_cap_under_600_mb(tmp_path, provider, model, mode):
    pack, table = write_hosted_pack(tmp_path / "long.json"), write_prices(tmp_path / "prices.yaml")
    out = tmp_path / "out"
    with FakeHosted() as server:
        server.results_mode = mode
        url = server.url if provider == "anthropic" else server.base_url
        args = ["run", "--pack", str(pack), "--target", model, "--provider", provider, "--base-url", url,
                "--api-key", "sk-test", "--prices", str(table), "--out", str(out), "--batch-api",
                "--batch-poll", "0.05", "--quiet"]
        code, seconds, rss_mb = measured_run(args, limit_s=300)
    assert code == 3 and seconds < 120 and rss_mb < 600, (code, seconds, rss_mb)
    errors = [r["issues_found"][0] for r in results(out, model) if r["severity"] == "ERROR"]
    assert len(errors) >= 8   # endless_lines repeats the first request's line: that one has its reply
    assert all("results file" in e and "over the 256 MiB cap (AUDITPACKS_MAX_BATCH_BYTES)" in e for e in errors)
