"""Warnings every benchmark's figures carry when the sample behind them is partial or small.

* **A subset:** the run graded fewer scenarios than its pack holds (``--limit``, ``--smoke``,
  ``--per-question``, ``--shard``): its figures describe those scenarios, not the benchmark.
* **Few clusters:** a benchmark's intervals resample whole clusters (its ``Grouping.cluster``, named by
  the unit of its paired comparison: judgment, question or target); with fewer than
  :data:`FEW_CLUSTERS` of them an interval says almost nothing. A benchmark that warns about its
  clusters itself (a warning naming the unit) is not warned twice. Where figures are computed per
  group (a benchmark's languages, say: its ``Grouping.per``), each group's clusters are counted too.

The warnings join the headline's ``warnings``, which the summary prints as notes and the report shows
in every benchmark's section.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from auditpacks.judges.reader import Reader

FEW_CLUSTERS = 3


def warnings(reader: Reader, scenarios: Iterable[Mapping[str, Any]], *, in_pack: int | None,
             existing: Iterable[str] = ()) -> list[str]:
    """The warnings for a headline over ``scenarios`` (all selected, answered or not) of a pack of ``in_pack``,
    the run read by ``reader``."""
    scenarios = list(scenarios)
    out = []
    if in_pack is not None and 0 < len(scenarios) < in_pack:
        out.append(f"a subset: {len(scenarios)} of the pack's {in_pack} scenarios (--limit, --smoke, --per-question "
                   "or --shard); these figures describe the subset, not the benchmark")
    paired, key = reader.paired, reader.cluster
    if paired is not None and key is not None and scenarios:
        count = len({key(dict(s)) for s in scenarios})
        if count < FEW_CLUSTERS and not any(f"{paired.unit}s" in w for w in existing):
            out.append(few_clusters(count, paired.unit))
        elif count >= FEW_CLUSTERS and reader.per is not None:
            out += _per_group(scenarios, key, reader.per, paired.unit)
    return out


def _per_group(scenarios: list[Mapping[str, Any]], key, group, unit: str) -> list[str]:
    """A warning per group (e.g. a language) whose own intervals rest on fewer than three clusters."""
    clusters: dict[str, set[str]] = {}
    for s in scenarios:
        clusters.setdefault(group(dict(s)), set()).add(key(dict(s)))
    return [few_clusters(len(keys), unit, name) for name, keys in sorted(clusters.items()) if len(keys) < FEW_CLUSTERS]


def few_clusters(count: int, unit: str, where: str = "") -> str:
    """The few-clusters warning for ``count`` clusters of ``unit`` (``where``: the figure or group it concerns)."""
    plural = f"{unit}s"
    return (f"{where + ': ' if where else ''}only {count} {unit if count == 1 else plural}: intervals that "
            f"resample {plural} say almost nothing with fewer than {FEW_CLUSTERS}")
