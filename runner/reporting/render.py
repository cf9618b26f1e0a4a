"""Render the report's content with Jinja2: HTML (autoescaped, self-contained) or Markdown for CI logs."""

from __future__ import annotations

import math
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape

from auditpacks.judges.figures import Cell


def pct(value: Any, digits: int = 1) -> str:
    """0.1234 → '12.3%'; None or NaN → 'n/a'."""
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value):
        return "n/a"
    return f"{100 * value:.{digits}f}%"


def signed_pct(value: Any) -> str:
    text = pct(value)
    return text if text == "n/a" or text.startswith("-") else "+" + text


def interval(ci: Any, signed: bool = False) -> str:
    if not ci:
        return "n/a"
    fmt = signed_pct if signed else pct
    return f"[{fmt(ci[0])}, {fmt(ci[1])}]"


def number(value: Any) -> str:
    if value is None or isinstance(value, float) and not math.isfinite(value):
        return "n/a"
    if isinstance(value, float):
        return f"{value:.3g}"
    return str(value)


def shown_interval(row: Any) -> str:
    """A compared row's paired interval, or ``withheld`` where it rests on too few clusters."""
    return "withheld" if "ci_withheld" in row else interval(row.get("ci"), True)


def decision(row: Any) -> str:
    """A compared row's decision and what decided it: ``significant (interval and McNemar agree)``."""
    return f"{row['decision']} ({row['decided_by']})" if row.get("decision") else "–"


def figure_value(row: Any) -> str:
    """A headline value: shares as percentages, counts, ratios and p-values as plain numbers."""
    return pct(row["value"]) if row["unit"] == "%" else number(row["value"])


def md_cell(value: Any) -> str:
    """Text safe inside a Markdown table cell: no HTML, no pipes, one line."""
    text = str(value).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return text.replace("|", "\\|").replace("\r", " ").replace("\n", " ")


def cell(c: Cell) -> str:
    """A table cell as text: a share as a percentage (``rate``: followed by its interval), an interval, a count
    or text."""
    if c.unit == "%":
        return pct(c.value, c.digits)
    if c.unit == "rate":
        return f"{pct(c.value, c.digits)} {interval(c.interval)}"
    if c.unit == "interval":
        return interval(c.value)
    return str(c.value)


def cell_md(c: Cell) -> str:
    return md_cell(c.value) if c.unit == "text" else cell(c)


def md_line(cells: list[str]) -> str:
    """One Markdown table row."""
    return "| " + " | ".join(cells) + " |"


def md_rule(cells: list[str]) -> str:
    """The Markdown line under a table's header."""
    return "|" + "---|" * len(cells)


def environment() -> Environment:
    env = Environment(loader=PackageLoader("auditpacks.runner.reporting", "templates"),
                      autoescape=select_autoescape(enabled_extensions=("html.j2",), disabled_extensions=("md.j2",),
                                                  default=True),
                      undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    env.filters.update(pct=pct, signed_pct=signed_pct, interval=interval, number=number,
                       figure_value=figure_value, md=md_cell, cell=cell, cell_md=cell_md,
                       md_line=md_line, md_rule=md_rule, shown_interval=shown_interval, decision=decision)
    return env


def render(context: dict[str, Any], fmt: str = "html") -> str:
    name = {"html": "report.html.j2", "md": "report.md.j2"}[fmt]
    return environment().get_template(name).render(**context)
