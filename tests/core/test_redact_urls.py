"""URL credentials as secrets: every form a server could echo them in is blanked out."""

from __future__ import annotations

import base64

import pytest

from auditpacks.core import redact


@pytest.fixture(autouse=True)
def clean():
    redact.forget_all()
    yield
    redact.forget_all()


def test_a_url_password_is_blanked_plain_percent_encoded_and_as_basic_base64():
    redact.register_url("http://alice:p%40ss%2Fword@127.0.0.1:8080/v1")
    basic = base64.b64encode(b"alice:p@ss/word").decode()
    for echoed in ("p@ss/word", "p%40ss%2Fword", basic, basic.rstrip("="), "alice:p@ss/word"):
        assert echoed not in redact.redact(f"the server said {echoed} back"), echoed
    assert redact.redact("alice went home") == "alice went home"  # the user name alone is not a secret


def test_a_short_password_still_counts_and_non_urls_are_ignored():
    redact.register_url("http://u:PASS@h/v1")
    assert redact.redact("PASS") == redact.KEY_MARK
    for value in (None, 5, "not a url", "mail@example.org", "http://host/v1"):
        redact.register_url(value)
    assert redact.secrets() == sorted(redact.secrets(), key=len, reverse=True)


@pytest.mark.parametrize("url, public", [
    ("http://u:pw@127.0.0.1:8080/v1", "http://127.0.0.1:8080/v1"),
    ("http://127.0.0.1:8080/v1", "http://127.0.0.1:8080/v1"),
    ("https://token@host/x?y=1", "https://host/x?y=1"),
    (None, None),
])
def test_without_credentials(url, public):
    assert redact.without_credentials(url) == public
