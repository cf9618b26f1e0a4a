"""Replicas of one Ollama model share the response cache (its key names the digest, not the host)."""

from __future__ import annotations

from tests.support.fake_openai import FakeOpenAI
from tests.support.ollama_api import OllamaAPI
from tests.support.runs import results, run_here
from tests.support.tiny_pack import write_pack


def chats(api: OllamaAPI) -> int:
    return sum("messages" in body for body in api.requests)


def test_an_unsharded_rerun_on_one_replica_replays_every_reply_of_a_two_replica_run(tmp_path):
    pack = write_pack(tmp_path / "tiny.json", 12, documents=True, per_document=1)  # 12 documents: both replicas get some
    common = ("--provider", "ollama", "--cache", str(tmp_path / "cache"))
    with FakeOpenAI() as upstream, OllamaAPI(upstream.url, model_name="tiny") as a, \
            OllamaAPI(upstream.url, model_name="tiny") as b:
        assert run_here(pack, tmp_path / "two", a.url, "--base-url", b.url, *common, target="tiny") == 0
        assert chats(a) > 0 and chats(b) > 0 and chats(a) + chats(b) == 12  # the documents were split
        b.__exit__(None, None, None)
        a.requests.clear()
        assert run_here(pack, tmp_path / "one", a.url, *common, target="tiny") == 0
        assert chats(a) == 0  # every reply, the other replica's included, from the cache
        assert results(tmp_path / "one", "tiny") == results(tmp_path / "two", "tiny")
        with OllamaAPI(upstream.url, model_name="tiny", digest_text="another model") as other:
            assert run_here(pack, tmp_path / "other", other.url, *common, target="tiny") == 0
            assert chats(other) == 12  # another digest never gets these replies
