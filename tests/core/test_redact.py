"""One redaction point: registered keys, key-like environment variables, echoed credentials and URL users."""

import os

import pytest

from auditpacks.core import redact as r

K, C = r.KEY_MARK, r.CREDENTIALS_MARK


@pytest.fixture(autouse=True)
def clean(monkeypatch):
    r.forget_all()
    found = set(r.secrets())  # only key-like variables now
    for name, value in list(os.environ.items()):
        if value in found:
            monkeypatch.delenv(name)
    yield
    r.forget_all()


def test_registered_keys_longest_first_and_short_values_ignored():
    r.register("sk-abcdef", "sk-abcdef-longer", "short", None)
    assert r.redact("a sk-abcdef-longer b sk-abcdef c short") == f"a {K} b {K} c short"
    r.forget_all()
    assert r.redact("sk-abcdef") == "sk-abcdef"


def test_key_like_environment_variables_are_read_at_each_call(monkeypatch):
    monkeypatch.setenv("OPENROUTER_API_KEY", "or-secret-1")
    monkeypatch.setenv("HF_TOKEN", "hf-secret-2")
    monkeypatch.setenv("MY_MONKEY", "not-a-secret")  # KEY must be a whole part of the name
    assert r.redact("or-secret-1 hf-secret-2 not-a-secret") == f"{K} {K} not-a-secret"


@pytest.mark.parametrize("text, expected", [
    ("http://user:pw@host:8080/v1", f"http://{C}@host:8080/v1"),
    ("see https://tok@example.org and more", f"see https://{C}@example.org and more"),
    ("mail me at someone@example.org", "mail me at someone@example.org"),
    ("Authorization: Bearer abcdef", f"Authorization: Bearer {K}"),
    ('{"x-api-key": "abc123"}', f'{{"x-api-key": "{K}"}}'),
    ("proxy-authorization=basic dXNlcjpwdw==", f"proxy-authorization=basic {K}"),
    ("token Bearer abcdefghij0123456789", f"token Bearer {K}"),
    ("Bearer abcdefghijklmnopqrst", "Bearer abcdefghijklmnopqrst"),  # no digit: an ordinary word, kept
    ("GET /v1?api_key=abc&x=1", f"GET /v1?api_key={K}&x=1"),
    ("GET /v1?x=1&access_token=t0k", f"GET /v1?x=1&access_token={K}"),
    ("nothing to hide", "nothing to hide"),
])
def test_credential_patterns(text, expected):
    assert r.redact(text) == expected


def test_non_strings_and_empty_strings_pass_through():
    assert r.redact("") == "" and r.redact(None) is None and r.redact(5) == 5


def test_redact_data_walks_keys_and_values():
    r.register("sk-secret-9")
    data = {"sk-secret-9": ["x sk-secret-9", ("http://u:p@h",)], 3: {"n": 1.5, "b": None}}
    assert r.redact_data(data) == {K: [f"x {K}", [f"http://{C}@h"]], 3: {"n": 1.5, "b": None}}


def test_public_url_drops_the_user_and_password():
    from auditpacks.core.redact import public_url

    assert public_url("https://me:pw@gpu.example:8443/v1?x=1") == "https://gpu.example:8443/v1?x=1"
    assert public_url("http://h:1/v1") == "http://h:1/v1"
    assert public_url(None) is None and public_url("") == ""


@pytest.mark.parametrize("order", [("sk-abc", "sk-abc789xyz"), ("sk-abc789xyz", "sk-abc")])
def test_a_secret_containing_another_is_blanked_whole_in_either_registration_order(order):
    r.register(*order)
    text = "key sk-abc789xyz, then sk-abc alone, then sk-abc789xyz again"
    out = r.redact(text)
    assert out == f"key {K}, then {K} alone, then {K} again"
    for piece in ("789", "xyz", "abc"):  # no fragment of the longer key survives
        assert piece not in out
    assert r.redact_data({"sk-abc789xyz": ["sk-abc789xyz"]}) == {K: [K]}


def test_a_registered_key_inside_an_environment_secret_leaks_nothing_of_either(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-abc789xyz")
    r.register("sk-abc")
    assert r.redact("Authorization failed for sk-abc789xyz") == f"Authorization failed for {K}"
