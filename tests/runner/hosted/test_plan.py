"""The quote: four ways to run, sending nothing; the cache arithmetic by hand."""

import pytest

from auditpacks.runner.cli.main import main
from auditpacks.runner.hosted.plan import Document, Prompt, documents, expected_usage, quote
from auditpacks.runner.hosted.tokens import ESTIMATE, counter
from auditpacks.runner.models.usage import Usage
from tests.support.fake_hosted import FakeHosted
from tests.support.hosted_pack import write_hosted_pack, write_prices
from tests.support.iustitia import FIXTURE, SMOKE_FILE
from tests.support.run_config import run_config

WAYS = ("plain", "prompt caching", "batch API", "batch + caching")


def test_expected_usage_by_hand():
    docs = [Document("a", prompts=[2000, 2100, 2050], prefix=1800), Document("b", prompts=[500], prefix=0),
            Document("c", prompts=[1100, 1100], prefix=1000)]
    # a: first request writes 1800, the next two read 1800 each; b: nothing shared; c: 1000 < 1024, not cached
    assert expected_usage(docs, output=10, cache_min=1024) == Usage(
        input=2000 + 2100 + 2050 + 500 + 2200, cached_input=3600, cache_write=1800, output=60)
    assert expected_usage(docs, output=10, cache_min=None) == Usage(input=8850, output=60)


def test_shared_prefix_is_what_a_documents_prompts_begin_with():
    count = counter("unlisted-model")
    assert count.label == ESTIMATE
    head = "x" * 400   # 100 tokens by the estimate
    items = [Prompt("d", head + "a" * 40, [{"role": "user", "content": head + "a" * 40}]),
             Prompt("d", head + "b" * 80, [{"role": "user", "content": head + "b" * 80}]),
             Prompt("e", "alone", [{"role": "user", "content": "alone"}])]
    d, e = documents(items, count)
    assert (d.prompts, d.prefix) == ([4 + 110, 4 + 120], 100)
    assert (e.prompts, e.prefix) == ([4 + 2], 0)   # one request: nothing to share


@pytest.mark.parametrize("pack", ["iustitia", "jacite"])
def test_dry_run_sends_nothing_and_prints_four_costs(tmp_path, capsys, pack):
    if pack == "iustitia":
        path = FIXTURE / SMOKE_FILE
    else:
        assert main(["build", "jacite", "--out", str(tmp_path / "jacite.json"), "--limit", "6"]) == 0
        path = tmp_path / "jacite.json"
    capsys.readouterr()
    with FakeHosted() as server:
        code = main(["run", "--pack", str(path), "--dry-run", "--target", "gpt-4o-mini", "--base-url",
                     server.base_url, "--out", str(tmp_path / "out")])
        assert server.chat_requests == [] and server.submitted == []
    captured = capsys.readouterr()
    out = captured.out
    assert code == 0 and "nothing was sent" in out, captured.err
    for way in WAYS:
        assert way in out
    assert out.count("$") >= 4
    assert not (tmp_path / "out").exists()


def test_document_first_shares_more_than_stock_and_caching_is_cheaper(tmp_path):
    pack = write_hosted_pack(tmp_path / "long.json")
    prices = write_prices(tmp_path / "prices.yaml")
    quotes = {order: quote(run_config(pack=pack, target="gpt-4o-mini", prices=prices, prompt_order=order)).models[0]
              for order in ("document-first", "stock")}
    first, stock = quotes["document-first"], quotes["stock"]
    assert first.prompt_tokens == pytest.approx(stock.prompt_tokens, rel=0.01)
    assert first.cache_hit_rate > 0.5 > stock.cache_hit_rate == 0
    assert first.cost["caching"] < first.cost["plain"] and first.cost["both"] < first.cost["batch"]
    assert first.cost["batch"] == pytest.approx(first.cost["plain"] / 2)
    assert (first.scenarios, first.documents, first.requests) == (9, 3, 9)


def test_json_quote_and_an_unpriced_model(tmp_path, capsys):
    import json

    pack = write_hosted_pack(tmp_path / "long.json", documents=1)
    assert main(["run", "--pack", str(pack), "--dry-run", "--target", "my-local-model", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    model = data["models"][0]
    assert model["priced"] is False and model["cost"]["plain"] is None and model["prompt_tokens"] > 3000
