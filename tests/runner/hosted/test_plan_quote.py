"""One model's quote by hand: a marking provider's counter and prefix, the reply's length scaled to the model's
tokens, the cache facts of the row or of the table's defaults, and the range from a short count and half-length
replies to a long count and replies at the cap."""

from __future__ import annotations

import pytest

from auditpacks.runner.hosted import plan
from auditpacks.runner.hosted.tokens import Counter
from tests.runner.hosted.test_plan_parts import BYTES, price, prompt, quote_of
from tests.support.run_config import run_config


def counted(monkeypatch, count: Counter = BYTES, scale: float = 1.0) -> list[tuple]:
    """``count`` for every model (the models and providers asked for are listed) and ``scale`` as the reply scale."""
    asked: list[tuple] = []
    monkeypatch.setattr(plan, "counter", lambda model, provider=None: asked.append((model, provider)) or count)
    monkeypatch.setattr(plan, "reply_scale", lambda items, counter: scale)
    return asked


def test_an_anthropic_row_is_counted_as_anthropic_and_cached_to_its_marked_block(monkeypatch):
    asked = counted(monkeypatch)
    items = [prompt("d", "x" * 400, mark=True), prompt("d", "x" * 400, mark=True)]   # 4 + 101 tokens each
    marked, plain = quote_of(items, price(provider="anthropic")), quote_of(items, price())
    assert asked == [("m", "anthropic"), ("m", "openai")]
    assert (marked.shared_prefix_tokens, plain.shared_prefix_tokens) == (4 + 100, 100)   # the marked message; the text


def test_the_reply_is_the_rows_expectation_in_the_models_tokens_at_most_the_cap(monkeypatch):
    items = [prompt("d", "x" * 40)]
    monkeypatch.setattr(plan, "counter", lambda model, provider=None: BYTES)
    monkeypatch.setattr(plan, "reply_scale", lambda given, count: 2.0 if given is items and count is BYTES else 0.0)
    assert quote_of(items, price(expected_output_tokens=20)).reply_tokens == [40, 4096]   # twice as many tokens
    assert quote_of(items, price(expected_output_tokens=20), run_config(max_tokens=30)).reply_tokens == [30, 30]


@pytest.mark.parametrize("row, defaults, shared, cached", [
    (price(cache_min_tokens=100, cache_step_tokens=64), {}, 200, 100 + 64),   # the row's minimum and steps
    (None, {}, 1024, 1024), (None, {}, 1023, 0),                               # unlisted: at least 1,024 tokens
    (None, {"cache_min_tokens": 50}, 61, 61),                                  # the table's minimum, to the token
])
def test_the_cache_holds_the_shared_prefix_by_the_rows_facts_else_the_tables(monkeypatch, row, defaults, shared,
                                                                             cached):
    counted(monkeypatch)
    items = [prompt("d", "x" * 4 * shared + "a" * 4), prompt("d", "x" * 4 * shared + "b" * 4)]
    got = quote_of(items, row, **defaults)
    assert got.shared_prefix_tokens == shared
    assert (got.usage["caching"].cached_input, got.usage["caching"].cache_write) == (cached, cached)


@pytest.mark.parametrize("reply, short_reply", [(5, 2), (1, 1)])   # half a reply, at least one token
def test_the_range_runs_from_a_short_count_and_short_replies_to_a_long_count_and_replies_at_the_cap(
        monkeypatch, reply, short_reply):
    counted(monkeypatch, Counter(BYTES.count, "within half", 0.5))
    manifest = {"answer": {"tokens": reply}, "run": {"max_tokens": 40}}
    got = quote_of([prompt("d", "x" * 396)], price(), manifest=manifest)   # 4 + 100 tokens: 52 to 156
    low, high = (52 * 2.0 + short_reply * 10.0) / 1e6, (156 * 2.0 + 40 * 10.0) / 1e6
    assert got.range["plain"] == pytest.approx([low, high]) and got.range["batch"] == pytest.approx([low / 2, high / 2])


def reference(count, label="o200k") -> Counter:
    """A stand-in for the OpenAI counter the pack's answer lengths are stated in."""
    return Counter(count, label)


def test_the_reply_scale_compares_the_first_fifty_prompts_in_both_counters(monkeypatch):
    monkeypatch.setattr(plan, "counter", lambda model, provider=None: reference(lambda text: len(text) // 2))
    items = [prompt("d", "x" * 400)] * 50 + [prompt("d", "")]   # "x" * 400 + "q" * 4: 4 + 101 tokens, or 4 + 202
    assert plan.reply_scale(items, BYTES) == pytest.approx(105 / 206)
    assert plan.reply_scale([plan.Prompt("d", "", [])], BYTES) == 1.0   # no message to compare


def test_without_the_openai_tokenizer_the_reply_scale_is_one(monkeypatch):
    monkeypatch.setattr(plan, "counter", lambda model, provider=None: reference(len, plan.ESTIMATE))
    assert plan.reply_scale([prompt("d", "x" * 400)], BYTES) == 1.0
