"""Replicas of one OpenAI-compatible model share the response cache: its key names the model the servers say
they serve (``GET /models``: id and meta), not their URL, so after a failover an unsharded rerun replays every
reply; a server of another model never gets them."""

from __future__ import annotations

from tests.support.fake_openai import FakeOpenAI
from tests.support.runs import results, run_here
from tests.support.tiny_pack import write_pack


def test_an_unsharded_rerun_on_one_replica_replays_every_reply_of_a_two_replica_run(tmp_path):
    pack = write_pack(tmp_path / "tiny.json", 12, documents=True, per_document=1)  # 12 documents: both replicas get some
    common = ("--cache", str(tmp_path / "cache"))
    with FakeOpenAI() as a, FakeOpenAI() as b:
        assert run_here(pack, tmp_path / "two", a.base_url, "--base-url", b.base_url, *common) == 0
        assert a.chat_requests > 0 and b.chat_requests > 0 and a.chat_requests + b.chat_requests == 12
    with FakeOpenAI() as c:   # the same model on a new address: the replica the rerun fails over to
        assert run_here(pack, tmp_path / "one", c.base_url, *common) == 0
        assert c.chat_requests == 0   # every reply, both replicas', from the cache
    assert results(tmp_path / "one") == results(tmp_path / "two")
    with FakeOpenAI() as other:
        other.served = {**other.served, "meta": {"n_params": 2000, "size": 20}}   # another model's weights
        assert run_here(pack, tmp_path / "other", other.base_url, *common) == 0
        assert other.chat_requests == 12   # another model never gets these replies
