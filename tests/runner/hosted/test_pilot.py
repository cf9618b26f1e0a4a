"""``run --dry-run --pilot N`` against fake providers that count real tokens: the first N scenarios are sent,
and the re-quote of the whole selection is within 5% of what a run of it is billed, for both providers."""

import json

import pytest

import auditpacks
from auditpacks.runner.cli.main import main
from auditpacks.runner.hosted.pilot import PilotQuote, pilot_line
from auditpacks.runner.models.usage import Usage
from tests.support.fake_hosted import FakeHosted
from tests.support.hosted_pack import benchmark_packs

MODELS = {"openai": "gpt-4o-mini", "anthropic": "claude-sonnet-4-0"}


@pytest.fixture(scope="module")
def packs(tmp_path_factory):
    return benchmark_packs(tmp_path_factory.mktemp("packs"))


@pytest.mark.parametrize("provider", sorted(MODELS))
@pytest.mark.parametrize("name", ["iustitia.json", "jacite.json"])
def test_pilot_requote_is_within_5_percent_of_the_whole_bill(packs, tmp_path, capsys, provider, name):
    model = MODELS[provider]
    with FakeHosted() as server:
        url = server.url if provider == "anthropic" else server.base_url
        capsys.readouterr()
        assert main(["run", "--pack", str(packs / name), "--target", model, "--provider", provider, "--base-url", url,
                     "--api-key", "sk-test", "--dry-run", "--pilot", "3", "--json", "--out", str(tmp_path / "pilot"),
                     "--quiet"]) == 0
        sent = len(server.chat_requests)
    result = json.loads(capsys.readouterr().out)
    assert sent == 3 and result["pilot_scenarios"] == 3
    with FakeHosted() as whole:
        url = whole.url if provider == "anthropic" else whole.base_url
        _, record = auditpacks.run(packs / name, target=model, provider=provider, base_url=url, api_key="sk-test",
                                   out=tmp_path / "whole", quiet=True)
    assert result["rest_scenarios"] == record.summary.scenarios - 3
    billed = record.cost["incurred"]["cost"]
    assert result["total"] == pytest.approx(billed, rel=0.05)
    low, high = result["range"]
    assert low <= billed <= high


def test_pilot_line_by_hand():
    result = PilotQuote(model="m", way="caching", pilot_scenarios=4, rest_scenarios=6, pilot_billed=0.01,
                        pilot_quoted=0.012, factors={"input": 1.1, "cached_input": 0.9, "cache_write": 0.0,
                                                     "output": 41.6},
                        usage=Usage(input=10), total=0.03, range=[0.02, 0.04])
    line = pilot_line(result)
    assert "4 scenarios sent, $0.0100 billed against $0.0120 quoted" in line
    assert "all 10 re-quoted at $0.0300 (range $0.0200 to $0.0400)" in line
    assert "input 1.100, cache reads 0.900, cache writes 0.000; 42 output tokens a reply" in line
