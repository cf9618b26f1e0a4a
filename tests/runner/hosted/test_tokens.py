"""Offline token counts: OpenAI's encodings by model family, Anthropic's per-script estimate, bytes / 4 otherwise."""

import pytest

from auditpacks.runner.hosted.tokens import ESTIMATE, SCRIPTS, counter, encoding_name, script_estimate
from tests.support.fake_tokens import openai_tokens


@pytest.mark.parametrize("model, encoding", [("gpt-4o-mini", "o200k_base"), ("openai/gpt-4.1", "o200k_base"),
                                             ("gpt-5-mini", "o200k_base"), ("o3", "o200k_base"),
                                             ("gpt-4", "cl100k_base"), ("gpt-3.5-turbo", "cl100k_base"),
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
