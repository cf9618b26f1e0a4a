"""The quote before a run (``auditpacks run --dry-run``): tokens, cost and time of four ways to run it.

Nothing is sent and no model is started. The run's own selection, shard and prompt order
are applied to the pack; each scenario's first target turn is laid out as the chat target
would send it (:mod:`runner.models.providers.messages`) and counted (:mod:`runner.hosted.tokens`).
A document's *shared prefix* is the longest text its scenarios' prompts begin with (with
document-first prompts: the system prompt and the document; with stock prompts: little
more than the system prompt); for a provider that caches up to a marked block (Anthropic) it
is the prompt up to the mark, and nothing in stock order, which is never marked. With prompt
caching, a prefix of at least the model's ``cache_min_tokens`` is written by a document's first
request and read by the others, in the provider's steps (OpenAI: 128 tokens past the minimum);
the batch API charges either times the table's ``batch_discount``. A reply is expected to be as
long as the pack's answer format says (manifest ``answer.tokens``, in ``o200k_base`` tokens, scaled to
the model's tokenizer by its count of the pack's prompts), at most the run's cap; the
quote's ``range`` spans the counter's error and replies from half that length to the cap.
Prices and speeds come from the price table (:mod:`runner.hosted.prices`).
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field
from typing import Any, Iterable

from auditpacks.runner.scenarios import selection as select
from auditpacks.runner.scenarios import shard
from auditpacks.runner.scenarios.admit import admit
from auditpacks.runner.settings.config import DecodingConfig, RunConfig
from auditpacks.runner.readiness.model_setup import resolve_prompt_order
from auditpacks.runner.execute.engine import run_reader
from auditpacks.runner.scenarios.scenario_source import open_pack
from auditpacks.runner.hosted import prices
from auditpacks.runner.hosted.tokens import ESTIMATE, Counter, counter, message_text
from auditpacks.runner.models.usage import Usage
from auditpacks.runner.models.providers.messages import LAYOUTS, STOCK

WAYS = ("plain", "caching", "batch", "both")
#: Speeds for a model the price table does not list (its ``defaults`` first).
SPEEDS = {"input_tokens_per_s": 4000.0, "output_tokens_per_s": 60.0, "request_overhead_s": 0.4}


@dataclass
class Prompt:
    """One request's prompt: its document, its text, and its tokens."""

    document: str
    text: str
    messages: list[dict[str, Any]]
    question: str = ""
    documents: Any = None


@dataclass
class Document:
    key: str
    prompts: list[int] = field(default_factory=list)   # tokens of each request's prompt
    prefix: int = 0                                     # tokens of the prefix all of them share


@dataclass
class ModelQuote:
    model: str
    scenarios: int
    documents: int
    requests: int
    prompt_tokens: int
    shared_prefix_tokens: int
    output_tokens: int
    tokenizer: str
    price: prices.Price | None
    usage: dict[str, Usage]              # expected normalised usage: plain (no caching) and caching
    cost: dict[str, float | None]        # per way, US dollars (None: the model has no price)
    seconds: dict[str, float]            # per way
    range: dict[str, list[float] | None] = field(default_factory=dict)   # per way: [low, high] US dollars
    reply_tokens: list[int] = field(default_factory=list)                  # a reply's expected tokens, its cap

    @property
    def cache_hit_rate(self) -> float:
        cached = self.usage["caching"]
        return cached.cached_input / cached.input if cached.input else 0.0

    def to_dict(self) -> dict[str, Any]:
        data = {k: v for k, v in dataclasses.asdict(self).items() if k not in ("price", "usage")}
        data["usage"] = {k: u.to_dict() for k, u in self.usage.items()}
        data["cache_hit_rate"] = self.cache_hit_rate
        data["priced"] = self.price is not None
        return data


@dataclass
class Quote:
    pack: str
    prompt_order: str
    repeats: int
    concurrency: int
    price_date: str
    price_source: str
    batch_turnaround_hours: float
    models: list[ModelQuote]

    def to_dict(self) -> dict[str, Any]:
        return {**{k: v for k, v in dataclasses.asdict(self).items() if k != "models"},
                "models": [m.to_dict() for m in self.models]}

    def for_model(self, model: str) -> ModelQuote | None:
        return next((m for m in self.models if m.model == model), None)


