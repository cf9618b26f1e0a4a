"""``run --dry-run --pilot N`` against fake providers that count real tokens: the first N scenarios are sent,
and the re-quote of the whole selection is within 5% of what a run of it is billed, for both providers; in process,
the re-quote's arithmetic over a price table and a stand-in quote of the selection, and the pilot's own selection."""

import json
from types import SimpleNamespace

import pytest

import auditpacks
from auditpacks.runner.cli.main import main
from auditpacks.runner.hosted import pilot
from auditpacks.runner.hosted.pilot import PilotQuote, pilot_config, pilot_line, requote
from auditpacks.runner.models.usage import Usage
from tests.support.fake_hosted import FakeHosted
from tests.support.hosted_pack import benchmark_packs
from tests.support.run_config import run_config

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


def test_pilot_line_without_prices_says_n_a_and_gives_no_range():
    result = PilotQuote(model="m", way="plain", pilot_scenarios=2, rest_scenarios=0, pilot_billed=None,
                        pilot_quoted=None, factors={"input": 1.0, "cached_input": 1.0, "cache_write": 1.0,
                                                    "output": 7.0},
                        usage=Usage(), total=None, range=None)
    assert pilot_line(result) == (
        "Pilot of m (plain): 2 scenarios sent, n/a billed against n/a quoted; all 2 re-quoted at n/a. "
        "Billed over quoted: input 1.000, cache reads 1.000, cache writes 1.000; 7 output tokens a reply.")


@pytest.mark.parametrize("limit, n, kept", [(None, 5, 5), (3, 5, 3), (7, 5, 5)])
def test_the_pilot_runs_the_first_n_of_the_selection_within_its_limit(limit, n, kept):
    config = run_config(limit=limit, seed=4)
    assert pilot_config(config, n).selection.limit == kept and pilot_config(config, n).selection.seed == 4
    assert config.selection.limit == limit


ROW = ("{input: 2.0, cached_input: 1.0, cache_write: 3.0, output: 8.0, batch_discount: 0.5, cache_min_tokens: 1024, "
       "input_tokens_per_s: 1000, output_tokens_per_s: 50, request_overhead_s: 0.5, expected_output_tokens: 100, "
       "provider: %s}")
#: the whole selection's expected usage each way, as the stand-in quote gives it, over ten requests
EXPECTED = {"plain": Usage(input=1000), "caching": Usage(input=1000, cached_input=400, cache_write=100)}
#: the pilot's quote (its usage and cost) and its bill
COST = {"quote": {"usage": {"input": 500, "cached_input": 200, "cache_write": 50}, "cost": 0.012},
        "incurred": {"input": 550, "cached_input": 180, "cache_write": 10, "output": 400, "cost": 0.01}}


def _requote(monkeypatch, tmp_path, n=4, way="caching", cost=COST, scenarios=10, provider="openai", **settings):
    """``requote`` of a selection of ``scenarios`` over a price table with model ``m``; the calls it made."""
    table = tmp_path / "prices.yaml"
    table.write_text("date: 2026-01-01\nmodels:\n  m: " + ROW % provider + "\n", encoding="utf-8")
    config = run_config(prices=table, **{"target": "m", **settings})
    calls = {}

    def selection(config_, *, mark=False):
        calls["selection"] = (config_, mark)
        return [f"item {i}" for i in range(scenarios)], "stock", {"name": "pack"}

    def quote_model(model, items, table_, config_, manifest):
        calls["quote"] = (model, len(items), table_.date, config_, manifest)
        return SimpleNamespace(usage=EXPECTED, requests=10)

    monkeypatch.setattr(pilot, "selection", selection)
    monkeypatch.setattr(pilot, "quote_model", quote_model)
    return requote(config, {"way": way, **cost}, n), calls, config


def test_the_requote_corrects_each_kind_of_token_by_its_bill(monkeypatch, tmp_path):
    result, calls, config = _requote(monkeypatch, tmp_path, repeats=2)
    # 4 scenarios sent twice: 8 requests, 400 output tokens; input 550/500, cache reads 180/200, writes 10/50
    assert result.factors == pytest.approx({"input": 1.1, "cached_input": 0.9, "cache_write": 0.2, "output": 50.0})
    assert result.usage == Usage(input=1100, cached_input=360, cache_write=20, output=500)
    # (1100 - 360 - 20) uncached at $2, 360 reads at $1, 20 writes at $3, 500 out at $8, per million tokens
    assert result.total == pytest.approx((720 * 2 + 360 * 1 + 20 * 3 + 500 * 8) / 1e6)
    assert result.range == pytest.approx([result.total * 0.5, result.total * 1.5])
    assert (result.model, result.way, result.pilot_scenarios, result.rest_scenarios, result.pilot_billed,
            result.pilot_quoted) == ("m", "caching", 4, 6, 0.01, 0.012)
    assert calls["selection"] == (config, False)
    assert calls["quote"] == ("m", 10, "2026-01-01", config, {"name": "pack"})


