"""The quote on screen: per model its scenarios, documents, tokens, and the cost and time of four ways to run."""

from __future__ import annotations

import sys
from typing import TextIO

from rich.console import Console
from rich.table import Table

from auditpacks.runner.hosted.plan import WAYS, Quote

WAY_NAMES = {"plain": "plain", "caching": "prompt caching", "batch": "batch API", "both": "batch + caching"}


def money(value: float | None) -> str:
    if value is None:
        return "n/a"
    return f"${value:,.4f}" if value < 1 else f"${value:,.2f}"


def duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def print_quote(quote: Quote, out: TextIO | None = None) -> None:
    console = Console(file=out or sys.stdout, width=120, soft_wrap=True)
    console.print(f"Quote for {quote.pack}: nothing was sent. Prompt order {quote.prompt_order}, "
                  f"{quote.repeats} round(s), concurrency {quote.concurrency}; prices of {quote.price_date} "
                  f"({quote.price_source}).")
    for m in quote.models:
        table = Table()
        for column in ("way", "cost", "range", "time", "cache hit rate"):
            table.add_column(column, justify="left" if column == "way" else "right")
        for way in WAYS:
            cached = way in ("caching", "both")
            batch = way in ("batch", "both")
            when = f"about {duration(m.seconds[way])} (at most 24 h)" if batch else duration(m.seconds[way])
            span = m.range.get(way)
            table.add_row(WAY_NAMES[way], money(m.cost[way]), f"{money(span[0])} to {money(span[1])}" if span else "n/a",
                          when,
                          f"{m.cache_hit_rate:.0%}" if cached else "0%")
        console.print(f"\n{m.model}: {m.scenarios} scenarios, {m.documents} documents, {m.requests} requests; "
                      f"{m.prompt_tokens:,} prompt tokens ({m.shared_prefix_tokens:,} in shared document prefixes), "
                      f"{m.output_tokens:,} expected output tokens"
                      + (f" (replies of {m.reply_tokens[0]:,}, at most {m.reply_tokens[1]:,})" if m.reply_tokens else "")
                      + f"; tokens by {m.tokenizer}"
                      + ("" if m.price else "; not in the price table, so no cost"))
        console.print(table)
