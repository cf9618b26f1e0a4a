"""``--batch-api``: the run's requests sent as provider batch jobs, then graded as usual from their replies.

Every selected scenario's first turn is laid out as the chat target would send it
(:func:`runner.hosted.plan.prompts`) and made into the provider's request body: OpenAI's
chat body with the document's ``prompt_cache_key``, or Anthropic's Messages params with
``cache_control`` on the document block. Requests are grouped by document, whole documents to
a batch, and submitted (:mod:`runner.hosted.batch_clients`); each submitted batch is appended
to ``<stem>.batches.jsonl`` (fsynced) before anything else, and so are its results once it
ends (one line per request, then a line marking the batch collected). A rerun reads that log and
re-attaches: a request already submitted is never sent again (one whose batch failed or expired,
or whose result was an error or could not be read, is). Nothing received is thrown away: a
damaged log line is skipped with a warning (a batch whose results it held is downloaded again), a
reply is never replaced by an error. Then the run goes on as any other, its target answering each
request from the downloaded replies (:class:`BatchReplies`). A provider call that fails stops the
run in one line naming the provider and the cause; the log keeps what was done.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
import time
from pathlib import Path
from typing import Any, Callable, Iterable

from simpleaudit.context_marks import render_documents

from auditpacks.core.bounded.http import max_reply_bytes
from auditpacks.core.bounded.lines import Overlong, file_lines
from auditpacks.core.errors import UserError
from auditpacks.core.io import appendable, parse_json, writing
from auditpacks.core.runs.run_files import batches_name
from auditpacks.runner.models.errors import RunError
from auditpacks.runner.settings.config import RunConfig, model_stem
from auditpacks.runner.store.layout import run_folder
from auditpacks.runner.hosted.plan import Prompt, prompts
from auditpacks.runner.models.model import Model, ModelAPI
from auditpacks.runner.models.reply import Reply, Request
from auditpacks.runner.models.retry import RetryPolicy, describe
from auditpacks.runner.models import providers
from auditpacks.runner.hosted.batch_clients import AnthropicBatches, OpenAIBatches
from auditpacks.runner.targets.chat_target import ChatTarget
from auditpacks.runner.models.providers.openai_compat import cache_key_of
from auditpacks.runner.models.providers.messages import CACHE_MARK

BATCH_PROVIDERS = ("openai", "anthropic")
MAX_REQUESTS = 10_000        # requests per batch (OpenAI allows 50,000; Anthropic 100,000)
ANTHROPIC_MAX_TOKENS = 1024  # Anthropic requires max_tokens; used when --max-tokens is not given


def request_id(messages: list[dict[str, Any]]) -> str:
    """A request's ``custom_id``: a hash of its messages (the target finds its reply by the same hash)."""
    return "r" + hashlib.sha256(json.dumps(messages, sort_keys=True, ensure_ascii=False).encode()).hexdigest()[:40]


def openai_body(config: RunConfig, model: str, prompt: Prompt) -> dict[str, Any]:
    body: dict[str, Any] = {"model": model, "messages": prompt.messages, "temperature": config.decoding.temperature,
                            "seed": config.selection.seed}
    if config.hosting.prompt_cache is not False:
        body["prompt_cache_key"] = cache_key_of(prompt.document)
    if config.decoding.max_tokens:
        body["max_completion_tokens"] = config.decoding.max_tokens
    return body


def anthropic_body(config: RunConfig, model: str, prompt: Prompt, order: str) -> dict[str, Any]:
    """Messages params: in document-first order the document block marked ``cache_control`` (the prefix
    Anthropic caches); stock order, or ``--no-prompt-cache``, marks nothing (a prefix that ends after the
    question is never read again)."""
    question = {"type": "text", "text": prompt.question}
    blocks = [question]
    if prompt.documents:
        first = order == "document-first"
        document = {"type": "text", "text": render_documents(prompt.documents).lstrip("\n"),
                    **(CACHE_MARK if first and config.hosting.prompt_cache is not False else {})}
        blocks = [document, question] if first else [question, document]
    decoding = config.decoding
    body: dict[str, Any] = {"model": model, "max_tokens": decoding.max_tokens or ANTHROPIC_MAX_TOKENS,
                            "temperature": decoding.temperature, "messages": [{"role": "user", "content": blocks}]}
    if config.target.system_prompt:
        body["system"] = config.target.system_prompt
    return body