def selection(config: RunConfig, *, mark: bool = False) -> tuple[list[Prompt], str, dict[str, Any]]:
    """The first target turn of every selected scenario (this shard's), laid out in the run's prompt order
    (documents marked for the prompt cache with ``mark``), the order, and the pack's manifest."""
    pack = open_pack(config.pack, check=config.execution.check)
    admit(pack, config)
    reader = run_reader(config.roles, pack.manifest, pack.scenarios)
    scenarios = select.for_run(pack, config.selection, question=reader.question)
    order = resolve_prompt_order(config, scenarios) or STOCK
    if config.selection.shard:
        scenarios, _ = shard.take(scenarios, shard.parse_spec(config.selection.shard), reader.document)
    layout = LAYOUTS[order]
    out = []
    for scenario in pack.lazy(scenarios):
        question = scenario.get("test_prompt") or scenario["description"]
        messages = layout(system=config.target.system_prompt, user=question, documents=scenario.get("documents"),
                          file_uri=scenario.get("file_uri"), mark=mark)
        text = "\x00".join(message_text(m) for m in messages)
        out.append(Prompt(shard.document_key(scenario, reader.document), text, messages, question,
                          scenario.get("documents")))
    return out, order, dict(pack.manifest or {})


def prompts(config: RunConfig) -> tuple[list[Prompt], str]:
    """The first target turn of every selected scenario (this shard's), laid out in the run's prompt order."""
    items, order, _ = selection(config)
    return items, order


def marked_prefix(messages: list[dict[str, Any]], count: Counter) -> int:
    """The tokens of a prompt up to and including its block marked ``cache_control`` (0 when none is)."""
    total = 0
    for message in messages:
        content = message.get("content")
        parts = content if isinstance(content, list) else []
        marks = [i for i, part in enumerate(parts) if isinstance(part, dict) and part.get("cache_control")]
        if marks:
            return total + MESSAGE_OVERHEAD + sum(count.count(p.get("text", "")) for p in parts[:marks[-1] + 1])
        total += MESSAGE_OVERHEAD + count.count(message_text(message))
    return 0


def documents(items: Iterable[Prompt], count: Counter, repeats: int = 1, *, marks: bool = False) -> list[Document]:
    """The prompts grouped by document, each document with the tokens of the prefix its prompts share (with
    ``marks``: the prompt up to its marked block, the prefix a marking provider caches)."""
    texts: dict[str, list[str]] = {}
    docs: dict[str, Document] = {}
    firsts: dict[str, Prompt] = {}
    for item in items:
        doc = docs.setdefault(item.document, Document(item.document))
        doc.prompts.extend([count.messages(item.messages)] * repeats)
        texts.setdefault(item.document, []).append(item.text)
        firsts.setdefault(item.document, item)
    for key, doc in docs.items():
        if len(doc.prompts) < 2:   # nothing reads a prefix only one request uses
            continue
        if marks:
            doc.prefix = min(marked_prefix(firsts[key].messages, count), min(doc.prompts))
            continue
        shared = os.path.commonprefix(texts[key])
        doc.prefix = min(count.count(shared) + MESSAGE_OVERHEAD * shared.count("\x00"), min(doc.prompts))
    return list(docs.values())


MESSAGE_OVERHEAD = 4   # the template tokens of each whole message inside a shared prefix


def cached_tokens(prefix: int, cache_min: int, step: int = 1) -> int:
    """The tokens of ``prefix`` a provider's cache holds: none under ``cache_min``, else the minimum and whole
    ``step``s past it (OpenAI: 1,024 and 128-token increments)."""
    if prefix < cache_min:
        return 0
    return cache_min + (prefix - cache_min) // max(step, 1) * max(step, 1)


def expected_usage(docs: list[Document], *, output: int, cache_min: int | None, step: int = 1) -> Usage:
    """The normalised usage of the run: with ``cache_min`` (caching), each document's first request writes its
    shared prefix and the others read it, when the prefix is at least ``cache_min`` tokens (in ``step``s)."""
    total = Usage()
    for doc in docs:
        cacheable = cached_tokens(doc.prefix, cache_min, step) if cache_min is not None else 0
        for index, tokens in enumerate(doc.prompts):
            total += Usage(input=tokens, cached_input=cacheable if index else 0,
                           cache_write=0 if index else cacheable, output=output)
    return total


def _seconds(docs: list[Document], usage: Usage, price: prices.Price, output: int, concurrency: int) -> float:
    requests = sum(len(d.prompts) for d in docs)
    busy = (requests * (price.request_overhead_s + output / price.output_tokens_per_s)
            + (usage.input - usage.cached_input) / price.input_tokens_per_s)
    return busy / max(concurrency, 1)


def reply_tokens(decoding: DecodingConfig, manifest: dict[str, Any], price: prices.Price | None,
                 table: prices.PriceTable) -> tuple[int, int]:
    """A reply's expected tokens and its cap: the pack's answer format (manifest ``answer.tokens``), else the
    price table's ``expected_output_tokens``, at most the run's ``--max-tokens`` or the pack's ``run.max_tokens``."""
    answer = (manifest.get("answer") or {}).get("tokens") if isinstance(manifest.get("answer"), dict) else None
    expected = answer if isinstance(answer, int) and answer > 0 else (
        price.expected_output_tokens if price else int(table.defaults.get("expected_output_tokens", 200)))
    run = manifest.get("run") if isinstance(manifest.get("run"), dict) else {}
    cap = decoding.max_tokens or run.get("max_tokens")
    cap = cap if isinstance(cap, int) and cap > 0 else max(expected, 4096)
    return min(expected, cap), cap


