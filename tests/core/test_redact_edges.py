"""Redaction at its edges: passwords holding ``@`` or ``:`` as written, Basic headers echoed with or without
padding, nested passwords, the minimum lengths, and URLs the parser refuses."""

from __future__ import annotations

import base64

import pytest

from auditpacks.core import redact

MARK = redact.KEY_MARK


@pytest.fixture(autouse=True)
def clean():
    redact.forget_all()
    yield
    redact.forget_all()


def test_a_password_written_with_a_raw_at_sign_or_colon_is_blanked_whole():
    redact.register_url("http://alice:p@ssword@127.0.0.1/v1")    # the last @ ends the credentials
    redact.register_url("http://bob:pa:ss:wd@127.0.0.1/v1")      # the first : ends the user name
    assert redact.redact("<p@ssword> <pa:ss:wd>") == f"<{MARK}> <{MARK}>"
    assert redact.public_url("http://alice:p@ssword@127.0.0.1:1/v1") == "http://127.0.0.1:1/v1"
    assert redact.without_credentials("http://alice:p@ssword@127.0.0.1:1/v1") == "http://127.0.0.1:1/v1"


def test_the_user_password_pair_and_basic_headers_are_blanked_whole():
    redact.register_url("http://alice:secret1@h/v1")
    basic = base64.b64encode(b"alice:secret1").decode()
    assert basic.endswith("==")
    for echoed in ("alice:secret1", basic, basic.rstrip("=")):
        assert redact.redact(f"<{echoed}>") == f"<{MARK}>", echoed
    assert redact.redact("<u:pw>") == "<u:pw>"
    redact.register_url("http://u:pw@h/v1")   # a password too short alone, the pair of 4 characters is not
    assert redact.redact("<u:pw> <pw>") == f"<{MARK}> <pw>"


def test_a_password_inside_a_longer_one_leaves_nothing_of_either():
    redact.register_url("http://a:secret@h/v1")
    redact.register_url("http://b:secret99@h/v1")
    assert redact.redact("<secret99> <secret>") == f"<{MARK}> <{MARK}>"


def test_double_encoded_and_written_encoded_echoes():
    redact.register_url("http://alice:p%40ss%2Fword@h/v1")
    assert redact.redact("<p%2540ss%252Fword>") == f"<{MARK}>"    # the written form encoded once more
    redact.register_url("http://carol:a%40@h/v1")                   # a@ is too short; its written form is not
    assert redact.redact("<a%40> <a@>") == f"<{MARK}> <a@>"


def test_a_user_name_alone_is_not_a_secret():
    redact.register_url("https://alice@h/x")
    assert redact.redact("alice went home") == "alice went home"


def test_short_passwords_and_lookalikes_stay():
    redact.register_url("http://dave:abc@h/v1")
    redact.register_url("http://erin:secret@h/v1")
    assert redact.redact("abc ++++++ %2B") == "abc ++++++ %2B"


def test_an_environment_secret_from_six_characters(monkeypatch):
    monkeypatch.setenv("SOME_API_KEY", "abcdef")
    monkeypatch.setenv("OTHER_TOKEN", "abcde")
    assert redact.redact("<abcdef> <abcde>") == f"<{MARK}> <abcde>"


def test_a_url_the_parser_refuses_is_still_redacted():
    redact.register_url("http://u:p@[::1/v1")   # not a URL urllib can split: ignored
    assert redact.without_credentials("http://u:secret@[::1/v1") == f"http://{redact.CREDENTIALS_MARK}@[::1/v1"
