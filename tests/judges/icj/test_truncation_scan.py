"""Where a cut-off answer stops, read character by character: escaped quotes, keys, nested objects, closed lists."""

from __future__ import annotations

from auditpacks.judges.icj.truncation import ends_inside_json, is_truncated, salvage


def test_an_escaped_quote_does_not_close_a_string():
    assert ends_inside_json('{"a": "x\\"}') is True              # the string is still open after \"
    assert ends_inside_json('{"a": "x\\\\"}') is False           # an escaped backslash, then the closing quote
    assert salvage('{"a": ["x\\"y", "z') == {"a": ['x"y']}
    assert salvage('{"a": ["x\\\\", "z') == {"a": ["x\\"]}


def test_the_last_complete_value_is_a_closed_list_or_a_list_item():
    assert salvage('{"a": ["x"], "b": ["y') == {"a": ["x"]}
    assert salvage('{"a": ["x"], "b"') == {"a": ["x"]}            # a key alone is not a value
    assert salvage('{"a": ["x"], "b": {"c": ["y') == {"a": ["x"]}  # the answer object is the first one
    assert salvage('Answer: {"a": [], "b": ["y", "z') == {"a": [], "b": ["y"]}


def test_an_answer_that_is_not_cut_is_not_salvaged():
    assert salvage('{"a": ["x"]}') is None and salvage("no object") is None and salvage('{"a": 1') is None


def test_stray_text_inside_the_object_leaves_it_open():
    assert ends_inside_json('{"a": ["x"], X') is True
    assert ends_inside_json("[1, 2") is False                      # no object: nothing to be inside


def test_the_endpoint_or_the_text_says_truncated():
    assert is_truncated("{}", "max_tokens") and is_truncated("{}", "length") and is_truncated('{"a": [')
    assert not is_truncated("{}", "stop") and not is_truncated("{}")