def client_for(config: RunConfig):
    target, timeout = config.target, config.execution.timeout
    key = target.key()
    if not key:
        variable = providers.provider(target.provider).key_variable
        raise RunError(f"--batch-api needs the provider's key (--api-key or ${variable})")
    if target.provider == "anthropic":
        return AnthropicBatches(base_url=target.base_url, api_key=key, timeout=timeout)
    return OpenAIBatches(base_url=providers.openai_base_url(target.provider, target.base_url), api_key=key,
                         timeout=timeout)


class BatchLog:
    """``<stem>.batches.jsonl``: a line per submitted batch; per downloaded result set a line per request, then
    one marking the batch collected."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.submitted: dict[str, list[str]] = {}       # batch id → custom ids
        self.replies: dict[str, dict[str, Any]] = {}    # custom id → reply record, or {"error": why}
        self.collected: set[str] = set()
        damaged: set[str | None] = set()
        if path.exists():
            for number, line in enumerate(file_lines(path, max_line=2 * max_reply_bytes() + 2**20,
                                                     max_total=LOG_MAX_BYTES, what="batch log"), 1):
                try:
                    self._read(line)
                except (ValueError, KeyError, TypeError, AttributeError, RecursionError, UserError):
                    batch = _batch_of(line)
                    damaged.add(batch)
                    print(f"auditpacks: warning: {path.name}: line {number} is damaged and skipped"
                          + (f" (the results of {batch} are downloaded again)" if batch else ""), file=sys.stderr)
        self.collected -= damaged

    def _read(self, line: Any) -> None:
        if isinstance(line, Overlong):
            raise ValueError("line over the cap")
        entry = parse_json(line, self.path.name, UserError) if line.strip() else {}
        if "submitted" in entry:
            self.submitted[_name(entry["submitted"])] = [_name(cid) for cid in entry["custom_ids"]]
        elif "reply" in entry:
            self.keep({_name(entry["reply"]): dict(entry["record"])})
        elif "collected" in entry:
            self.keep({_name(cid): dict(record) for cid, record in (entry.get("replies") or {}).items()})
            self.collected.add(_name(entry["collected"]))

    def keep(self, replies: dict[str, dict[str, Any]]) -> None:
        """Take ``replies`` in, none of them replacing a reply already received by an error."""
        for cid, record in replies.items():
            if "error" not in record or "error" in self.replies.get(cid, {"error": None}):
                self.replies[cid] = record

    def append(self, *entries: dict[str, Any]) -> None:
        with writing(self.path), open(appendable(self.path, "batch log", RunError), "a", encoding="utf-8") as handle:
            handle.write("".join(json.dumps(entry, ensure_ascii=False) + "\n" for entry in entries))
            handle.flush()
            os.fsync(handle.fileno())

    def pending(self) -> set[str]:
        """Custom ids submitted in a batch whose results are not downloaded yet, or answered."""
        live = {cid for bid, ids in self.submitted.items() if bid not in self.collected for cid in ids}
        return live | {cid for cid, r in self.replies.items() if "error" not in r}


LOG_MAX_BYTES = 64 * 2**30   # the log is ours; the cap only guards against a file that never ends


def _name(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError("an id is not a string")
    return value


def _batch_of(line: Any) -> str | None:
    """The batch a damaged line was about, when its start still says (its results are fetched again)."""
    head = line.head if isinstance(line, Overlong) else line[:4096]
    found = re.search(rb'"(?:collected|batch)"\s*:\s*"([A-Za-z0-9_.:-]{1,200})"', head)
    return found.group(1).decode() if found else None


def chunks(requests: dict[str, tuple[str, dict[str, Any]]], limit: int) -> Iterable[list[tuple[str, dict]]]:
    """Requests in batches of at most ``limit``, a document's requests never split (unless it alone is over)."""
    by_doc: dict[str, list[tuple[str, dict]]] = {}
    for cid, (doc, body) in requests.items():
        by_doc.setdefault(doc, []).append((cid, body))
    batch: list[tuple[str, dict]] = []
    for group in by_doc.values():
        if batch and len(batch) + len(group) > limit:
            yield batch
            batch = []
        batch.extend(group)
    if batch:
        yield batch


