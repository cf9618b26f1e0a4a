"""Usage as each provider reports it, normalised: prompt counts with cache reads and writes inside."""

import pytest

from auditpacks.runner.models.usage import Usage, from_anthropic, from_gemini, from_openai


def test_openai_chat_usage_counts_cached_tokens_inside_the_prompt():
    usage = from_openai({"prompt_tokens": 2000, "completion_tokens": 50, "total_tokens": 2050,
                         "prompt_tokens_details": {"cached_tokens": 1536}})
    assert usage == Usage(input=2000, cached_input=1536, cache_write=0, output=50)
    assert usage.uncached_input == 464


def test_openai_responses_usage_and_cache_writes():
    usage = from_openai({"input_tokens": 3000, "output_tokens": 7, "input_tokens_details": {"cached_tokens": 1024},
                         "cache_write_tokens": 1200})
    assert usage == Usage(input=3000, cached_input=1024, cache_write=1200, output=7)
    assert usage.uncached_input == 776


def test_anthropic_input_tokens_exclude_cache_reads_and_writes():
    read = from_anthropic({"input_tokens": 30, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 1800,
                           "output_tokens": 20})
    write = from_anthropic({"input_tokens": 30, "cache_creation_input_tokens": 1800, "cache_read_input_tokens": 0,
                            "output_tokens": 20})
    assert read == Usage(input=1830, cached_input=1800, cache_write=0, output=20)
    assert write == Usage(input=1830, cached_input=0, cache_write=1800, output=20)
    assert read.uncached_input == write.uncached_input == 30


def test_gemini_prompt_count_includes_cached_content():
    usage = from_gemini({"prompt_token_count": 1200, "cached_content_token_count": 1024, "candidates_token_count": 10,
                         "thoughts_token_count": 5})
    assert usage == Usage(input=1200, cached_input=1024, cache_write=0, output=15)


def test_sdk_objects_and_missing_fields_read_as_zero():
    class Details:
        cached_tokens = 128

    class Sdk:
        prompt_tokens, completion_tokens, prompt_tokens_details = 500, 3, Details()

    assert from_openai(Sdk()) == Usage(500, 128, 0, 3)
    assert from_openai(None) == Usage() and from_anthropic({}) == Usage()
    assert Usage(1, 2, 3, 4) + Usage(10, 20, 30, 40) == Usage(11, 22, 33, 44)


def test_counts_that_are_not_token_counts_read_as_zero():
    from auditpacks.runner.models.usage import from_openai

    bad = {"prompt_tokens": float("nan"), "completion_tokens": -5,
           "prompt_tokens_details": {"cached_tokens": 10**30}}
    assert from_openai(bad).to_dict() == {"input": 0, "cached_input": 0, "cache_write": 0, "output": 0}


@pytest.mark.parametrize("extra, cache_write", [
    ({"prompt_tokens_details": {"cached_tokens": 300, "cache_write_tokens": 200}}, 200),   # inside the details
    ({"prompt_tokens_details": {"cached_tokens": 300}, "cache_write_tokens": 150}, 150),   # beside them
    ({"prompt_tokens_details": {"cached_tokens": 300}}, 0),
])
def test_chat_usage_cache_writes_are_read_inside_the_details_or_beside_them(extra, cache_write):
    usage = from_openai({"prompt_tokens": 1000, "completion_tokens": 20, **extra})
    assert usage == Usage(input=1000, cached_input=300, cache_write=cache_write, output=20)


def test_chat_usage_that_also_names_input_tokens_is_read_as_chat_usage():
    """A server sending both spellings: ``prompt_tokens`` wins, as in Chat Completions."""
    usage = from_openai({"prompt_tokens": 1000, "completion_tokens": 20, "input_tokens": 990, "output_tokens": 19})
    assert usage == Usage(input=1000, cached_input=0, cache_write=0, output=20)
