"""A URL password with characters that must be percent-encoded: blanked in every encoding a server echoes."""

from __future__ import annotations

import re
from urllib.parse import quote, quote_plus

import pytest

from auditpacks.core import redact

#: Characters a password may hold that a URL's userinfo cannot carry as they are (RFC 3986: the
#: general delimiters, ``%``, space, non-ASCII) or that encoders disagree on (the sub-delimiters).
CHARACTERS = list(":/?#[]@") + list("!$&'()*+,;=") + ["%", " ", "é", "€"]

#: How a server or client may echo a password: urllib's ``quote`` with nothing or ``/`` kept,
#: JavaScript's ``encodeURIComponent`` (keeps ``!'()*``), RFC 3986 userinfo (keeps the
#: sub-delimiters, as httpx writes it), form encoding (space as ``+``) and lower-case hex.
ENCODERS = {
    "all": lambda s: quote(s, safe=""),
    "quote": lambda s: quote(s),
    "encodeURIComponent": lambda s: quote(s, safe="!'()*"),
    "userinfo": lambda s: quote(s, safe="!$&'()*+,;="),
    "form": lambda s: quote_plus(s, safe=""),
    "lower-hex": lambda s: _lower_hex(quote(s, safe="")),
}


def _lower_hex(text: str) -> str:
    return re.sub(r"%[0-9A-F]{2}", lambda m: m[0].lower(), text)


@pytest.fixture(autouse=True)
def clean():
    redact.forget_all()
    yield
    redact.forget_all()


@pytest.mark.parametrize("written", ["encoded", "sub-delimiters as they are"])
@pytest.mark.parametrize("encoder", sorted(ENCODERS))
@pytest.mark.parametrize("char", CHARACTERS)
def test_every_encoding_of_a_password_holding_the_character_is_blanked(char, encoder, written):
    password = f"se{char}cr{char}et"
    in_url = quote(password, safe="" if written == "encoded" else "!$&'()*+,;=")
    redact.register_url(f"http://alice:{in_url}@127.0.0.1:8080/v1")
    echoed = ENCODERS[encoder](password)
    text = redact.redact(f"the server said <{echoed}> back")
    assert text == f"the server said <{redact.KEY_MARK}> back", (password, echoed)
    assert redact.redact(f"<{password}>") == f"<{redact.KEY_MARK}>"
    assert redact.redact(f"<{in_url}>") == f"<{redact.KEY_MARK}>"


@pytest.mark.parametrize("echoed", [
    # the password  pa$$w!rd@/x  written in the URL as  pa$$w!rd%40%2Fx, its echoes worked out by hand
    "pa$$w!rd@/x",
    "pa%24%24w%21rd%40%2Fx",     # every reserved character encoded
    "pa%24%24w!rd%40%2Fx",       # encodeURIComponent: ! kept
    "pa%24%24w%21rd%40/x",       # urllib.parse.quote: / kept
    "pa$$w!rd%40%2fx",           # as written, lower-case hex
    "pa%24$w!rd@%2Fx",           # a mix
])
def test_the_echoes_of_one_password_worked_out_by_hand(echoed):
    redact.register_url("https://alice:pa$$w!rd%40%2Fx@example.org/v1")
    assert redact.redact(f"said {echoed}.") == f"said {redact.KEY_MARK}."


def test_the_words_around_a_password_and_its_user_stay():
    redact.register_url("http://alice:s%24cret@h/v1")
    assert redact.redact("alice keeps a secret, s$cre is not it") == "alice keeps a secret, s$cre is not it"
    assert redact.redact("s$cret!") == f"{redact.KEY_MARK}!"
