"""A merged run's performance block: counts summed, lists joined, endpoints added per URL, settings kept."""

import pytest

from auditpacks.runner.store.performance_sum import sum_cost, sum_performance


def test_no_blocks_is_none():
    assert sum_performance([]) is None
    assert sum_performance([None, {}]) is None


def test_counts_add_up_lists_join_and_agreeing_settings_stay_one_value():
    a = {"documents": 3, "requests": 10, "seconds": 1.25, "batches": {"1": 2, "4": 1}, "fallbacks": ["x"],
         "prompt_order": "documents_first", "concurrency": 2, "slot_pinning": True}
    b = {"documents": 2, "requests": 5, "seconds": 0.5, "batches": {"4": 3, "8": 1}, "fallbacks": ["y", "z"],
         "prompt_order": "documents_first", "concurrency": 4, "slot_pinning": True}
    assert sum_performance([a, None, b]) == {
        "documents": 5, "requests": 15, "seconds": 1.75, "batches": {"1": 2, "4": 4, "8": 1},
        "fallbacks": ["x", "y", "z"], "prompt_order": "documents_first", "concurrency": [2, 4],
        "slot_pinning": True}


def test_keys_missing_or_none_in_a_shard_use_the_others():
    assert sum_performance([{"tokens": None, "requests": 1}, {"tokens": 7}]) == {"tokens": 7, "requests": 1}
    assert sum_performance([{"tokens": None}, {"tokens": None}]) == {"tokens": None}


def test_values_of_different_kinds_are_kept_side_by_side():
    assert sum_performance([{"n": 1}, {"n": "many"}]) == {"n": [1, "many"]}
    assert sum_performance([{"flag": True}, {"flag": 2}]) == {"flag": [True, 2]}
    assert sum_performance([{"flag": 2}, {"flag": True}]) == {"flag": [2, True]}  # whichever shard comes first
    assert sum_performance([{"flag": False}, {"flag": True}]) == {"flag": [False, True]}  # booleans never add
    assert sum_performance([{"mode": "a"}, {"mode": "a"}]) == {"mode": "a"}
    assert sum_performance([{"x": 0.1}, {"x": 0.2}]) == {"x": 0.3}  # rounded to 6 places
    assert sum_performance([{"x": 0.1234564}, {"x": 0.0000002}]) == {"x": 0.123457}


def test_endpoints_are_added_per_base_url_in_first_appearance_order():
    a = {"endpoints": [{"base_url": "http://b", "requests": 2, "state": "up"},
                       {"base_url": "http://a", "requests": 1, "state": "up"}]}
    b = {"endpoints": [{"base_url": "http://a", "requests": 4, "state": "down"}]}
    assert sum_performance([a, b]) == {"endpoints": [
        {"base_url": "http://b", "requests": 2, "state": "up"},
        {"base_url": "http://a", "requests": 5, "state": ["up", "down"]}]}


def test_cost_blocks_add_up_and_the_hit_rate_comes_from_the_summed_tokens():
    from auditpacks.runner.store.performance_sum import sum_blocks, sum_cost

    a = {"price_table_date": "2026-01-01", "way": "caching", "quote": {"cost": 0.5, "tokenizer": "o200k_base"},
         "incurred": {"input": 1000, "cached_input": 800, "output": 50, "cache_hit_rate": 0.8, "cost": 0.25},
         "difference": -0.25}
    b = {"price_table_date": "2026-01-01", "way": "caching", "quote": {"cost": 0.25, "tokenizer": "o200k_base"},
         "incurred": {"input": 3000, "cached_input": 0, "output": 70, "cache_hit_rate": 0.0, "cost": 0.5},
         "difference": 0.25}
    assert sum_cost([a, None, b]) == {
        "price_table_date": "2026-01-01", "way": "caching", "quote": {"cost": 0.75, "tokenizer": "o200k_base"},
        "incurred": {"input": 4000, "cached_input": 800, "output": 120, "cache_hit_rate": 0.2, "cost": 0.75},
        "difference": 0.0}
    assert sum_blocks([{"hits": 2, "misses": 1, "writes": 1}, {"hits": 0, "misses": 3, "writes": 3}]) == {
        "hits": 2, "misses": 4, "writes": 4}
    assert sum_cost([None, None]) is None


def test_work_of_earlier_attempts_adds_up_beside_the_documents_run():
    # shard 1 ran 3 documents and resumed 4 scenarios (2 documents) a cancelled attempt finished; shard 2 none
    one = {"prompt_order": "document-first", "documents": 3, "earlier_attempts": {"scenarios": 4, "documents": 2}}
    two = {"prompt_order": "document-first", "documents": 4}
    assert sum_performance([one, two]) == {"prompt_order": "document-first", "documents": 7,
                                           "earlier_attempts": {"scenarios": 4, "documents": 2}}


@pytest.mark.parametrize("incurred, rate", [
    ({"input": 100, "cache_hit_rate": 0.5}, 0.0),                       # nothing read from the cache
    ({"cached_input": 0, "cache_hit_rate": 0.5}, None),                 # nothing sent: no rate
])
def test_a_hit_rate_without_cached_or_sent_tokens(incurred, rate):
    assert sum_cost([{"incurred": incurred}])["incurred"]["cache_hit_rate"] == rate