def collect(config: RunConfig, model: str, client: Any, *, poll_s: float = 30.0, limit: int = MAX_REQUESTS,
            say: Callable[[str], None] = lambda line: print(line, file=sys.stderr, flush=True)) -> dict[str, Any]:
    """Submit what is not submitted yet, wait for every batch, and return ``custom_id → reply record or error``."""
    folder = run_folder(config.out, config.pack)
    folder.mkdir(parents=True, exist_ok=True)
    log = BatchLog(folder / batches_name(model_stem(model)))
    items, order = prompts(config)
    requests: dict[str, tuple[str, dict[str, Any]]] = {}
    for item in items:
        body = anthropic_body(config, model, item, order) if client.provider == "anthropic" else \
            openai_body(config, model, item)
        requests.setdefault(request_id(item.messages), (item.document, body))
    try:
        _submit_and_wait(log, requests, client, poll_s=poll_s, limit=limit, say=say)
    except UserError:
        raise
    except Exception as exc:  # an SDK's error: one line naming the provider and the cause (a cap, a time-out)
        why = describe(exc, config.execution.timeout)[0]
        raise RunError(f"batch API ({client.provider}): {why}; what was done is in {log.path.name}, a rerun "
                       "re-attaches") from None
    return log.replies


def _submit_and_wait(log: BatchLog, requests: dict[str, tuple[str, dict[str, Any]]], client: Any, *,
                     poll_s: float, limit: int, say: Callable[[str], None]) -> None:
    done = log.pending()
    for batch in chunks({k: v for k, v in requests.items() if k not in done}, limit):
        batch_id = client.submit(batch)
        log.append({"submitted": batch_id, "provider": client.provider, "custom_ids": [cid for cid, _ in batch]})
        log.submitted[batch_id] = [cid for cid, _ in batch]
    while open_ids := [bid for bid in log.submitted if bid not in log.collected]:
        states = {bid: client.poll(bid) for bid in open_ids}
        finished = len(log.submitted) - len(open_ids) + sum(s.ended for s in states.values())
        say(f"batch API: {finished} of {len(log.submitted)} batches ended, "
            f"{sum(s.done for s in states.values())} of {sum(s.total for s in states.values())} open requests done")
        for bid, state in states.items():
            if state.ended:
                replies = {cid: (r.record() if isinstance(r, Reply) else {"error": r})
                           for cid, r in client.results(bid, log.submitted[bid]).items()}
                log.append(*({"batch": bid, "reply": cid, "record": record} for cid, record in replies.items()),
                           {"collected": bid, "status": state.status, "count": len(replies)})
                log.collected.add(bid)
                log.keep(replies)
        if any(bid not in log.collected for bid in log.submitted):
            time.sleep(poll_s)


class BatchReplies(ModelAPI):
    """A provider that answers each request from the batch's downloaded replies (found by the messages' hash)."""

    def __init__(self, model: str, replies: dict[str, Any]) -> None:
        self.model, self.replies = model, replies

    def build(self, request: Request) -> list[dict[str, Any]]:
        return request.messages

    def cache_key(self, body: Any, request: Request) -> dict[str, Any]:
        return {"api": "batch", "model": self.model, "messages": body}

    async def call(self, body: list[dict[str, Any]], request: Request) -> Reply:
        found = self.replies.get(request_id(body))
        if found is None:
            raise RunError("no batch request was made for this prompt (a follow-up turn? --batch-api runs one turn)")
        if "error" in found:
            raise RunError(found["error"])
        return Reply.from_record(found)


def batch_target(config: RunConfig, model: str, *, poll_s: float = 30.0) -> ChatTarget:
    """The run's target for ``--batch-api``: the batches submitted (or re-attached), awaited and downloaded."""
    target = config.target
    if target.provider not in BATCH_PROVIDERS:
        raise RunError(f"--batch-api works with --provider {' or '.join(BATCH_PROVIDERS)}, not {target.provider!r}")
    if not target.model or config.roles.max_turns != 1 or config.selection.repeats != 1 or target.more_base_urls:
        raise RunError("--batch-api runs one turn of each scenario once on one --target "
                       "(no --max-turns, --repeats or several --base-url)")
    replies = collect(config, model, client_for(config), poll_s=poll_s)
    policy = RetryPolicy(max_retries=0, backoff=0.0, timeout=config.execution.timeout)
    return ChatTarget(Model(BatchReplies(model, replies), policy=policy),
                      layout=config.execution.prompt_order or "stock")
