"""The quote's parts in process, by hand: the expected usage, a shared prefix, the cached share of a prefix, a
marked prefix, the reply length and its cap, the time each way takes, one model's quote with and without a price,
the quote's records, and document-first against stock order."""

from __future__ import annotations

import pytest

from auditpacks.runner.hosted import plan
from auditpacks.runner.hosted.plan import (
    Document, ModelQuote, Prompt, Quote, cached_tokens, documents, expected_usage, marked_prefix, marks_for, quote,
    quote_model, reply_scale, reply_tokens)
from auditpacks.runner.hosted.prices import Price, PriceTable, load
from auditpacks.runner.hosted.tokens import ESTIMATE, Counter, counter
from auditpacks.runner.models.usage import Usage
from tests.support.hosted_pack import write_hosted_pack, write_prices
from tests.support.run_config import run_config

MARK = {"type": "ephemeral"}
BYTES = Counter(lambda text: len(text) // 4, "four characters a token")   # "x" * 4n is n tokens


def price(model="m", provider="openai", **fields) -> Price:
    row = dict(input=2.0, cached_input=1.0, cache_write=2.5, output=10.0, batch_discount=0.5, cache_min_tokens=100,
               input_tokens_per_s=1000.0, output_tokens_per_s=10.0, request_overhead_s=0.5,
               expected_output_tokens=20)
    return Price(model, provider, **{**row, **fields})


def table(*rows: Price, **defaults) -> PriceTable:
    return PriceTable("2026-12-01", "USD", 2.0, defaults, {row.model: row for row in rows}, "/x/prices.yaml")


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
    assert [d.key, e.key] == ["d", "e"]


def test_a_shared_prefix_spanning_messages_counts_each_whole_message_template():
    items = [Prompt("d", "s" * 39 + "\x00" + "x" * 400 + end, [{"role": "system", "content": "s" * 39},
                                                             {"role": "user", "content": "x" * 400 + end}])
             for end in ("a" * 8, "b" * 8)]
    (doc,) = documents(items, BYTES)
    assert doc.prompts == [(4 + 9) + (4 + 102)] * 2 and doc.prefix == 440 // 4 + 4   # the system message's 4


@pytest.mark.parametrize("marks", [False, True])
def test_every_document_of_two_prompts_or_more_gets_its_prefix_whatever_comes_before(marks):
    items = [prompt("a", "y" * 40, marks)] + [prompt(key, "x" * 400, marks) for key in ("b", "b", "c", "c")]
    assert [(d.key, d.prefix) for d in documents(items, BYTES, marks=marks)] == \
        [("a", 0), ("b", 100 + 4 * marks), ("c", 100 + 4 * marks)]   # marked: the message's template too


def test_without_a_step_a_cache_holds_the_prefix_to_the_token():
    assert cached_tokens(101, 100) == 101
    docs = [Document("a", [1100, 1100], 1025)]
    assert expected_usage(docs, output=0, cache_min=1024).cached_input == 1025
    assert expected_usage(docs, output=0, cache_min=1024, step=128).cached_input == 1024


@pytest.mark.parametrize("prefix, minimum, step, cached", [
    (99, 100, 1, 0), (100, 100, 128, 100), (355, 100, 128, 356 - 128), (356, 100, 128, 356), (150, 100, 0, 150),
    (0, 0, 1, 0),
])
def test_a_cache_holds_the_minimum_and_whole_steps_past_it(prefix, minimum, step, cached):
    assert cached_tokens(prefix, minimum, step) == cached


def test_a_marked_prefix_counts_every_message_before_the_mark_and_the_marked_message_up_to_it():
    messages = [{"role": "system", "content": "s" * 40},
                {"role": "user", "content": [{"type": "image"}, {"type": "text", "text": "d" * 80, "cache_control": MARK},
                                             {"type": "text", "text": "q" * 400}]}]
    assert marked_prefix(messages, BYTES) == (4 + 10) + 4 + 0 + 20
    marked = [{"role": "user", "content": [{"text": "a" * 8, "cache_control": MARK},
                                           {"text": "b" * 8, "cache_control": MARK}, {"text": "c" * 8}]}]
    assert marked_prefix(marked, BYTES) == 4 + 2 + 2   # up to the last mark
    assert marked_prefix([{"role": "user", "content": "no marks"}], BYTES) == 0


def test_a_marked_prefix_adds_up_every_earlier_message_even_one_without_content():
    messages = [{"role": "system", "content": "s" * 40}, {"role": "assistant", "content": None},
                {"role": "user", "content": [{"text": "d" * 8, "cache_control": MARK}]}]
    assert marked_prefix(messages, BYTES) == (4 + 10) + (4 + 0) + (4 + 2)


def prompt(doc: str, text: str, mark: bool = False) -> Prompt:
    part = {"type": "text", "text": text, **({"cache_control": MARK} if mark else {})}
    return Prompt(doc, text, [{"role": "user", "content": [part, {"type": "text", "text": "q" * 4}]}])


def test_a_marking_providers_prefix_is_its_marked_block_at_most_the_shortest_prompt():
    docs = documents([prompt("d", "x" * 400, True), prompt("d", "x" * 400, True)], BYTES, repeats=2, marks=True)
    assert [(d.prompts, d.prefix) for d in docs] == [([4 + 101] * 4, 4 + 100)]
    short = documents([prompt("d", "x" * 40), prompt("d", "y" * 40)], BYTES, marks=True)
    assert short[0].prefix == 0   # nothing marked


MANIFEST = {"answer": {"tokens": 30}, "run": {"max_tokens": 50}}


@pytest.mark.parametrize("max_tokens, manifest, row, expected", [
    (None, MANIFEST, price(), (30, 50)),
    (25, MANIFEST, price(), (25, 25)),   # the run's cap first
    (None, {"answer": {"tokens": 0}, "run": {"max_tokens": 50}}, price(), (20, 50)),   # the table's expectation
    (None, {"answer": {"tokens": "30"}}, price(), (20, 4096)),
    (None, {"answer": "30 tokens", "run": "big"}, None, (200, 4096)),   # the table's default, else 200
    (None, {"run": {"max_tokens": -1}}, price(expected_output_tokens=5000), (5000, 5000)),
    (None, {"answer": {"tokens": 1}}, price(), (1, 4096)),                          # a one-token answer
    (None, {"run": {"max_tokens": 0}}, price(), (20, 4096)), (None, {"run": {"max_tokens": 1}}, price(), (1, 1)),
])
def test_a_replys_expected_length_and_cap(max_tokens, manifest, row, expected):
    decoding = run_config(max_tokens=max_tokens).decoding
    assert reply_tokens(decoding, manifest, row, table()) == expected


def test_an_unpriced_model_expects_the_tables_default_reply():
    assert reply_tokens(run_config().decoding, {}, None, table(expected_output_tokens=70)) == (70, 4096)


def test_the_reply_scale_is_one_for_an_openai_counter_or_no_prompts():
    items = [prompt("d", "x" * 400)]
    assert reply_scale(items, counter("gpt-4o")) == 1.0 and reply_scale([], BYTES) == 1.0
    reference = counter("gpt-4o")
    if reference.label.startswith("estimate"):
        assert reply_scale(items, BYTES) == 1.0   # no tokenizer to compare with
    else:
        assert reply_scale(items, BYTES) == pytest.approx(BYTES.messages(items[0].messages)
                                                          / reference.messages(items[0].messages))


def quote_of(items, row, config=None, manifest=None, **defaults):
    return quote_model("m", items, table(*([row] if row else []), **defaults), config or run_config(), manifest)


def test_one_models_quote_by_hand(monkeypatch):
    monkeypatch.setattr(plan, "counter", lambda model, provider=None: BYTES)
    monkeypatch.setattr(plan, "reply_scale", lambda items, count: 1.0)
    items = [prompt("d", "x" * 800), prompt("d", "x" * 800), prompt("e", "y" * 40)]
    got = quote_of(items, price(), run_config(concurrency=2), {"answer": {"tokens": 10}, "run": {"max_tokens": 40}})
    # d: two prompts of 4 + 201 tokens whose texts share 200; e: one of 4 + 11
    assert (got.scenarios, got.documents, got.requests, got.shared_prefix_tokens) == (3, 2, 3, 200)
    assert got.usage["plain"] == Usage(input=205 * 2 + 15, output=30)
    assert got.usage["caching"] == Usage(input=425, cached_input=200, cache_write=200, output=30)   # 200 >= 100
    assert got.reply_tokens == [10, 40] and got.output_tokens == 30 and got.prompt_tokens == 425
    plain = ((425 * 2.0) + 30 * 10.0) / 1e6
    caching = ((25 * 2.0) + 200 * 1.0 + 200 * 2.5 + 30 * 10.0) / 1e6
    assert got.cost == pytest.approx({"plain": plain, "caching": caching, "batch": plain / 2, "both": caching / 2})
    assert got.seconds == pytest.approx({"plain": (3 * (0.5 + 10 / 10.0) + 425 / 1000.0) / 2,
                                         "caching": (3 * (0.5 + 1.0) + 225 / 1000.0) / 2,
                                         "batch": 7200.0, "both": 7200.0})
    low, high = got.range["plain"]
    assert low < plain < high and got.tokenizer == "four characters a token"
    assert got.price == price() and got.to_dict()["priced"] is True
    assert got.cache_hit_rate == pytest.approx(200 / 425)


def test_an_unpriced_model_is_timed_with_the_tables_speeds_and_costs_nothing_known(monkeypatch):
    monkeypatch.setattr(plan, "counter", lambda model, provider=None: BYTES)
    items = [prompt("d", "x" * 800)]
    got = quote_of(items, None, manifest={"answer": {"tokens": 10}}, cache_min_tokens=50, output_tokens_per_s=5,
                   request_overhead_s=1)
    assert got.cost == dict.fromkeys(plan.WAYS) and got.range == dict.fromkeys(plan.WAYS)
    assert got.seconds["plain"] == pytest.approx(1 + 10 / 5 + 205 / 4000.0) and got.price is None
    assert got.to_dict()["priced"] is False


def test_a_prompt_of_no_tokens_has_no_hit_rate():
    usage = {"plain": Usage(), "caching": Usage()}
    empty = ModelQuote("m", 0, 0, 0, 0, 0, 0, "t", None, usage, {}, {})
    assert empty.cache_hit_rate == 0.0
    assert empty.to_dict() == {"model": "m", "scenarios": 0, "documents": 0, "requests": 0, "prompt_tokens": 0,
                               "shared_prefix_tokens": 0, "output_tokens": 0, "tokenizer": "t", "cost": {},
                               "seconds": {}, "range": {}, "reply_tokens": [], "cache_hit_rate": 0.0,
                               "priced": False, "usage": {"plain": Usage().to_dict(), "caching": Usage().to_dict()}}


def test_only_an_anthropic_row_marks_its_prompts():
    assert marks_for(price(provider="anthropic")) and not marks_for(price()) and not marks_for(None)


@pytest.fixture
def pack_and_prices(tmp_path):
    return write_hosted_pack(tmp_path / "long.json", words=200), write_prices(tmp_path / "prices.yaml")


def test_a_quote_names_its_pack_table_and_settings_and_finds_each_model(pack_and_prices):
    pack, prices = pack_and_prices
    got = quote(run_config(pack=pack, target="gpt-4o-mini", prices=prices, repeats=2, concurrency=3,
                           prompt_order="stock"))
    assert (got.pack, got.prompt_order, got.repeats, got.concurrency) == ("long.json", "stock", 2, 3)
    assert (got.price_date, got.price_source, got.batch_turnaround_hours) == ("2026-12-01", "prices.yaml", 1)
    assert [m.model for m in got.models] == ["gpt-4o-mini"] and got.for_model("gpt-4o-mini") is got.models[0]
    assert got.for_model("other") is None and got.models[0].requests == 18
    assert got.models[0].reply_tokens == [54, 4096]   # the pack's answer length, no cap given
    assert got.to_dict()["models"] == [got.models[0].to_dict()] and got.to_dict()["pack"] == "long.json"


def test_a_quote_without_a_target_prices_every_model_each_laid_out_its_own_way(pack_and_prices):
    pack, prices = pack_and_prices
    got = quote(run_config(pack=pack, prices=prices, prompt_order="document-first"))
    assert [m.model for m in got.models] == list(load(prices).models) == ["gpt-4o-mini", "claude-sonnet-4-0"]
    openai, anthropic = got.models
    assert openai.shared_prefix_tokens > 0 and anthropic.shared_prefix_tokens > 0
    named = quote(run_config(pack=pack, prices=prices, prompt_order="document-first"), ["claude-sonnet-4-0"])
    assert [m.to_dict() for m in named.models] == [anthropic.to_dict()]


def test_the_time_of_a_way_is_the_busy_time_over_the_workers():
    docs = [Document("d", [100, 100], 0)]
    speed = price(input_tokens_per_s=100.0, output_tokens_per_s=2.0, request_overhead_s=1.0)
    busy = 2 * (1.0 + 4 / 2.0) + (200 - 50) / 100.0
    assert plan._seconds(docs, Usage(input=200, cached_input=50), speed, 4, 0) == busy
    assert plan._seconds(docs, Usage(input=200, cached_input=50), speed, 4, 3) == busy / 3


def test_a_range_scales_every_prompt_and_prefix_and_rounds():
    assert plan._scaled([Document("d", [10, 15], 7)], 1.5) == [Document("d", [15, 22], 10)]


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
