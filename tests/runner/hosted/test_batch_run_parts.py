"""``--batch-api``'s parts in process, on a fake batch client: the request bodies and ids, the batch log read
back (damaged lines, replies never replaced by errors), batches cut by document, submit-poll-collect with
re-attaching, the target answering from the downloaded replies, and the options it refuses."""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import itertools
import json

import pytest

from auditpacks.runner.hosted import batch_run
from auditpacks.runner.hosted.batch_clients import AnthropicBatches, BatchState, OpenAIBatches
from auditpacks.runner.hosted.batch_run import (
    BatchLog, BatchReplies, batch_target, chunks, client_for, collect, openai_body, request_id)
from auditpacks.runner.hosted.plan import Prompt
from auditpacks.runner.models.errors import RunError
from auditpacks.runner.models.reply import Reply, Request
from tests.support.hosted_pack import write_hosted_pack
from tests.support.run_config import run_config

MESSAGES = [{"role": "user", "content": "Qué?"}]


def test_a_request_id_is_a_hash_of_its_messages():
    text = json.dumps(MESSAGES, sort_keys=True, ensure_ascii=False).encode()
    assert request_id(MESSAGES) == "r" + hashlib.sha256(text).hexdigest()[:40] and len(request_id([])) == 41


@pytest.mark.parametrize("settings, extra", [
    ({}, {"prompt_cache_key": "doc-" + hashlib.sha256(b"doc A").hexdigest()[:24]}),
    ({"prompt_cache": False, "max_tokens": 50}, {"max_completion_tokens": 50}),
    ({"prompt_cache": True, "temperature": 0.7, "seed": 3}, {"prompt_cache_key": "doc-" + hashlib.sha256(
        b"doc A").hexdigest()[:24]}),
])
def test_an_openai_body_names_the_documents_cache_key_unless_prompt_caching_is_off(settings, extra):
    config = run_config(**settings)
    body = openai_body(config, "gpt", Prompt("doc A", "", MESSAGES))
    assert body == {"model": "gpt", "messages": MESSAGES, "temperature": config.decoding.temperature,
                    "seed": config.selection.seed, **extra}


def test_an_anthropic_body_without_documents_asks_the_question_with_the_system_prompt():
    prompt = Prompt("d", "", [], question="Which option?")
    plain = batch_run.anthropic_body(run_config(), "claude", prompt, "document-first")
    assert plain == {"model": "claude", "max_tokens": 1024, "temperature": 0.0,
                     "messages": [{"role": "user", "content": [{"type": "text", "text": "Which option?"}]}]}
    told = batch_run.anthropic_body(run_config(system_prompt="Be brief.", max_tokens=20, temperature=0.2), "claude",
                                    prompt, "stock")
    assert (told["system"], told["max_tokens"], told["temperature"]) == ("Be brief.", 20, 0.2)


def test_an_anthropic_body_marks_the_document_block_only_in_document_first_order(tmp_path):
    prompt = Prompt("d", "", [], question="Which option?", documents=["The judgment."])
    config = run_config(pack=tmp_path / "p.json", target="claude-test", provider="anthropic")
    first, stock = (batch_run.anthropic_body(config, "claude-test", prompt, order)["messages"][0]["content"]
                    for order in ("document-first", "stock"))
    document = {"type": "text", "text": "--- DOCUMENT 1 ---\nThe judgment."}   # the rendering's leading newline off
    question = {"type": "text", "text": "Which option?"}
    assert first == [{**document, "cache_control": {"type": "ephemeral"}}, question]
    assert stock == [question, document]
    off = run_config(pack=tmp_path / "p.json", target="claude-test", provider="anthropic", prompt_cache=False)
    assert batch_run.anthropic_body(off, "claude-test", prompt, "document-first")["messages"][0]["content"] == \
        [document, question]


@pytest.mark.parametrize("provider, kind, url", [
    ("anthropic", AnthropicBatches, "http://gw"), ("openai", OpenAIBatches, "http://gw"),
])
def test_the_client_is_the_providers_with_the_runs_key_and_time_out(provider, kind, url):
    client = client_for(run_config(target="m", provider=provider, api_key="sk-k", base_url="http://gw", timeout=42.0))
    assert isinstance(client, kind) and str(client.client.base_url) == url
    assert (client.client.api_key, client.client.timeout) == ("sk-k", 42.0)


