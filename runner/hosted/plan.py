"""The quote before a run (``auditpacks run --dry-run``): tokens, cost and time of four ways to run it.

Nothing is sent and no model is started. The run's own selection, shard and prompt order
are applied to the pack; each scenario's first target turn is laid out as the chat target
would send it (:mod:`runner.models.providers.messages`) and counted (:mod:`runner.hosted.tokens`).
A document's *shared prefix* is the longest text its scenarios' prompts begin with (with
document-first prompts: the system prompt and the document; with stock prompts: little
more than the system prompt). With prompt caching, a prefix of at least the model's
``cache_min_tokens`` is written by a document's first request and read by the others; the
batch API charges either times the table's ``batch_discount`` (a share of the normal price).
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
from auditpacks.runner.settings.config import RunConfig
from auditpacks.runner.readiness.model_setup import resolve_prompt_order
from auditpacks.runner.scenarios.scenario_source import open_pack
from auditpacks.runner.hosted import prices
from auditpacks.runner.hosted.tokens import Counter, counter, message_text
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


def prompts(config: RunConfig) -> tuple[list[Prompt], str]:
    """The first target turn of every selected scenario (this shard's), laid out in the run's prompt order."""
    pack = open_pack(config.pack, check=config.check)
    admit(pack, config)
    scenarios = select.select(pack, smoke=config.smoke, per_question_n=config.per_question,
                              limit=config.limit, seed=config.seed, allow_fewer=config.allow_fewer)
    order = resolve_prompt_order(config, scenarios) or STOCK
    if config.shard:
        scenarios, _ = shard.take(scenarios, shard.parse_spec(config.shard))
    layout = LAYOUTS[order]
    out = []
    for scenario in pack.lazy(scenarios):
        question = scenario.get("test_prompt") or scenario["description"]
        messages = layout(system=config.system_prompt, user=question, documents=scenario.get("documents"),
                          file_uri=scenario.get("file_uri"))
        out.append(Prompt(shard.document_key(scenario), "\x00".join(message_text(m) for m in messages), messages,
                          question, scenario.get("documents")))
    return out, order


def documents(items: Iterable[Prompt], count: Counter, repeats: int = 1) -> list[Document]:
    """The prompts grouped by document, each document with the tokens of the prefix its prompts share."""
    texts: dict[str, list[str]] = {}
    docs: dict[str, Document] = {}
    for item in items:
        doc = docs.setdefault(item.document, Document(item.document))
        doc.prompts.extend([count.messages(item.messages)] * repeats)
        texts.setdefault(item.document, []).append(item.text)
    for key, doc in docs.items():
        if len(doc.prompts) < 2:   # nothing reads a prefix only one request uses
            continue
        shared = os.path.commonprefix(texts[key])
        doc.prefix = min(count.count(shared) + MESSAGE_OVERHEAD * shared.count("\x00"), min(doc.prompts))
    return list(docs.values())


MESSAGE_OVERHEAD = 4   # the template tokens of each whole message inside a shared prefix


def expected_usage(docs: list[Document], *, output: int, cache_min: int | None) -> Usage:
    """The normalised usage of the run: with ``cache_min`` (caching), each document's first request writes its
    shared prefix and the others read it, when the prefix is at least ``cache_min`` tokens."""
    total = Usage()
    for doc in docs:
        cacheable = doc.prefix if cache_min is not None and doc.prefix >= cache_min else 0
        for index, tokens in enumerate(doc.prompts):
            total += Usage(input=tokens, cached_input=cacheable if index else 0,
                           cache_write=0 if index else cacheable, output=output)
    return total


def _seconds(docs: list[Document], usage: Usage, price: prices.Price, output: int, concurrency: int) -> float:
    requests = sum(len(d.prompts) for d in docs)
    busy = (requests * (price.request_overhead_s + output / price.output_tokens_per_s)
            + (usage.input - usage.cached_input) / price.input_tokens_per_s)
    return busy / max(concurrency, 1)


def quote_model(model: str, items: list[Prompt], table: prices.PriceTable, config: RunConfig) -> ModelQuote:
    price = table.lookup(model)
    count = counter(model)
    docs = documents(items, count, config.repeats)
    expected = price.expected_output_tokens if price else int(table.defaults.get("expected_output_tokens", 200))
    output = min(expected, config.max_tokens) if config.max_tokens else expected
    cache_min = price.cache_min_tokens if price else int(table.defaults.get("cache_min_tokens", 1024))
    usage = {"plain": expected_usage(docs, output=output, cache_min=None),
             "caching": expected_usage(docs, output=output, cache_min=cache_min)}
    cost: dict[str, float | None] = dict.fromkeys(WAYS)
    seconds: dict[str, float] = {}
    batch_s = table.batch_turnaround_hours * 3600
    if price is not None:
        cost = {"plain": prices.cost(usage["plain"], price), "caching": prices.cost(usage["caching"], price),
                "batch": prices.cost(usage["plain"], price, batch=True),
                "both": prices.cost(usage["caching"], price, batch=True)}
    speed = price or prices.Price(model, "", 0, 0, 0, 0, 1, cache_min, expected_output_tokens=output,
                                  **{k: float(table.defaults.get(k, v)) for k, v in SPEEDS.items()})
    seconds = {"plain": _seconds(docs, usage["plain"], speed, output, config.concurrency),
               "caching": _seconds(docs, usage["caching"], speed, output, config.concurrency),
               "batch": batch_s, "both": batch_s}
    return ModelQuote(model=model, scenarios=len(items), documents=len(docs),
                      requests=sum(len(d.prompts) for d in docs),
                      prompt_tokens=usage["plain"].input,
                      shared_prefix_tokens=sum(d.prefix for d in docs), output_tokens=usage["plain"].output,
                      tokenizer=count.label, price=price, usage=usage, cost=cost, seconds=seconds)


def quote(config: RunConfig, models: list[str] | None = None) -> Quote:
    """The quote for ``models`` (default: the run's target, or every model in the price table when the run
    names none)."""
    table = prices.load(config.prices)
    items, order = prompts(config)
    names = models or ([config.target] if config.target else list(table.models))
    return Quote(pack=os.path.basename(str(config.pack)), prompt_order=order, repeats=config.repeats,
                 concurrency=config.concurrency, price_date=table.date, price_source=os.path.basename(table.source),
                 batch_turnaround_hours=table.batch_turnaround_hours,
                 models=[quote_model(name, items, table, config) for name in names])
