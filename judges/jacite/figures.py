"""jacite's pooled figures: invented, real-but-not-gold and gold-hit rates per language, and JA vs EN.

One interval method per figure, the same in the summary, the report and ``compare``: the two
per-mention rates (invented, real but not gold) resample questions (a question's mentions are not
independent; :data:`BOOTSTRAP`), the gold-hit rate (one answer per scenario) is a Wilson interval.
"""

from __future__ import annotations

from typing import Any, Mapping

from auditpacks.judges.figures import Figure, interval, leaves, number


BOOTSTRAP = "95% CI, bootstrap over questions"


def figures(h: Mapping[str, Any]) -> list[Figure]:
    """The grounding headline (``grounding.headline``) as figures; another shape as its numeric leaves."""
    if not any(isinstance(v, Mapping) and "invented_rate" in v for v in h.values()):
        return leaves(h)
    rows = []
    extractor = f"; {h['extractor']} extractor" if isinstance(h.get("extractor"), str) else ""
    for lang, g in h.items():
        if not (isinstance(g, Mapping) and "invented_rate" in g):
            continue
        rows += [
            Figure("invented rate", number(g.get("invented_rate")),
                   interval=interval(g.get("invented_bootstrap95")), interval_name=BOOTSTRAP,
                   meaning=f"cited article mentions that do not exist ({g.get('invented', 0)} of "
                           f"{g.get('cited', 0)}{extractor})", group=lang, better="lower"),
            *([Figure("real but not gold rate", number(g.get("real_not_gold_rate")),
                      interval=interval(g.get("real_not_gold_bootstrap95")), interval_name=BOOTSTRAP,
                      meaning=f"cited mentions of existing articles other than the one asked about "
                              f"({g.get('real_not_gold', 0)} of {g.get('cited', 0)})", group=lang, better="lower")]
              if "real_not_gold_rate" in g else []),
            Figure("gold article cited", number(g.get("gold_hit_rate")),
                   interval=interval(g.get("gold_hit_wilson95")), interval_name="95% Wilson interval",
                   meaning=f"answers citing the article asked about ({g.get('gold_hit', 0)} of "
                           f"{g.get('answered', 0)})", group=lang, better="higher"),
        ]
    pair = h.get("ja_vs_en")
    if isinstance(pair, Mapping):
        rows += [Figure("invented rate ratio", number(pair.get("rate_ratio")), "ratio",
                        meaning="Japanese invented rate ÷ English", group="ja vs en"),
                 Figure("Fisher exact p", number(pair.get("fisher_p")), "p",
                        meaning="two-sided test that the invented rates are equal", group="ja vs en")]
    return rows
