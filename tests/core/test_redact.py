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


def test_a_change_to_the_environment_between_calls_is_seen(monkeypatch):
    text = "or-secret-1 or-secret-22"
    assert r.redact(text) == text
    monkeypatch.setenv("OPENROUTER_API_KEY", "or-secret-1")
    assert r.redact(text) == f"{K} or-secret-22"
    monkeypatch.setenv("OPENROUTER_API_KEY", "or-secret-22")   # changed in place: same names, another value
    assert r.redact(text) == f"or-secret-1 {K}"
    monkeypatch.delenv("OPENROUTER_API_KEY")
    assert r.redact(text) == text


class CountingPattern:
    """The variable-name pattern, counting the names it is asked about."""

    def __init__(self, pattern):
        self.pattern, self.asked = pattern, 0

    def search(self, name):
        self.asked += 1
        return self.pattern.search(name)


def test_an_unchanged_environment_is_read_once(monkeypatch):
    monkeypatch.setenv("HF_TOKEN", "hf-secret-2")
    counting = CountingPattern(r._SECRET_VARIABLE)
    monkeypatch.setattr(r, "_SECRET_VARIABLE", counting)
    monkeypatch.setattr(r, "_environment_read", None)

    def long_values() -> int:   # the variables whose names a read asks about: the others are too short
        return sum(len(value) >= r.MIN_SECRET for value in os.environ.values())

    assert [r.redact("hf-secret-2") for _ in range(3)] == [K] * 3
    first = long_values()
    assert counting.asked == first   # one read, for the first call
    monkeypatch.setenv("OTHER_TOKEN", "other-secret")
    assert r.redact("other-secret hf-secret-2") == f"{K} {K}" and counting.asked == first + long_values()


class CountingEnviron(os._Environ):
    """An ``os.environ`` that counts the times its variables are listed (each listing decodes them all)."""

    listed = 0

    def __iter__(self):
        self.listed += 1
        return super().__iter__()


def test_an_unchanged_environment_is_not_decoded_again(monkeypatch):
    env = os.environ
    data = {**env._data, env.encodekey("HF_TOKEN"): env.encodevalue("hf-secret-2")}
    counting = CountingEnviron(data, env.encodekey, env.decodekey, env.encodevalue, env.decodevalue)
    monkeypatch.setattr(r.os, "environ", counting)
    monkeypatch.setattr(r, "_environment_read", None)
    assert [r.redact("hf-secret-2") for _ in range(3)] == [K] * 3
    assert counting.listed == 1


def test_an_environment_that_is_a_plain_mapping_is_read_too(monkeypatch):
    monkeypatch.setattr(r.os, "environ", {"HF_TOKEN": "hf-secret-2"})
    assert r.redact("hf-secret-2") == K
    r.os.environ["HF_TOKEN"] = "hf-secret-3"
    assert r.redact("hf-secret-2 hf-secret-3") == f"hf-secret-2 {K}"


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
