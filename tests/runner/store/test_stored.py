"""Results as stored: long strings cut at the limit and marked, cut entries counted, secrets blanked out."""

import pytest

from auditpacks.core import redact
from auditpacks.runner.store.stored import MAX_STORED_CHARS, bounded, cut_mark, for_storage

KEY = "sk-test-0123456789abcdef"


@pytest.fixture(autouse=True)
def registered_key():
    redact.forget_all()
    redact.register(KEY)
    yield
    redact.forget_all()


def test_short_text_is_kept_with_secrets_blanked():
    assert bounded(f"key {KEY} here") == (f"key {redact.KEY_MARK} here", 0)
    assert bounded("x" * MAX_STORED_CHARS) == ("x" * MAX_STORED_CHARS, 0)  # exactly the limit: not cut


def test_long_text_keeps_the_limit_then_the_mark():
    text, left_out = bounded("y" * (MAX_STORED_CHARS + 5))
    assert left_out == 5
    assert text == "y" * MAX_STORED_CHARS + cut_mark(5)
    assert cut_mark(5) == f"\n[… 5 more characters not stored: replies are kept up to {MAX_STORED_CHARS} characters]"


def test_a_key_straddling_the_cut_is_never_half_kept():
    text = "z" * (MAX_STORED_CHARS - 10) + KEY + "z" * 50
    stored, _ = bounded(text)
    assert KEY[:10] not in stored
    assert stored.startswith("z" * (MAX_STORED_CHARS - 10) + redact.KEY_MARK[:10])


def test_for_storage_walks_the_result_and_counts_cuts_on_conversation_entries():
    result = {"scenario_name": "s", "score": 1, "ok": True, "tags": ("a", KEY),
              "conversation": [{"role": "user", "content": "q"},
                               {"role": "assistant", "content": "w" * (MAX_STORED_CHARS + 7)}],
              "metadata": {KEY: "named by a key", "n": None}}
    stored = for_storage(result)
    assert stored["scenario_name"] == "s" and stored["score"] == 1 and stored["ok"] is True
    assert stored["tags"] == ["a", redact.KEY_MARK]
    assert stored["conversation"][0] == {"role": "user", "content": "q"}  # nothing cut: no count
    reply = stored["conversation"][1]
    assert reply["cut_chars"] == 7 and reply["content"].endswith(cut_mark(7))
    assert stored["metadata"] == {redact.KEY_MARK: "named by a key", "n": None}
    assert "cut_chars" not in stored  # only entries with a role or content carry the count
    assert result["conversation"][1]["content"] == "w" * (MAX_STORED_CHARS + 7)  # the input is untouched


def test_token_counts_a_server_got_wrong_are_stored_as_unknown_and_no_nan_reaches_the_journal():
    import json
    import math

    stored = for_storage({"target_input_tokens": math.nan, "target_output_tokens": -5, "judge_input_tokens": 10**30,
                          "judge_output_tokens": 7, "score": math.inf, "nested": [{"x": math.nan}]})
    assert stored == {"target_input_tokens": None, "target_output_tokens": None, "judge_input_tokens": None,
                      "judge_output_tokens": 7, "score": None, "nested": [{"x": None}]}
    json.dumps(stored, allow_nan=False)  # strict JSON


@pytest.mark.parametrize("entry, cut_chars", [
    ({"role": "assistant", "reasoning": "r" * (MAX_STORED_CHARS + 3), "content": "c" * (MAX_STORED_CHARS + 4),
      "turn": 2}, 7),                                                     # every cut of the entry, summed
    ({"role": "tool", "output": "o" * (MAX_STORED_CHARS + 2)}, 2),       # a role without content
    ({"content": "c" * (MAX_STORED_CHARS + 1)}, 1),                     # content without a role
    ({"role": "user", "content": "q", "turn": 1, "score": 0.5}, None),  # numbers are never cut
])
def test_a_conversation_entry_counts_every_character_cut_from_it(entry, cut_chars):
    stored = for_storage({"conversation": [entry]})["conversation"][0]
    assert stored.get("cut_chars") == cut_chars
