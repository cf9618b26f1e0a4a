"""A run set up: the response cache it opens, the settings it resolves on the whole selection, this shard, the
run folder and journal opened before the first scenario, and the refusal of a base URL without a target."""

from __future__ import annotations

import pytest

from auditpacks.runner.models.cache import ResponseCache
from auditpacks.runner.models.errors import RunError
from auditpacks.runner.readiness.early import refuse_early
from auditpacks.runner.run.prepare import open_cache, set_up
from tests.support.fake_openai import FakeOpenAI
from tests.support.run_config import run_config
from tests.support.tiny_pack import write_pack


def test_no_cache_without_a_folder_and_cache_only_needs_one(tmp_path):
    assert open_cache(run_config(target="m")) is None
    with pytest.raises(RunError, match="^--cache-only needs --cache DIR$"):
        open_cache(run_config(target="m", cache_only=True))
    cache = open_cache(run_config(target="m", cache_dir=tmp_path, cache_only=True))
    assert isinstance(cache, ResponseCache) and cache.only


CACHE_REFUSED = "^--cache works with OpenAI-compatible providers, --provider ollama and the embedded model$"


def test_the_cache_is_refused_where_simpleaudit_or_a_decision_endpoint_answers(tmp_path):
    with pytest.raises(RunError, match=CACHE_REFUSED):
        open_cache(run_config(target="claude", provider="anthropic", cache_dir=tmp_path))
    with pytest.raises(RunError, match=CACHE_REFUSED):
        open_cache(run_config(target="clef", decision="ollama", cache_dir=tmp_path))


def test_set_up_resolves_the_settings_takes_the_shard_and_opens_the_folder_and_journal(tmp_path):
    pack = write_pack(tmp_path / "tiny.json", 6, documents=True)   # judgments of 3 scenarios each
    out = tmp_path / "out"
    with FakeOpenAI() as server:
        config = run_config(pack=pack, out=out, target="m", base_url=server.base_url, shard="2/2")
        with set_up(config, refuse_early(config)) as prepared:
            assert server.chat_requests == 0   # nothing sent before the run executes
            prepared.journal.close()
    resolved = prepared.config.execution
    assert (resolved.prompt_order, resolved.slot_pinning) == ("document-first", False)   # documents; not llama.cpp
    assert [s["name"] for s in prepared.assigned] == [f"Tiny {i:04d} - Outcome of V0001" for i in (3, 4, 5)]
    assert prepared.runnable == prepared.assigned and prepared.skipped == {}
    assert prepared.shard_record["spec"] == "2/2" and prepared.judge == "choice_match"
    assert (prepared.model, prepared.stem, prepared.folder) == ("m", "m", out)
    assert (out / "m.journal.jsonl").is_file() and not (out / "m.run.json").exists()
    assert not prepared.endpoint.embedded and prepared.endpoint.embedded_url is None


def test_a_base_url_without_a_target_is_refused_before_any_model_starts(tmp_path):
    pack = write_pack(tmp_path / "tiny.json", 2)
    config = run_config(pack=pack, out=tmp_path / "out", base_url="http://127.0.0.1:9/v1")
    with pytest.raises(RunError, match=r"^--base-url needs --target \(the model name to send\)$"):
        with set_up(config, refuse_early(config)):
            pass
    assert not (tmp_path / "out").exists()
