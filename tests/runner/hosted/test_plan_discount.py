"""The quote and the bill of a batch run at batch discounts other than one half (the share of the normal
price the batch API charges), figures by hand."""

import pytest

from auditpacks.runner.hosted.plan import quote
from auditpacks.runner.hosted.reconcile import cost_record
from tests.support.hosted_pack import write_hosted_pack, write_prices
from tests.support.run_config import run_config

DISCOUNTS = [0.3, 0.5, 0.75]


def config(tmp_path, discount, **options):
    pack = write_hosted_pack(tmp_path / "long.json", documents=1)
    table = write_prices(tmp_path / "prices.yaml", batch_discount=discount)
    return run_config(pack=pack, target="gpt-4o-mini", prices=table, prompt_order="document-first", **options)


def dollars(usage) -> float:
    """gpt-4o-mini in the test table: 0.15 per million input, 0.075 cached, 0.15 cache write, 0.60 output."""
    return (usage.uncached_input * 0.15 + usage.cached_input * 0.075 + usage.cache_write * 0.15
            + usage.output * 0.60) / 1e6


@pytest.mark.parametrize("discount", DISCOUNTS)
def test_the_quotes_batch_ways_are_the_others_times_the_discount(tmp_path, discount):
    model = quote(config(tmp_path, discount)).models[0]
    plain, caching = dollars(model.usage["plain"]), dollars(model.usage["caching"])
    assert model.cost["plain"] == pytest.approx(plain) and model.cost["caching"] == pytest.approx(caching)
    assert model.cost["batch"] == pytest.approx(plain * discount)
    assert model.cost["both"] == pytest.approx(caching * discount)


@pytest.mark.parametrize("discount, billed", [(0.3, 0.225), (0.5, 0.375), (0.75, 0.5625)])
def test_a_batch_runs_bill_is_its_tokens_at_the_discounted_price(tmp_path, discount, billed):
    usage = {"input": 1_000_000, "output": 1_000_000}   # at full price 0.15 + 0.60 = 0.75 dollars
    batch = cost_record(config(tmp_path, discount, batch_api=True), "gpt-4o-mini", usage)
    assert batch["way"] == "batch" and batch["incurred"]["cost"] == pytest.approx(billed)
    assert batch["quote"]["cost"] == pytest.approx(batch["quote"]["ways"]["plain"] * discount)
    assert batch["difference"] == pytest.approx(billed - batch["quote"]["cost"])
    plain = cost_record(config(tmp_path, discount), "gpt-4o-mini", usage)
    assert plain["way"] == "plain" and plain["incurred"]["cost"] == pytest.approx(0.75)
