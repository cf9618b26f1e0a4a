"""A hosted run against a fake provider that caches prefixes: the record's tokens are the bill, the quote is
within a few percent of it, and document-first prompts earn more cache hits than stock ones."""

import io

import pytest

import auditpacks
from auditpacks.runner.cli.main import main
from auditpacks.runner.hosted.reconcile import cost_line
from auditpacks.runner.display.summary_view import print_summary
from auditpacks.runner.hosted import prices
from auditpacks.core.errors import UserError
from auditpacks.runner.models.usage import Usage
from tests.support.fake_hosted import FakeHosted
from tests.support.hosted_pack import write_hosted_pack, write_prices


def hosted_run(tmp_path, order):
    pack = write_hosted_pack(tmp_path / "long.json")
    table = write_prices(tmp_path / "prices.yaml")
    with FakeHosted() as server:
        _, record = auditpacks.run(pack, target="gpt-4o-mini", provider="openai", base_url=server.base_url,
                                   prices=table, prompt_order=order, out=tmp_path / order, quiet=True)
    return record, server.bill, prices.load(table), tmp_path / order


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    return {order: hosted_run(tmp_path_factory.mktemp(order), order) for order in ("document-first", "stock")}


def test_record_tokens_are_the_fake_providers_bill(runs):
    for record, bill, _, _ in runs.values():
        assert record.summary.completed == 9
        incurred = record.cost["incurred"]
        assert {k: incurred[k] for k in bill} == bill


def test_document_first_earns_a_higher_cache_hit_rate_than_stock(runs):
    first = runs["document-first"][0].cost["incurred"]["cache_hit_rate"]
    stock = runs["stock"][0].cost["incurred"]["cache_hit_rate"]
    # three questions per document: the second and third read the document (about 2/3 of their prompt)
    assert first > 0.5 and stock == 0
    assert runs["document-first"][0].cost["way"] == "caching" and runs["stock"][0].cost["way"] == "plain"


def test_quote_is_within_a_few_percent_of_the_bill(runs):
    for record, bill, table, _ in runs.values():
        billed = prices.cost(Usage(**bill), table.lookup("gpt-4o-mini"))
        assert record.cost["incurred"]["cost"] == pytest.approx(billed)
        assert record.cost["quote"]["cost"] == pytest.approx(billed, rel=0.03)
        assert record.cost["price_table_date"] == "2026-12-01"


def test_the_summary_and_the_report_show_quote_bill_and_hit_rate(runs, capsys):
    record, _, _, folder = runs["document-first"]
    line = cost_line(record.cost)
    rate = record.cost["incurred"]["cache_hit_rate"]
    assert "incurred" in line and "quoted" in line and f"cache hit rate {rate:.0%}" in line
    printed = io.StringIO()
    print_summary(record, printed)
    assert line in printed.getvalue()
    assert main(["report", str(folder), "--format", "md"]) == 0
    assert "Quote and bill: cost (caching" in capsys.readouterr().out


# In-process unit tests of the cost block, against a fake config and quote (gpt-4o-mini at $0.15 input,
# $0.075 cache read, $0.15 cache write, $0.60 output per million tokens, batch at half price).
SPENT = {"input": "1000000", "cached_input": 400_000, "cache_write": 100_000, "output": 200_000, "requests": 9}


def fake_config(tmp_path, batch=False):
    from types import SimpleNamespace
    return SimpleNamespace(hosting=SimpleNamespace(batch_api=batch, prices=write_prices(tmp_path / "p.yaml")))


def fake_quote():
    from types import SimpleNamespace
    return SimpleNamespace(cost={"plain": 0.3, "caching": 0.25, "batch": 0.15, "both": 0.125},
                           range={"plain": [0.2, 0.4], "caching": [0.2, 0.3], "batch": [0.1, 0.2], "both": [0.1, 0.15]},
                           usage={"plain": Usage(input=7), "caching": Usage(input=7, cached_input=3)},
                           tokenizer="o200k")


@pytest.mark.parametrize("batch,cached,written,way", [
    (False, 0, 0, "plain"), (False, 1, 0, "caching"), (False, 0, 1, "caching"),
    (True, 0, 0, "batch"), (True, 1, 0, "both"), (True, 0, 1, "both")])
def test_run_way_names_batch_and_caching(batch, cached, written, way):
    from types import SimpleNamespace
    from auditpacks.runner.hosted.reconcile import run_way
    assert run_way(SimpleNamespace(batch_api=batch), Usage(input=5, cached_input=cached, cache_write=written)) == way


