"""Fitting a prompt into an Ollama model's context: the token estimate (erring high, by character kind), the
``num_ctx`` sent (the smallest power of two from 2,048 that holds prompt and answer, capped at the model's
context), a prompt that cannot fit refused before it is sent, and a reply to a prompt the server cut refused."""

from __future__ import annotations

import pytest

from auditpacks.runner.models.providers import context_fit


def test_num_ctx_buckets_and_truncation_check():
    assert context_fit.choose_num_ctx(100, 64, 8192) == 2048
    assert context_fit.choose_num_ctx(3000, 256, 32768) == 4096
    assert context_fit.choose_num_ctx(7000, None, 8192) == 8192
    with pytest.raises(context_fit.PromptTooLong):
        context_fit.choose_num_ctx(7500, 1024, 8192)
    context_fit.check_prompt_tokens(300, estimate=500, num_ctx=2048, output_budget=256)  # fine
    context_fit.check_prompt_tokens(5, estimate=500, num_ctx=2048, output_budget=256)  # prompt cache: fine
    with pytest.raises(context_fit.LikelyTruncated):
        context_fit.check_prompt_tokens(1900, estimate=1200, num_ctx=2048, output_budget=256)
    with pytest.raises(context_fit.LikelyTruncated):
        context_fit.check_prompt_tokens(2100, estimate=2200, num_ctx=2048, output_budget=0)


@pytest.mark.parametrize("estimate, budget, context, num_ctx", [
    (1024, 1024, 100_000, 2048),      # exactly 2,048 needed: the smallest window
    (1025, 1024, 100_000, 4096),      # one more: the next power of two
    (4096, 4096, 100_000, 8192),      # exactly a power of two
    (4097, 4096, 100_000, 16384),
    (3000, 1000, 5000, 4096),
    (3100, 1000, 5000, 5000),         # the next power of two (8,192) is above the model's context: capped
    (4000, 1000, 5000, 5000),         # exactly the model's context
    (10, None, 4096, 2048),           # no budget given: the default answer cap, 1,024
    (2000, None, 4096, 4096),         # 2,000 + 1,024 = 3,024
    (2000, 0, 4096, 4096),            # a zero budget is no budget: the default
])
def test_num_ctx_is_the_smallest_power_of_two_from_2048_that_holds_prompt_and_answer(estimate, budget, context,
                                                                                      num_ctx):
    assert context_fit.choose_num_ctx(estimate, budget, context) == num_ctx


def test_a_prompt_that_cannot_fit_is_refused_with_what_it_needs():
    with pytest.raises(context_fit.PromptTooLong) as refused:
        context_fit.choose_num_ctx(4001, 1000, 5000)
    assert str(refused.value) == ("prompt needs about 4001 tokens (estimated) plus 1000 for the answer, more than "
                                  "the model's context of 5000 tokens; not sent (nothing is truncated)")
    with pytest.raises(context_fit.PromptTooLong, match="plus 1024 for the answer"):
        context_fit.choose_num_ctx(3073, None, 4096)
    assert issubclass(context_fit.PromptTooLong, ValueError) and issubclass(context_fit.LikelyTruncated, ValueError)


def test_estimate_weights():
    assert context_fit.text_tokens("ab 1,\n") == pytest.approx(0.6 * 2 + 1 + 1 + 1)
    assert context_fit.text_tokens("私権") == pytest.approx(4.0)  # 3 UTF-8 bytes a character, 2/3 token a byte
    assert context_fit.estimate_tokens([{"content": "ab"}, {"content": "", "images": ["x"]}]) \
        == 64 + 8 + 1 + 8 + 1024 + 1


@pytest.mark.parametrize("text, tokens", [
    ("", 0.0), ("   ", 0.0), ("Z", 0.6), ("7", 1.0), ("\t", 1.0), ("ë", 4 / 3), ("€", 2.0), ("😀", 8 / 3),
])
def test_each_character_kind_weighs_as_documented(text, tokens):
    assert context_fit.text_tokens(text) == pytest.approx(tokens)


def test_the_estimate_adds_the_template_role_markers_and_images_and_rounds_up():
    assert context_fit.estimate_tokens([]) == 65                                   # the template, plus one
    assert context_fit.estimate_tokens([{"role": "user"}]) == 64 + 8 + 1              # no content
    assert context_fit.estimate_tokens([{"content": None, "images": None}]) == 73
    assert context_fit.estimate_tokens([{"content": "abc"}]) == 64 + 8 + 1 + 1    # 1.8 rounds down, plus one
    assert context_fit.estimate_tokens([{"content": 12}]) == 64 + 8 + 2 + 1       # a number counted as its text
    assert context_fit.estimate_tokens([{"content": "", "images": ["a", "b"]}, {"content": "x"}]) \
        == 64 + 8 + 2048 + 8 + 0 + 1                                              # 0.6 for "x" rounds away


@pytest.mark.parametrize("count, estimate, num_ctx, budget, cut", [
    (2049, 2000, 2048, 16, True),     # more than the window
    (2032, 2000, 2048, 16, False),    # above the estimate, exactly the budget left
    (2033, 2000, 2048, 16, True),     # above the estimate, one token short of the budget
    (1900, 1000, 2048, 200, True),    # above the estimate and less than the budget left
    (1848, 1000, 2048, 200, False),   # above the estimate, exactly the budget left
    (1900, 1900, 2048, 200, False),   # at the estimate: the estimate errs high, so not cut
    (2048, 2100, 2048, 16, False),    # the whole window, below the estimate
    (1100, 1000, 2048, None, True),   # no budget: the default 1,024 must be left
    (1024, 1000, 2048, None, False),  # exactly 1,024 left
    (None, 100, 2048, 16, False),     # no count reported
])
def test_truncation_check_boundaries(count, estimate, num_ctx, budget, cut):
    if cut:
        with pytest.raises(context_fit.LikelyTruncated):
            context_fit.check_prompt_tokens(count, estimate=estimate, num_ctx=num_ctx, output_budget=budget)
    else:
        context_fit.check_prompt_tokens(count, estimate=estimate, num_ctx=num_ctx, output_budget=budget)


def test_a_cut_prompt_is_reported_with_its_counts():
    with pytest.raises(context_fit.LikelyTruncated) as cut:
        context_fit.check_prompt_tokens(2049, estimate=2000, num_ctx=2048, output_budget=16)
    assert str(cut.value) == ("the server evaluated 2049 prompt tokens with num_ctx 2048 (estimated 2000): the "
                              "prompt was probably truncated; reply discarded")
