"""Warnings every benchmark's figures carry when the sample behind them is partial or small.

* **A subset:** the run graded fewer scenarios than its pack holds (``--limit``, ``--smoke``,
  ``--per-question``, ``--shard``): its figures describe those scenarios, not the benchmark.
* **Few clusters:** a benchmark's intervals resample whole clusters (the unit of its paired
  comparison in :mod:`auditpacks.core.registry`: judgment, question or target); with fewer than
  :data:`FEW_CLUSTERS` of them an interval says almost nothing. A benchmark that warns about its
  clusters itself (a warning naming the unit) is not warned twice.

The warnings join the headline's ``warnings``, which the summary prints as notes and the report shows
in every benchmark's section.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from auditpacks.core.registry import BENCHMARKS, benchmark_of, load

FEW_CLUSTERS = 3


def warnings(judge: str, scenarios: Iterable[Mapping[str, Any]], *, in_pack: int | None,
             existing: Iterable[str] = ()) -> list[str]:
    """The warnings for a headline over ``scenarios`` (all selected, answered or not) of a pack of ``in_pack``."""
    scenarios = list(scenarios)
    out = []
    if in_pack is not None and 0 < len(scenarios) < in_pack:
        out.append(f"a subset: {len(scenarios)} of the pack's {in_pack} scenarios (--limit, --smoke, --per-question "
                   "or --shard); these figures describe the subset, not the benchmark")
    name = benchmark_of(judge)
    paired = BENCHMARKS[name].paired if name else None
    if paired is not None and paired.cluster and scenarios:
        key = load(paired.cluster)
        count = len({key(dict(s)) for s in scenarios})
        plural = f"{paired.unit}s"
        if count < FEW_CLUSTERS and not any(plural in w for w in existing):
            out.append(f"only {count} {paired.unit if count == 1 else plural}: intervals that resample {plural} "
                       f"say almost nothing with fewer than {FEW_CLUSTERS}")
    return out
