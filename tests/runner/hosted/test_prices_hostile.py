"""Price tables that would quote nonsense or crash: NaN and infinite prices, a speed of 0, YAML nested too deeply
are each one line naming the file, the model and the field."""

import pytest

from auditpacks.runner.hosted import prices
from tests.runner.hosted.test_prices import TABLE


@pytest.mark.parametrize(("old", "new", "message"), [
    ("input: 3.0", "input: .nan", r"p.yaml: models.m: field input is nan, not a non-negative number"),
    ("output: 15.0", "output: .inf", r"p.yaml: models.m: field output is inf, not a non-negative number"),
    ("output_tokens_per_s: 50", "output_tokens_per_s: 0",
     r"p.yaml: models.m: field output_tokens_per_s is 0; a speed must be above 0"),
    ("input_tokens_per_s: 1000", "input_tokens_per_s: .inf", r"field input_tokens_per_s is inf"),
    ("batch_turnaround_hours: 2", "batch_turnaround_hours: .nan", r"field batch_turnaround_hours is nan"),
])
def test_a_nonsense_number_is_refused_in_one_line(tmp_path, old, new, message):
    path = tmp_path / "p.yaml"
    path.write_text(TABLE.replace(old, new), encoding="utf-8")
    with pytest.raises(prices.PriceError, match=message):
        prices.load(path)


def test_yaml_nested_too_deeply_is_one_line(tmp_path):
    path = tmp_path / "p.yaml"
    path.write_text("models: " + "[" * 100_000 + "]" * 100_000 + "\n", encoding="utf-8")
    with pytest.raises(prices.PriceError, match=r"p.yaml: YAML nested too deeply to read$"):
        prices.load(path)
