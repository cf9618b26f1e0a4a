"""The quote on screen: money and durations as people read them, the quote's opening line, and per model its
counts and a table of the four ways to run (cost, range, time, cache hit rate)."""

from __future__ import annotations

import io
from types import SimpleNamespace

import pytest

from auditpacks.runner.hosted.plan import ModelQuote, Quote
from auditpacks.runner.hosted.plan_view import duration, money, print_quote
from auditpacks.runner.models.usage import Usage


@pytest.mark.parametrize("value, text", [
    (None, "n/a"), (0, "$0.0000"), (0.00012345, "$0.0001"), (0.5, "$0.5000"), (0.99994, "$0.9999"), (1, "$1.00"),
    (1234.567, "$1,234.57"), (2_000_000, "$2,000,000.00"),
])
def test_money_shows_cents_from_a_dollar_and_four_decimals_below(value, text):
    assert money(value) == text


@pytest.mark.parametrize("seconds, text", [
    (0, "0 s"), (89.4, "89 s"), (89.6, "90 s"), (90, "2 min"), (150, "2 min"), (5399, "90 min"), (5400, "1.5 h"),
    (5580, "1.6 h"), (36_000, "10.0 h"),
])
def test_durations_in_seconds_then_minutes_then_hours(seconds, text):
    assert duration(seconds) == text


def model_quote(model="gpt-x", *, price=SimpleNamespace(), reply_tokens=(200, 1024), cached=750) -> ModelQuote:
    return ModelQuote(model=model, scenarios=12, documents=3, requests=24, prompt_tokens=1234567,
                      shared_prefix_tokens=9000, output_tokens=2400, tokenizer="tiktoken o200k", price=price,
                      usage={"plain": Usage(input=1000), "caching": Usage(input=1000, cached_input=cached)},
                      cost={"plain": 0.5, "caching": 1.5, "batch": 1234.5, "both": None},
                      seconds={"plain": 30, "caching": 89.4, "batch": 90, "both": 5400},
                      range={"plain": [0.25, 2.0], "batch": [1000, 2000.125]}, reply_tokens=list(reply_tokens))


def shown(*models: ModelQuote) -> str:
    out = io.StringIO()
    print_quote(Quote(pack="tiny.json", prompt_order="documents first", repeats=2, concurrency=4,
                      price_date="2026-11-01", price_source="prices.yaml", batch_turnaround_hours=24,
                      models=list(models)), out)
    return out.getvalue()


def rows(text: str) -> list[list[str]]:
    """The table's cells as printed (padding kept), header and body."""
    return [line.split("│" if "│" in line else "┃")[1:-1] for line in text.splitlines()
            if line.startswith(("│", "┃"))]


def test_the_quote_says_nothing_was_sent_and_how_it_was_priced():
    first = shown(model_quote()).splitlines()[0]
    assert first == ("Quote for tiny.json: nothing was sent. Prompt order documents first, 2 round(s), concurrency 4; "
                     "prices of 2026-11-01 (prices.yaml).")


def test_each_model_gets_its_counts_and_a_row_per_way():
    text = shown(model_quote())
    assert ("\ngpt-x: 12 scenarios, 3 documents, 24 requests; 1,234,567 prompt tokens (9,000 in shared document "
            "prefixes), 2,400 expected output tokens (replies of 200, at most 1,024); tokens by tiktoken o200k\n"
            ) in text
    table = [[c.strip() for c in row] for row in rows(text)]
    assert table == [
        ["way", "cost", "range", "time", "cache hit rate"],
        ["plain", "$0.5000", "$0.2500 to $2.00", "30 s", "0%"],
        ["prompt caching", "$1.50", "n/a", "89 s", "75%"],
        ["batch API", "$1,234.50", "$1,000.00 to $2,000.12", "about 2 min (at most 24 h)", "0%"],
        ["batch + caching", "n/a", "n/a", "about 1.5 h (at most 24 h)", "75%"],
    ]


def test_the_way_is_aligned_left_and_every_figure_right():
    for row in rows(shown(model_quote()))[1:]:
        way, *figures = row
        assert way == " " + way.strip() + " " * (len(way) - len(way.strip()) - 1)
        assert all(cell == " " * (len(cell) - len(cell.strip()) - 1) + cell.strip() + " " for cell in figures)


def test_a_model_without_a_price_says_so_and_one_without_reply_tokens_leaves_them_out():
    text = shown(model_quote("m1", price=None, reply_tokens=(), cached=0), model_quote("m2"))
    assert "2,400 expected output tokens; tokens by tiktoken o200k; not in the price table, so no cost\n" in text
    assert "(replies of 200, at most 1,024); tokens by tiktoken o200k\n" in text
    assert text.index("\nm1: ") < text.index("\nm2: ")
    first_table = [[c.strip() for c in row] for row in rows(text)][:5]
    assert [row[4] for row in first_table[1:]] == ["0%", "0%", "0%", "0%"]   # nothing cached: 0 of 1,000


def test_the_table_is_not_wrapped_at_a_narrow_terminal_and_a_wide_one_is_fitted_to_120_columns(monkeypatch):
    monkeypatch.setenv("COLUMNS", "40")
    assert max(len(line) for line in shown(model_quote()).splitlines()) > 100
    wide = model_quote()
    wide.cost = dict.fromkeys(wide.cost, 1e12)
    wide.range = dict.fromkeys(wide.cost, [1e12, 2e12])
    assert max(len(line) for line in shown(wide).splitlines() if line.startswith(("│", "┃", "┏"))) == 120