def test_the_official_openai_url_is_the_default_and_a_missing_key_is_refused(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    assert str(client_for(run_config(target="m", api_key="k")).client.base_url) == "https://api.openai.com/v1/"
    with pytest.raises(RunError) as caught:
        client_for(run_config(target="m"))
    assert str(caught.value) == "--batch-api needs the provider's key (--api-key or $OPENAI_API_KEY)"
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(RunError, match=r"\(--api-key or \$ANTHROPIC_API_KEY\)$"):
        client_for(run_config(target="m", provider="anthropic"))


def write_log(path, *entries) -> BatchLog:
    path.write_text("".join(e if isinstance(e, str) else json.dumps(e) + "\n" for e in entries), encoding="utf-8")
    return BatchLog(path)


def test_the_log_reads_back_what_was_submitted_received_and_collected(tmp_path):
    log = write_log(tmp_path / "m.batches.jsonl", {"submitted": "b1", "custom_ids": ["r1", "r2"]},
                    {"submitted": "b2", "custom_ids": ["r3"]}, "\n",
                    {"batch": "b1", "reply": "r1", "record": {"content": "A"}},
                    {"collected": "b1", "replies": {"r2": {"error": "expired"}}})
    assert log.submitted == {"b1": ["r1", "r2"], "b2": ["r3"]} and log.collected == {"b1"}
    assert log.replies == {"r1": {"content": "A"}, "r2": {"error": "expired"}}
    assert log.pending() == {"r1", "r3"}   # r2 failed: it is asked again


@pytest.mark.parametrize("line, skipped", [
    ('{"collected": "b1", "status": "complet\n', "line 2 is damaged and skipped (the results of b1 are downloaded "
                                                 "again)"),
    ('{"batch": "b1", "reply": 5, "record": {}}\n', "line 2 is damaged and skipped (the results of b1 are "
                                                    "downloaded again)"),
    ('{"submitted": "b2", "custom_ids": [1]}\n', "line 2 is damaged and skipped\n"),
])
def test_a_damaged_line_is_skipped_and_its_batch_collected_again(tmp_path, capsys, line, skipped):
    log = write_log(tmp_path / "m.batches.jsonl", {"submitted": "b1", "custom_ids": ["r1"]}, line,
                    {"collected": "b1", "replies": {"r1": {"content": "A"}}})
    assert log.collected == ({"b1"} if "b1" not in skipped else set())
    assert f"auditpacks: warning: m.batches.jsonl: {skipped}" in capsys.readouterr().err


def test_a_line_over_the_cap_is_damaged(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("AUDITPACKS_MAX_REPLY_BYTES", "100")   # a line may hold twice that and 1 MiB
    long = {"collected": "b1", "replies": {"r1": {"content": "x" * (2**20 + 200)}}}
    log = write_log(tmp_path / "m.batches.jsonl", long)
    assert log.collected == set() and log.replies == {}
    assert "line 1 is damaged and skipped (the results of b1 are downloaded again)" in capsys.readouterr().err


def test_no_reply_is_replaced_by_an_error_and_an_error_by_a_later_one(tmp_path):
    log = BatchLog(tmp_path / "none.jsonl")
    log.keep({"r1": {"content": "A"}, "r2": {"error": "first"}})
    log.keep({"r1": {"error": "expired"}, "r2": {"error": "second"}, "r3": {"error": "third"}})
    assert log.replies == {"r1": {"content": "A"}, "r2": {"error": "second"}, "r3": {"error": "third"}}
    log.keep({"r2": {"content": "B"}})
    assert log.replies["r2"] == {"content": "B"}


def test_appended_entries_are_one_json_line_each(tmp_path):
    log = BatchLog(tmp_path / "m.batches.jsonl")
    log.append({"submitted": "b1", "custom_ids": ["é"]}, {"collected": "b1"})
    assert (tmp_path / "m.batches.jsonl").read_text(encoding="utf-8") == \
        '{"submitted": "b1", "custom_ids": ["é"]}\n{"collected": "b1"}\n'


def requests_of(*docs: str) -> dict:
    return {f"r{i}": (doc, {"n": i}) for i, doc in enumerate(docs)}


@pytest.mark.parametrize("docs, limit, sizes", [
    ("aabbc", 3, [2, 3]), ("aabbc", 5, [5]), ("aabbc", 4, [4, 1]), ("aaaab", 2, [4, 1]), ("", 3, []),
    ("abab", 2, [2, 2]),   # a document's requests stay together wherever they come
])
def test_batches_hold_whole_documents_up_to_the_limit(docs, limit, sizes):
    batches = list(chunks(requests_of(*docs), limit))
    assert [len(b) for b in batches] == sizes
    assert [cid for b in batches for cid, _ in b] == sorted(requests_of(*docs), key=lambda c: (docs[int(c[1:])],
                                                                                             int(c[1:])))


BATCH_IDS = itertools.count(1)


class FakeBatches:
    """A batch client that ends each batch after ``polls`` polls and answers every request, except the first
    ``failing`` of each batch (an error); its batch ids are never used twice, as a provider's."""

    provider = "openai"

    def __init__(self, polls: int = 1, failing: int = 0, error: Exception | None = None) -> None:
        self.polls, self.failing, self.error = polls, failing, error
        self.submitted, self.polled, self.counts = {}, [], {}

    def submit(self, requests) -> str:
        if self.error:
            raise self.error
        batch_id = f"batch_{next(BATCH_IDS)}"
        self.submitted[batch_id] = requests
        return batch_id

    def poll(self, batch_id: str) -> BatchState:
        self.polled.append(batch_id)
        self.counts[batch_id] = self.counts.get(batch_id, 0) + 1
        size = len(self.submitted[batch_id])
        return BatchState(ended=self.counts[batch_id] >= self.polls, done=size, total=size, status="completed")

    def results(self, batch_id: str, custom_ids: list[str]) -> dict:
        """The replies to ``custom_ids``, the ids the batch was submitted with (a provider answers those it knows)."""
        return {cid: "failed: bad" if i < self.failing else Reply(f"answer to {body['messages'][0]['content'][:9]}",
                                                                 input_tokens=5, output_tokens=1)
                for i, (cid, body) in enumerate(self.submitted[batch_id]) if cid in custom_ids}


@pytest.fixture
def config(tmp_path):
    return run_config(pack=write_hosted_pack(tmp_path / "long.json", words=20), out=tmp_path / "out",
                      target="gpt-4o-mini", api_key="k", batch_api=True)


def test_collect_submits_polls_and_logs_every_reply(config, monkeypatch):
    client, said, slept = FakeBatches(polls=2), [], []
    monkeypatch.setattr(batch_run.time, "sleep", slept.append)
    replies = collect(config, "gpt-4o-mini", client, poll_s=7, say=said.append)
    (batch_id, sent), = client.submitted.items()
    assert len(sent) == 9 == len(replies) and client.polled == [batch_id, batch_id]
    assert slept == [7]   # between the two polls, not after the last
    assert all(set(body) == {"model", "messages", "temperature", "seed", "prompt_cache_key"} and
               body["model"] == "gpt-4o-mini" for _, body in sent)   # OpenAI's chat bodies
    assert said == ["batch API: 0 of 1 batches ended, 9 of 9 open requests done",
                    "batch API: 1 of 1 batches ended, 9 of 9 open requests done"]
    log = (config.out / "gpt-4o-mini.batches.jsonl").read_text(encoding="utf-8").splitlines()
    assert json.loads(log[0]) == {"submitted": batch_id, "provider": "openai", "custom_ids": [c for c, _ in sent]}
    assert json.loads(log[1]) == {"batch": batch_id, "reply": sent[0][0], "record": replies[sent[0][0]]}
    assert json.loads(log[-1]) == {"collected": batch_id, "status": "completed", "count": 9} and len(log) == 11
    assert all(r["content"].startswith("answer to ") and r["input_tokens"] == 5 for r in replies.values())


def test_a_rerun_resubmits_only_the_failed_requests_and_keeps_the_replies(config):
    first = FakeBatches(failing=1)
    replies = collect(config, "gpt-4o-mini", first, poll_s=0, limit=4, say=lambda line: None)
    assert [len(b) for b in first.submitted.values()] == [3, 3, 3]   # three documents of three questions
    failed = [b[0][0] for b in first.submitted.values()]
    assert [replies[cid] for cid in failed] == [{"error": "failed: bad"}] * 3
    again = FakeBatches()
    replies = collect(config, "gpt-4o-mini", again, poll_s=0, say=lambda line: None)
    assert [[cid for cid, _ in b] for b in again.submitted.values()] == [failed]
    assert all("error" not in r for r in replies.values()) and len(replies) == 9
    idle = FakeBatches()
    assert collect(config, "gpt-4o-mini", idle, poll_s=0, say=lambda line: None) == replies
    assert idle.submitted == {} and idle.polled == []


def test_an_anthropic_client_is_sent_messages_params_and_logged_as_anthropic(config):
    client = FakeBatches()
    client.provider = "anthropic"
    first = dataclasses.replace(config, execution=dataclasses.replace(config.execution, prompt_order="document-first"))
    collect(first, "claude-x", client, poll_s=0, say=lambda line: None)
    (batch_id, sent), = client.submitted.items()
    assert len(sent) == 9 and all(set(body) == {"model", "max_tokens", "temperature", "messages"} and
                                  (body["model"], body["max_tokens"]) == ("claude-x", 1024) for _, body in sent)
    assert all(body["messages"][0]["content"][0]["cache_control"] == {"type": "ephemeral"} for _, body in sent)
    first = (config.out / "claude-x.batches.jsonl").read_text(encoding="utf-8").splitlines()[0]
    assert json.loads(first)["provider"] == "anthropic"


def test_a_provider_failure_stops_the_run_in_one_line(config):
    with pytest.raises(RunError) as caught:
        collect(config, "gpt-4o-mini", FakeBatches(error=ConnectionError("refused")), poll_s=0)
    assert str(caught.value) == ("batch API (openai): connection failed: refused; what was done is in "
                                 "gpt-4o-mini.batches.jsonl, a rerun re-attaches")
    with pytest.raises(RunError, match="^no way$"):
        collect(config, "gpt-4o-mini", FakeBatches(error=RunError("no way")), poll_s=0)


def answer(replies: dict, messages=MESSAGES) -> Reply:
    api = BatchReplies("m", replies)
    assert api.build(Request(messages=messages)) == messages
    assert api.cache_key(messages, Request(messages=messages)) == {"api": "batch", "model": "m", "messages": messages}
    return asyncio.run(api.call(messages, Request(messages=messages)))


def test_the_target_answers_from_the_downloaded_replies():
    assert answer({request_id(MESSAGES): {"content": "A", "output_tokens": 2}}).content == "A"
    with pytest.raises(RunError, match="^expired$"):
        answer({request_id(MESSAGES): {"error": "expired"}})
    with pytest.raises(RunError) as caught:
        answer({})
    assert str(caught.value) == "no batch request was made for this prompt (a follow-up turn? --batch-api runs one turn)"


@pytest.mark.parametrize("settings, message", [
    ({"provider": "mistral"}, "--batch-api works with --provider openai or anthropic, not 'mistral'"),
    ({"max_turns": 2}, "--batch-api runs one turn of each scenario once on one --target (no --max-turns, --repeats "
                       "or several --base-url)"),
    ({"repeats": 2}, "--batch-api runs one turn"), ({"target": None}, "--batch-api runs one turn"),
    ({"more_base_urls": ("http://b/v1",)}, "--batch-api runs one turn"),
])
def test_what_the_batch_api_cannot_run_is_refused(settings, message):
    with pytest.raises(RunError, match="^" + message.replace("(", r"\(").replace(")", r"\)")):
        batch_target(run_config(**{"target": "m", **settings}), "m")


def test_the_batch_target_answers_through_a_model_without_retries(config, monkeypatch):
    ordered = dataclasses.replace(config, execution=dataclasses.replace(config.execution, prompt_order="document-first",
                                                                       timeout=50.0))
    monkeypatch.setattr(batch_run, "client_for", lambda given: FakeBatches(polls=2) if given is ordered else None)
    target = batch_target(ordered, "gpt-4o-mini", poll_s=0)
    policy = target.model.policy
    assert (policy.max_retries, policy.backoff, policy.timeout) == (0, 0.0, 50.0) and target.model.api.model == \
        "gpt-4o-mini"
    assert target.layout_name == "document-first" and len(target.model.api.replies) == 9
