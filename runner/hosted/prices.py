"""The price table: what a token costs on each hosted model, read from an editable, dated YAML file.

No price lives in code: the bundled table is ``prices.yaml`` next to this module, and
``--prices FILE`` names another. A model the table does not list is quoted in tokens only
(:func:`lookup` returns None). :func:`cost` prices normalised token counts
(:class:`~auditpacks.runner.models.usage.Usage`) the way providers bill them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

import yaml

from auditpacks.core.errors import FormatError
from auditpacks.runner.models.usage import Usage

BUNDLED = Path(__file__).with_name("prices.yaml")
PRICES = ("input", "cached_input", "cache_write", "output")
NUMBERS = ("batch_discount", "cache_min_tokens", "input_tokens_per_s", "output_tokens_per_s",
           "request_overhead_s", "expected_output_tokens")


class PriceError(FormatError):
    """A price table that cannot be read (one line naming the file, the model and the field)."""


@dataclass(frozen=True)
class Price:
    """One model's row: US dollars per million tokens, the batch discount, caching and speed facts."""

    model: str
    provider: str
    input: float
    cached_input: float
    cache_write: float
    output: float
    batch_discount: float
    cache_min_tokens: int
    input_tokens_per_s: float
    output_tokens_per_s: float
    request_overhead_s: float
    expected_output_tokens: int
    cache_step_tokens: int = 1   # a cache hit grows in steps of this many tokens past cache_min_tokens
    source: str = ""             # the provider's price page the row was read from
    checked: str = ""            # when it was read there


#: the cache step where a row names none: OpenAI caches in 128-token increments, the others to the token
CACHE_STEPS = {"openai": 128}


@dataclass(frozen=True)
class PriceTable:
    date: str
    currency: str
    batch_turnaround_hours: float
    defaults: Mapping[str, Any]
    models: Mapping[str, Price]
    source: str

    def lookup(self, model: str) -> Price | None:
        """The row for ``model`` (also with a ``provider/`` prefix), or None."""
        return self.models.get(model) or self.models.get(model.rsplit("/", 1)[-1])


def _number(value: Any, where: str, field: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        raise PriceError(f"{where}: field {field} is {value!r}, not a non-negative number")
    return float(value)


def _row(name: str, data: Any, defaults: Mapping[str, Any], source: str) -> Price:
    where = f"{source}: models.{name}"
    if not isinstance(data, Mapping):
        raise PriceError(f"{where}: not a mapping")
    merged = {**defaults, **data}
    values = {}
    for field in (*PRICES, *NUMBERS):
        if field not in merged:
            raise PriceError(f"{where}: field {field} is missing")
        values[field] = _number(merged[field], where, field)
    if not 0 < values["batch_discount"] <= 1:
        raise PriceError(f"{where}: field batch_discount is {values['batch_discount']}, not in (0, 1]")
    for field in ("input_tokens_per_s", "output_tokens_per_s"):  # times are tokens divided by these
        if values[field] == 0:
            raise PriceError(f"{where}: field {field} is 0; a speed must be above 0")
    for field in ("cache_min_tokens", "expected_output_tokens"):
        values[field] = int(values[field])
    provider = str(merged.get("provider") or "openai")
    step = int(_number(merged.get("cache_step_tokens", CACHE_STEPS.get(provider, 1)), where, "cache_step_tokens"))
    return Price(model=name, provider=provider, **values, cache_step_tokens=max(step, 1),
                 source=str(merged.get("source") or ""), checked=str(merged.get("checked") or ""))


def load(path: str | Path | None = None) -> PriceTable:
    """The price table at ``path`` (the bundled one when None)."""
    path = Path(path) if path else BUNDLED
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise PriceError(f"{path}: cannot read the price table ({exc.strerror})") from None
    except yaml.YAMLError as exc:
        raise PriceError(f"{path}: not YAML ({str(exc).splitlines()[0]})") from None
    except RecursionError:
        raise PriceError(f"{path}: YAML nested too deeply to read") from None
    if not isinstance(data, Mapping) or not isinstance(data.get("models"), Mapping):
        raise PriceError(f"{path}: field models is missing (a mapping of model name to prices)")
    if not data.get("date"):
        raise PriceError(f"{path}: field date is missing (when were these prices read?)")
    defaults = data.get("defaults") or {}
    if not isinstance(defaults, Mapping):
        raise PriceError(f"{path}: field defaults is not a mapping")
    models = {str(name): _row(str(name), row, defaults, path.name) for name, row in data["models"].items()}
    turnaround = _number(data.get("batch_turnaround_hours", 24), path.name, "batch_turnaround_hours")
    return PriceTable(date=str(data["date"]), currency=str(data.get("currency") or "USD"),
                      batch_turnaround_hours=turnaround, defaults=defaults, models=models, source=str(path))


def cost(usage: Usage, price: Price, *, batch: bool = False) -> float:
    """What ``usage`` costs in dollars: uncached input, cache reads, cache writes and output at their prices,
    all times the batch discount when sent through a batch API."""
    dollars = (usage.uncached_input * price.input + usage.cached_input * price.cached_input
               + usage.cache_write * price.cache_write + usage.output * price.output) / 1e6
    return dollars * (price.batch_discount if batch else 1.0)
