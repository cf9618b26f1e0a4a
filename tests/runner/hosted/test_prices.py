"""The price table: read from a dated YAML file, never from code; costs as providers bill them."""

import pytest

from auditpacks.runner.hosted import prices
from auditpacks.runner.models.usage import Usage

TABLE = """date: "2026-01-31"
batch_turnaround_hours: 2
defaults: {batch_discount: 0.5, cache_min_tokens: 1024, input_tokens_per_s: 1000, output_tokens_per_s: 50,
           request_overhead_s: 0.5, expected_output_tokens: 100}
models:
  m:
    provider: anthropic
    input: 3.0
    cached_input: 0.3
    cache_write: 3.75
    output: 15.0
"""


def test_bundled_table_is_dated_and_lists_the_cards_models():
    table = prices.load()
    assert table.date and table.lookup("gpt-4o-mini") and table.lookup("gpt-4o")
    assert table.lookup("openai/gpt-4o-mini") is table.lookup("gpt-4o-mini")
    assert table.lookup("no-such-model") is None


def test_cost_by_hand(tmp_path):
    path = tmp_path / "p.yaml"
    path.write_text(TABLE)
    table = prices.load(path)
    price = table.lookup("m")
    assert (table.date, table.batch_turnaround_hours, price.expected_output_tokens) == ("2026-01-31", 2.0, 100)
    usage = Usage(input=4_000_000, cached_input=1_000_000, cache_write=2_000_000, output=1_000_000)
    # 1M uncached × 3 + 1M read × 0.3 + 2M written × 3.75 + 1M out × 15 = 3 + 0.3 + 7.5 + 15
    assert prices.cost(usage, price) == pytest.approx(25.8)
    assert prices.cost(usage, price, batch=True) == pytest.approx(12.9)


@pytest.mark.parametrize("text, words", [
    ("models: {}", "field date is missing"),
    ('date: "x"\nmodels: {m: {input: 1}}', "models.m: field cached_input is missing"),
    ('date: "x"\nmodels: {m: {input: -1, cached_input: 1, cache_write: 1, output: 1, batch_discount: 1, '
     'cache_min_tokens: 1, input_tokens_per_s: 1, output_tokens_per_s: 1, request_overhead_s: 1, '
     'expected_output_tokens: 1}}', "models.m: field input is -1"),
    ("date: [", "not YAML"),
])
def test_a_bad_table_is_one_line_naming_file_and_field(tmp_path, text, words):
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(prices.PriceError) as caught:
        prices.load(path)
    message = str(caught.value)
    assert "\n" not in message and "bad.yaml" in message and words in message


def test_every_bundled_row_names_its_providers_price_page_and_when_it_was_read():
    table = prices.load()
    pages = {"openai": "https://developers.openai.com/", "anthropic": "https://platform.claude.com/",
             "gemini": "https://ai.google.dev/"}
    for price in table.models.values():
        assert price.source.startswith(pages[price.provider]), price.model
        assert "2025-01-01" <= price.checked <= table.date, price.model
    assert table.date == max(p.checked for p in table.models.values())
    # OpenAI's cache hits grow in 128-token steps, Anthropic's reach the marked block to the token
    assert {p.provider: p.cache_step_tokens for p in table.models.values()}["openai"] == 128
    assert table.lookup("claude-opus-4-5").cache_step_tokens == 1
    # Anthropic's 5-minute cache writes cost 1.25x the input price, reads 0.1x
    for price in table.models.values():
        if price.provider == "anthropic":
            assert price.cache_write == pytest.approx(1.25 * price.input)
            assert price.cached_input == pytest.approx(0.1 * price.input)
