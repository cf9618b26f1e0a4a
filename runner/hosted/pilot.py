"""The pilot re-quote (``run --dry-run --pilot N``): the first N scenarios run for real, the whole run quoted again.

The pilot's run record holds its own quote beside its bill (:mod:`runner.hosted.reconcile`). Their
ratios correct the quote of the whole selection: prompt tokens by billed input over quoted input,
cache reads and writes each by their own ratio (OpenAI bills no writes: its ratio is 0), and the
output by the pilot's mean reply. The re-quote is what a run of the whole selection would be billed
(the pilot's replies are not reused unless the run reads them from ``--cache``); its range is that
within the pilot's sampling error (1/sqrt(N), between 2% and 50%).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any, Mapping

from auditpacks.runner.hosted import prices
from auditpacks.runner.hosted.plan import marks_for, quote_model, selection
from auditpacks.runner.models.usage import Usage
from auditpacks.runner.settings.config import RunConfig


@dataclass
class PilotQuote:
    model: str
    way: str
    pilot_scenarios: int
    rest_scenarios: int
    pilot_billed: float | None
    pilot_quoted: float | None
    factors: dict[str, float]       # billed over quoted: input, cached_input, cache_write; output: tokens a reply
    usage: Usage                    # the whole selection's expected usage, corrected
    total: float | None             # what a run of the whole selection is expected to cost
    range: list[float] | None

    def to_dict(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        data["usage"] = self.usage.to_dict()
        return data


def _ratio(billed: int, quoted: int, fallback: float) -> float:
    return billed / quoted if quoted else fallback


def pilot_config(config: RunConfig, n: int) -> RunConfig:
    """The pilot's run: the first ``n`` scenarios of the selection."""
    limit = config.selection.limit
    return dataclasses.replace(config, selection=dataclasses.replace(config.selection,
                                                                     limit=n if limit is None else min(n, limit)))


def requote(config: RunConfig, cost: Mapping[str, Any], n: int) -> PilotQuote:
    """The whole selection re-quoted from the pilot's ``cost`` block (its first ``n`` scenarios, each sent
    ``repeats`` times)."""
    model_name = config.target.model or ""
    table = prices.load(config.hosting.prices)
    price = table.lookup(model_name)
    items, _, manifest = selection(config, mark=marks_for(price))
    requests = min(n, len(items)) * max(config.selection.repeats, 1)
    way = cost["way"]
    quoted, billed = cost["quote"]["usage"] or {}, cost["incurred"]
    f_in = _ratio(billed["input"], quoted.get("input", 0), 1.0)
    factors = {"input": f_in, "cached_input": _ratio(billed["cached_input"], quoted.get("cached_input", 0), f_in),
               "cache_write": _ratio(billed["cache_write"], quoted.get("cache_write", 0), f_in),
               "output": billed["output"] / requests if requests else 0.0}
    model = quote_model(model_name, items, table, config, manifest)
    expected = model.usage["caching" if way in ("caching", "both") else "plain"]
    usage = Usage(input=round(expected.input * f_in),
                  cached_input=min(round(expected.cached_input * factors["cached_input"]), round(expected.input * f_in)),
                  cache_write=round(expected.cache_write * factors["cache_write"]),
                  output=round(model.requests * factors["output"]))
    total = prices.cost(usage, price, batch=config.hosting.batch_api) if price else None
    error = min(max(1 / math.sqrt(max(n, 1)), 0.02), 0.5)
    return PilotQuote(model=model_name, way=way, pilot_scenarios=min(n, len(items)),
                      rest_scenarios=max(len(items) - n, 0), pilot_billed=billed.get("cost"),
                      pilot_quoted=cost["quote"].get("cost"), factors=factors, usage=usage, total=total,
                      range=None if total is None else [total * (1 - error), total * (1 + error)])


def pilot_line(result: PilotQuote) -> str:
    """The re-quote in one line for the terminal."""
    money = (lambda v: "n/a" if v is None else f"${v:,.4f}")
    span = "" if result.range is None else f" (range {money(result.range[0])} to {money(result.range[1])})"
    return (f"Pilot of {result.model} ({result.way}): {result.pilot_scenarios} scenarios sent, "
            f"{money(result.pilot_billed)} billed against {money(result.pilot_quoted)} quoted; all "
            f"{result.pilot_scenarios + result.rest_scenarios} re-quoted at {money(result.total)}{span}. "
            f"Billed over quoted: input {result.factors['input']:.3f}, cache reads {result.factors['cached_input']:.3f}, "
            f"cache writes {result.factors['cache_write']:.3f}; {result.factors['output']:.0f} output tokens a reply.")