def reply_scale(items: list[Prompt], count: Counter) -> float:
    """How many of this counter's tokens an ``o200k_base`` token of the pack's text makes (the pack states its
    answer length in those); 1 for an OpenAI counter or when bpe-openai is not installed."""
    reference = counter("gpt-4o")
    if count.label == reference.label or reference.label == ESTIMATE or not items:
        return 1.0
    sample = items[:50]
    base = sum(reference.messages(i.messages) for i in sample)
    return sum(count.messages(i.messages) for i in sample) / base if base else 1.0


def _ways(usage: dict[str, Usage], price: prices.Price | None) -> dict[str, float | None]:
    if price is None:
        return dict.fromkeys(WAYS)
    return {"plain": prices.cost(usage["plain"], price), "caching": prices.cost(usage["caching"], price),
            "batch": prices.cost(usage["plain"], price, batch=True),
            "both": prices.cost(usage["caching"], price, batch=True)}


def _scaled(docs: list[Document], factor: float) -> list[Document]:
    return [Document(d.key, [round(t * factor) for t in d.prompts], round(d.prefix * factor)) for d in docs]


def quote_model(model: str, items: list[Prompt], table: prices.PriceTable, config: RunConfig,
                manifest: dict[str, Any] | None = None) -> ModelQuote:
    price = table.lookup(model)
    provider = price.provider if price else None
    count = counter(model, provider)
    marks = provider == "anthropic"
    docs = documents(items, count, config.selection.repeats, marks=marks)
    output, cap = reply_tokens(config.decoding, manifest or {}, price, table)
    output = min(round(output * reply_scale(items, count)), cap)
    cache_min = price.cache_min_tokens if price else int(table.defaults.get("cache_min_tokens", 1024))
    step = price.cache_step_tokens if price else 1

    def usage_of(docs: list[Document], output: int) -> dict[str, Usage]:
        return {"plain": expected_usage(docs, output=output, cache_min=None),
                "caching": expected_usage(docs, output=output, cache_min=cache_min, step=step)}

    usage = usage_of(docs, output)
    cost = _ways(usage, price)
    low = _ways(usage_of(_scaled(docs, 1 - count.error), max(output // 2, 1)), price)
    high = _ways(usage_of(_scaled(docs, 1 + count.error), cap), price)
    spread = {way: None if cost[way] is None else [low[way], high[way]] for way in WAYS}
    batch_s = table.batch_turnaround_hours * 3600
    speed = price or prices.Price(model, "", 0, 0, 0, 0, 1, cache_min, expected_output_tokens=output,
                                  **{k: float(table.defaults.get(k, v)) for k, v in SPEEDS.items()})
    workers = config.execution.concurrency
    seconds = {"plain": _seconds(docs, usage["plain"], speed, output, workers),
               "caching": _seconds(docs, usage["caching"], speed, output, workers),
               "batch": batch_s, "both": batch_s}
    return ModelQuote(model=model, scenarios=len(items), documents=len(docs),
                      requests=sum(len(d.prompts) for d in docs),
                      prompt_tokens=usage["plain"].input,
                      shared_prefix_tokens=sum(d.prefix for d in docs), output_tokens=usage["plain"].output,
                      tokenizer=count.label, price=price, usage=usage, cost=cost, seconds=seconds,
                      range=spread, reply_tokens=[output, cap])


def quote(config: RunConfig, models: list[str] | None = None) -> Quote:
    """The quote for ``models`` (default: the run's target, or every model in the price table when the run
    names none)."""
    table = prices.load(config.hosting.prices)
    names = models or ([config.target.model] if config.target.model else list(table.models))
    laid: dict[bool, tuple[list[Prompt], str, dict[str, Any]]] = {}
    for name in names:   # Anthropic's prompts carry cache marks; the others' do not
        mark = marks_for(table.lookup(name))
        if mark not in laid:
            laid[mark] = selection(config, mark=mark)
    items, order, _ = next(iter(laid.values()))
    return Quote(pack=os.path.basename(str(config.pack)), prompt_order=order, repeats=config.selection.repeats,
                 concurrency=config.execution.concurrency, price_date=table.date,
                 price_source=os.path.basename(table.source),
                 batch_turnaround_hours=table.batch_turnaround_hours,
                 models=[quote_model(name, laid[marks_for(table.lookup(name))][0], table, config,
                                     laid[marks_for(table.lookup(name))][2]) for name in names])


def marks_for(price: prices.Price | None) -> bool:
    """Whether the model's prompts carry cache marks (Anthropic's)."""
    return price is not None and price.provider == "anthropic"
