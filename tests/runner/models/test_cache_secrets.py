"""The response cache keeps no secret: no credentials in keys, no reply the redactor would change, none
replayed, and nothing over the entry cap."""

from __future__ import annotations

import json

import pytest

from auditpacks.core import redact
from auditpacks.runner.models import cache as cache_module
from auditpacks.runner.models.cache import MAX_ENTRY_BYTES, ResponseCache


@pytest.fixture(autouse=True)
def clean():
    redact.forget_all()
    yield
    redact.forget_all()


def key(url: str = "http://127.0.0.1:9/v1") -> dict:
    return {"api": "openai-chat", "model": "m", "base_url": url, "messages": [{"role": "user", "content": "q"}]}


def files(root) -> str:
    return "".join(p.read_text(encoding="utf-8") for p in root.rglob("*.json"))


def test_credentials_in_a_url_never_reach_the_key_and_do_not_change_the_address(tmp_path):
    cache = ResponseCache(tmp_path)
    cache.put(key("http://u:hunter22@127.0.0.1:9/v1"), {"content": "a"})
    cache.remember_model("http://u:hunter22@127.0.0.1:9", "m", {"digest": "d"})
    assert "hunter22" not in files(tmp_path)
    assert cache.get(key("http://127.0.0.1:9/v1")) == {"content": "a"}
    assert cache.recall_model("http://127.0.0.1:9", "m")["digest"] == "d"


def test_a_reply_holding_a_registered_secret_or_a_credential_is_used_but_not_stored(tmp_path):
    redact.register("sk-test-0123456789")
    cache = ResponseCache(tmp_path)
    cache.put(key(), {"content": "you sent sk-test-0123456789"})
    cache.put(key("http://h/2"), {"content": "see http://bob:pw123456@host/"})
    assert cache.writes == 0 and cache.skipped == 2 and files(tmp_path) == ""


def test_a_stored_reply_with_another_runs_secret_is_not_replayed(tmp_path, capsys):
    cache = ResponseCache(tmp_path)
    cache.put(key(), {"content": "token abc-secret-42"})  # not a secret yet: stored
    redact.register("abc-secret-42")  # this run's key
    assert cache.get(key()) is None
    assert "holds a secret" in capsys.readouterr().err


def test_a_reply_over_the_entry_cap_is_not_stored(tmp_path):
    cache = ResponseCache(tmp_path)
    cache.put(key(), {"content": "x" * (MAX_ENTRY_BYTES + 1)})
    assert cache.writes == 0 and not list(tmp_path.rglob("*.json"))
    cache.put(key(), {"content": "x" * 1000})
    assert json.loads(next(tmp_path.rglob("*.json")).read_text())["reply"]["content"] == "x" * 1000


@pytest.mark.parametrize("length, stored", [(86, True), (87, False)])
def test_the_entry_cap_counts_the_replys_json_to_the_byte(tmp_path, monkeypatch, length, stored):
    """``{"content":"…"}`` is 14 bytes around the text: 86 characters make exactly the 100-byte cap."""
    monkeypatch.setattr(cache_module, "MAX_ENTRY_BYTES", 100)
    cache = ResponseCache(tmp_path)
    cache.put(key(), {"content": "x" * length})
    assert (cache.writes, cache.skipped) == ((1, 0) if stored else (0, 1))