def test_hit_rate_is_cached_over_input_and_none_without_input():
    from auditpacks.runner.hosted.reconcile import hit_rate
    assert hit_rate(Usage(input=4, cached_input=1)) == 0.25
    assert hit_rate(Usage()) is None


@pytest.mark.parametrize("batch,way,incurred,expected,usage", [
    (False, "caching", 0.24, 0.25, {"input": 7, "cached_input": 3, "cache_write": 0, "output": 0}),
    (True, "both", 0.12, 0.125, {"input": 7, "cached_input": 3, "cache_write": 0, "output": 0})])
def test_cost_record_prices_the_spent_tokens_beside_the_quote(tmp_path, batch, way, incurred, expected, usage):
    from auditpacks.runner.hosted.reconcile import cost_record
    record = cost_record(fake_config(tmp_path, batch), "gpt-4o-mini", SPENT, fake_quote())
    assert record["price_table_date"] == "2026-12-01" and record["way"] == way
    quote = record["quote"]
    assert quote["cost"] == expected and quote["range"] == fake_quote().range[way]
    assert quote["ways"] == fake_quote().cost and quote["usage"] == usage and quote["tokenizer"] == "o200k"
    assert record["incurred"] == {"input": 1_000_000, "cached_input": 400_000, "cache_write": 100_000,
                                  "output": 200_000, "cache_hit_rate": 0.4, "cost": pytest.approx(incurred)}
    assert record["difference"] == pytest.approx(incurred - expected)


def test_cost_record_of_a_plain_run_quotes_the_plain_usage(tmp_path):
    from auditpacks.runner.hosted.reconcile import cost_record
    record = cost_record(fake_config(tmp_path), "gpt-4o-mini", {"input": 10, "output": 1}, fake_quote())
    assert record["way"] == "plain" and record["quote"]["cost"] == 0.3
    assert record["quote"]["usage"] == {"input": 7, "cached_input": 0, "cache_write": 0, "output": 0}
    assert record["incurred"]["cost"] == pytest.approx((10 * 0.15 + 0.6) / 1e6)


def test_cost_record_is_none_for_a_model_the_table_does_not_list(tmp_path):
    from auditpacks.runner.hosted.reconcile import cost_record
    assert cost_record(fake_config(tmp_path), "llama3:8b", SPENT, fake_quote()) is None


def test_cost_line_spells_out_bill_quote_tokens_and_hit_rate():
    cost = {"way": "caching", "price_table_date": "2026-12-01", "quote": {"cost": 0.25},
            "incurred": {"input": 1_000_000, "cached_input": 400_000, "cache_write": 100_000, "output": 2000,
                         "cache_hit_rate": 0.4, "cost": 0.24}}
    assert cost_line(cost) == ("cost (caching, prices of 2026-12-01): $0.2400 incurred, $0.2500 quoted; "
                               "1,000,000 input tokens, 400,000 cached, 100,000 cache writes, 2,000 output; "
                               "cache hit rate 40%")
    unknown = {**cost, "quote": {"cost": None}, "incurred": {**cost["incurred"], "cache_hit_rate": None, "cost": None}}
    assert cost_line(unknown).startswith("cost (caching, prices of 2026-12-01): n/a incurred, n/a quoted; ")
    assert cost_line(unknown).endswith("cache hit rate n/a")
    assert cost_line(None) is None and cost_line({}) is None


@pytest.mark.parametrize("failure", [UserError("no pack"), OSError("gone"), ValueError("bad")])
def test_cost_record_without_a_quote_asks_plan_and_keeps_the_bill_when_it_fails(tmp_path, monkeypatch, failure):
    from types import SimpleNamespace
    from auditpacks.runner.hosted import plan
    from auditpacks.runner.hosted.reconcile import cost_record
    asked = []
    monkeypatch.setattr(plan, "quote", lambda config, models: asked.append(models) or SimpleNamespace(models=[fake_quote()]))
    assert cost_record(fake_config(tmp_path), "gpt-4o-mini", SPENT)["quote"]["cost"] == 0.25 and asked == [["gpt-4o-mini"]]

    def fail(config, models):
        raise failure
    monkeypatch.setattr(plan, "quote", fail)
    record = cost_record(fake_config(tmp_path), "gpt-4o-mini", SPENT)
    assert record["quote"] == {"cost": None, "range": None, "ways": None, "usage": None, "tokenizer": None}
    assert record["incurred"]["cost"] == pytest.approx(0.24) and record["difference"] is None
