"""The batch discount is the batch API's price as a share of the normal one (0.3: 30% of the price), for any
share, not only the bundled one half where the two readings agree."""

import pytest

from auditpacks.runner.hosted import prices
from auditpacks.runner.models.usage import Usage
from tests.runner.hosted.test_prices import TABLE

USAGE = Usage(input=4_000_000, cached_input=1_000_000, cache_write=2_000_000, output=1_000_000)


@pytest.mark.parametrize("discount, batch", [(0.3, 7.74), (0.5, 12.9), (0.75, 19.35), (1, 25.8)])
def test_a_batch_costs_the_full_price_times_the_discount(tmp_path, discount, batch):
    path = tmp_path / "p.yaml"
    path.write_text(TABLE.replace("batch_discount: 0.5", f"batch_discount: {discount}"))
    price = prices.load(path).lookup("m")
    assert price.batch_discount == discount
    # the full price by hand: 3 + 0.3 + 7.5 + 15 = 25.8; the batch price 25.8 × the discount
    assert prices.cost(USAGE, price) == pytest.approx(25.8)
    assert prices.cost(USAGE, price, batch=True) == pytest.approx(batch)


@pytest.mark.parametrize("discount", [0, -0.5, 1.5])
def test_a_discount_outside_zero_to_one_is_refused(tmp_path, discount):
    path = tmp_path / "p.yaml"
    path.write_text(TABLE.replace("batch_discount: 0.5", f"batch_discount: {discount}"))
    with pytest.raises(prices.PriceError, match="batch_discount"):
        prices.load(path)
