"""Offline token counts: OpenAI's encodings by model family, Anthropic's per-script estimate, bytes / 4 otherwise."""

import pytest

from auditpacks.runner.hosted.tokens import (ESTIMATE, SCRIPTS, counter, encoding_name, estimate, message_text,
                                             script_class, script_estimate)
from tests.support.fake_tokens import openai_tokens


@pytest.mark.parametrize("model, encoding", [("gpt-4o-mini", "o200k_base"), ("openai/gpt-4.1", "o200k_base"),
                                             ("gpt-5-mini", "o200k_base"), ("o3", "o200k_base"),
                                             ("gpt-4", "cl100k_base"), ("gpt-3.5-turbo", "cl100k_base"),
                                             ("openrouter/openai/gpt-4o", "o200k_base"),
                                             ("claude-sonnet-4-0", None), ("llama3", None)])
def test_each_openai_family_has_its_encoding(model, encoding):
    assert encoding_name(model) == encoding


def test_openai_counts_are_tiktokens_and_need_no_download():
    count = counter("gpt-4o-mini")
    assert count.label == "tokenizer (o200k_base, bpe-openai)" and count.error == 0.01
    for text in ("hello world", "Gjykata Themelore në Lisnicë vendosi", "【民法】第七百九条の内容を教えてください。"):
        assert count.count(text) == openai_tokens(text)
    assert count.count("hello world") == 2   # "hello", " world"


def test_the_script_estimate_by_hand():
    # three ASCII letters (0.215 each) and a space (0.204): 0.849, rounded up
    assert script_estimate("ab c") == 1
    # ten kanji (1.058 each): 10.58 -> 11; an accented letter (4.09) and a full stop (0.739): 4.829 -> 5
    assert script_estimate("民法第七百九条権利義") == 11 and script_estimate("ë.") == 5
    claude = counter("claude-sonnet-4-0")
    assert (claude.label, claude.error) == (SCRIPTS, 0.15)
    assert counter("claude-x", provider="anthropic").label == SCRIPTS and counter("llama3").label == ESTIMATE


# SCRIPT_WEIGHTS' classes: 0 whitespace, 1 ASCII letter or digit, 2 ASCII punctuation, 3 other letter,
# 4 CJK (U+3000-30FF, 3400-4DBF, 4E00-9FFF, FF00-FFEF), 5 anything else; each CJK range at both ends
# and the code point just past it.
@pytest.mark.parametrize("char, index", [
    (" ", 0), ("\u3000", 0), ("a", 1), ("7", 1), (".", 2), ("\x7f", 2), ("\x80", 5), ("ë", 3), ("€", 5),
    ("あ", 4), ("\u30ff", 4), ("\u3100", 5), ("\u3400", 4), ("\u4dbf", 4), ("\u4dc0", 5),
    ("\u4e00", 4), ("\u9fff", 4), ("\ua000", 3), ("\uff00", 4), ("Ａ", 4), ("\uffef", 4), ("\ufff0", 5),
])
def test_each_character_is_weighed_by_its_script(char, index):
    assert script_class(char) == index


@pytest.mark.parametrize("text, tokens", [("", 0), ("abcd", 1), ("abcde", 2), ("ëë", 1), ("民法", 2)])
def test_the_fallback_estimate_is_utf8_bytes_over_4_rounded_up(text, tokens):
    assert estimate(text) == tokens
    assert counter("llama3").count(text) == tokens


@pytest.mark.parametrize("model, provider, label", [
    ("claude-sonnet-4-0", None, SCRIPTS), ("anthropic/claude-sonnet-4-0", None, SCRIPTS),
    ("openrouter/anthropic/claude-sonnet-4", None, SCRIPTS), ("sonnet", "anthropic", SCRIPTS),
    ("llama3", None, ESTIMATE), ("claude-x", "openai-compatible", SCRIPTS), ("my-claude", None, ESTIMATE),
])
def test_the_anthropic_estimate_is_chosen_by_provider_or_model_name(model, provider, label):
    chosen = counter(model, provider)
    assert chosen.label == label and chosen.error == (0.15 if label == SCRIPTS else 0.45)
    assert chosen.count("民法第七百九条権利義") == (11 if label == SCRIPTS else 8)   # 10.58 up, or 30 bytes / 4 up


def test_a_message_lists_text_is_its_text_parts_joined():
    parts = [{"type": "text", "text": "Is it "}, {"type": "image_url", "image_url": {"url": "x"}},
             "stray", {"type": "text", "text": "binding?"}]
    assert message_text({"role": "user", "content": parts}) == "Is it binding?"
    assert message_text({"role": "user", "content": "plain"}) == "plain"
    assert message_text({"role": "assistant", "content": None}) == ""


def test_each_message_costs_four_template_tokens_and_its_text():
    messages = [{"role": "system", "content": "abcdefgh"},
                {"role": "user", "content": [{"type": "text", "text": "abcd"}, {"type": "text", "text": "e"}]}]
    assert counter("llama3").messages(messages) == (4 + 2) + (4 + 2)
    assert counter("llama3").messages([]) == 0
