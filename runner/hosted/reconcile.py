"""The quote beside the bill: what a run was expected to cost and what its provider's usage says it cost.

:func:`cost_record` is the run record's ``cost`` block: the price table's date, the way the run
was sent (``plain``, ``caching``, ``batch``, ``both``), the quote of that way (with its range) and of all four, and
the incurred figures: normalised tokens (input with cache reads and writes inside it, cache reads,
cache writes, output), the cache hit rate and the cost by the price table. Replies answered by
the response cache cost nothing and are not counted; a resumed run counts what this invocation
sent, while its quote covers the whole selection.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

from auditpacks.core.errors import UserError
from auditpacks.runner.hosted import prices
from auditpacks.runner.models.usage import Usage

if TYPE_CHECKING:  # the report reads cost_line without the run's machinery
    from auditpacks.runner.settings.config import HostingConfig, RunConfig
    from auditpacks.runner.hosted.plan import ModelQuote


def run_way(hosting: "HostingConfig", usage: Usage) -> str:
    """How the run was sent: through the batch API or not, with or without prompt-cache hits."""
    cached = usage.cached_input > 0 or usage.cache_write > 0
    if hosting.batch_api:
        return "both" if cached else "batch"
    return "caching" if cached else "plain"


def hit_rate(usage: Usage) -> float | None:
    return usage.cached_input / usage.input if usage.input else None


def cost_record(config: "RunConfig", model: str, usage: Mapping[str, Any] | None,
                quoted: "ModelQuote | None" = None) -> dict[str, Any] | None:
    """The ``cost`` block for ``model``'s run (None when the price table does not list it: a local model's tokens
    are in the run's performance figures)."""
    hosting = config.hosting
    table = prices.load(hosting.prices)
    price = table.lookup(model)
    spent = Usage(**{k: int(v) for k, v in (usage or {}).items() if k in Usage.__dataclass_fields__})
    if price is None:
        return None
    way = run_way(hosting, spent)
    if quoted is None and price is not None:
        from auditpacks.runner.hosted.plan import quote

        try:
            quoted = quote(config, [model]).models[0]
        except (UserError, OSError, ValueError):   # a finished run keeps its record, with no quote
            quoted = None
    incurred = prices.cost(spent, price, batch=hosting.batch_api) if price else None
    expected = quoted.cost[way] if quoted else None
    return {
        "price_table_date": table.date,
        "way": way,
        "quote": {"cost": expected, "range": quoted.range.get(way) if quoted else None,
                  "ways": dict(quoted.cost) if quoted else None,
                  "usage": quoted.usage["caching" if way in ("caching", "both") else "plain"].to_dict()
                  if quoted else None, "tokenizer": quoted.tokenizer if quoted else None},
        "incurred": {**spent.to_dict(), "cache_hit_rate": hit_rate(spent), "cost": incurred},
        "difference": None if incurred is None or expected is None else incurred - expected,
    }


def cost_line(cost: Mapping[str, Any] | None) -> str | None:
    """One line for the summary: the cost incurred beside the quote, and the cache hit rate."""
    if not cost:
        return None
    incurred, quoted = cost["incurred"], cost["quote"]
    rate = incurred.get("cache_hit_rate")
    money = (lambda v: "n/a" if v is None else f"${v:,.4f}")
    return (f"cost ({cost['way']}, prices of {cost['price_table_date']}): {money(incurred.get('cost'))} incurred, "
            f"{money(quoted.get('cost'))} quoted; {incurred['input']:,} input tokens, {incurred['cached_input']:,} "
            f"cached, {incurred['cache_write']:,} cache writes, {incurred['output']:,} output; cache hit rate "
            + ("n/a" if rate is None else f"{rate:.0%}"))