def test_the_batch_api_halves_the_requote_and_anthropic_prompts_carry_marks(monkeypatch, tmp_path):
    result, calls, _ = _requote(monkeypatch, tmp_path, repeats=2, batch_api=True, provider="anthropic")
    assert result.total == pytest.approx((720 * 2 + 360 * 1 + 20 * 3 + 500 * 8) / 1e6 * 0.5)
    assert calls["selection"][1] is True


@pytest.mark.parametrize("way, usage", [
    ("plain", Usage(input=1100, output=1000)),
    ("both", Usage(input=1100, cached_input=360, cache_write=20, output=1000)),
])
def test_the_way_picks_the_expected_usage_it_corrects(monkeypatch, tmp_path, way, usage):
    """Sent once each, the 4 pilot scenarios' 400 output tokens are 100 a reply: 1000 over the 10 requests."""
    result, _, _ = _requote(monkeypatch, tmp_path, way=way)
    assert result.usage == usage and result.way == way


def test_a_kind_the_pilot_was_not_quoted_keeps_the_input_s_ratio(monkeypatch, tmp_path):
    cost = {"quote": {"usage": {"input": 500}, "cost": None},
            "incurred": {"input": 600, "cached_input": 180, "cache_write": 10, "output": 0}}
    result, _, _ = _requote(monkeypatch, tmp_path, cost=cost)
    assert result.factors == pytest.approx({"input": 1.2, "cached_input": 1.2, "cache_write": 1.2, "output": 0.0})
    assert result.usage == Usage(input=1200, cached_input=480, cache_write=120, output=0)
    assert (result.pilot_billed, result.pilot_quoted) == (None, None)


def test_no_quoted_usage_at_all_keeps_the_bill_as_quoted(monkeypatch, tmp_path):
    cost = {"quote": {"usage": None}, "incurred": {"input": 5, "cached_input": 5, "cache_write": 5, "output": 40}}
    result, _, _ = _requote(monkeypatch, tmp_path, cost=cost)
    assert result.factors == pytest.approx({"input": 1.0, "cached_input": 1.0, "cache_write": 1.0, "output": 10.0})


def test_reads_are_never_more_than_the_input(monkeypatch, tmp_path):
    cost = {"quote": {"usage": {"input": 500, "cached_input": 100, "cache_write": 50}},
            "incurred": {"input": 600, "cached_input": 400, "cache_write": 0, "output": 0}}
    # 1000 input tokens at 600/500 are 1200; 400 reads at 400/100 would be 1600
    assert _requote(monkeypatch, tmp_path, cost=cost)[0].usage.cached_input == 1200


def test_a_pilot_of_no_scenarios_expects_no_output(monkeypatch, tmp_path):
    result, _, _ = _requote(monkeypatch, tmp_path, n=0)
    assert (result.factors["output"], result.usage.output, result.pilot_scenarios) == (0.0, 0, 0)


@pytest.mark.parametrize("n, error", [(0, 0.5), (1, 0.5), (4, 0.5), (16, 0.25), (100, 0.1), (2500, 0.02),
                                      (10000, 0.02)])
def test_the_range_is_the_pilot_s_sampling_error_between_2_and_50_percent(monkeypatch, tmp_path, n, error):
    result, _, _ = _requote(monkeypatch, tmp_path, n=n, scenarios=20000)
    assert result.range == pytest.approx([result.total * (1 - error), result.total * (1 + error)])


def test_a_pilot_larger_than_the_selection_sends_all_of_it_and_leaves_none(monkeypatch, tmp_path):
    result, _, _ = _requote(monkeypatch, tmp_path, n=12)
    # 10 requests sent, 400 output tokens: 40 a reply
    assert (result.pilot_scenarios, result.rest_scenarios, result.factors["output"]) == (10, 0, 40.0)


def test_a_model_without_a_price_has_no_total_and_no_range(monkeypatch, tmp_path):
    result, calls, _ = _requote(monkeypatch, tmp_path, target="other")
    assert (result.model, result.total, result.range) == ("other", None, None)
    assert calls["selection"][1] is False and result.to_dict()["usage"] == result.usage.to_dict()


def test_no_target_model_is_quoted_under_an_empty_name(monkeypatch, tmp_path):
    result, calls, _ = _requote(monkeypatch, tmp_path, target=None)
    assert (result.model, calls["quote"][0], result.total) == ("", "", None)


def test_the_requote_as_a_dict_holds_its_usage_as_a_dict(monkeypatch, tmp_path):
    result, _, _ = _requote(monkeypatch, tmp_path)
    data = result.to_dict()
    assert data["usage"] == {"input": 1100, "cached_input": 360, "cache_write": 20, "output": 1000}
    assert (data["model"], data["rest_scenarios"], data["range"]) == ("m", 6, result.range)
    assert sorted(data) == ["factors", "model", "pilot_billed", "pilot_quoted", "pilot_scenarios", "range",
                            "rest_scenarios", "total", "usage", "way"]
