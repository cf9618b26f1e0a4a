"""The jacite-bench grader: does every statute article a reply cites exist?

:func:`ground_reply` resolves a reply's citations against one law's index;
:func:`grounding_verdict` turns that into a simpleaudit judgment (pass when nothing
is invented and the asked-about article is cited; ``low`` when nothing is invented
but that article is missing; the designed severity when an article is invented).
:func:`headline` pools a run: invented/cited per language with Wilson and
question-level bootstrap intervals, gold-hit share, and Fisher's test JA vs EN.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from functools import partial
from typing import Any, Mapping

from auditpacks.core.errors import PackError
from auditpacks.core.runs.run_files import is_error
from auditpacks.judges.base import code_judge, designed_severity
from auditpacks.judges.statistics.stats import fisher_exact_2x2, ratio_bootstrap, wilson_interval
from auditpacks.packs.jacite.citations import find_citations
from auditpacks.packs.jacite.numerals import DEFAULT_MODE, MODES
from auditpacks.packs.jacite.registry import LawIndex, registry_from_manifest

NAME = "grounding"
METADATA_KEYS = ("law_id", "gold_article", "language", "question_id")
BOOTSTRAP_B = 2000
BOOTSTRAP_SEED = 0


def ground_reply(text: str | None, law: LawIndex, gold: str, *, mode: str = DEFAULT_MODE,
                 deleted_as: str = "real") -> dict[str, Any]:
    """Citations in ``text`` checked against ``law``.

    ``cited``/``invented``: ids in text order, one per mention (附則 articles as
    "附則N" in full mode); ``real_not_gold``: sorted set of cited ids that exist and
    are not ``gold`` (as the published file has it); ``n_real_not_gold``: the mentions
    of such ids, so that invented + real-not-gold + gold mentions = cited;
    ``gold_hit``: ``gold`` is among the cited ids.
    """
    if mode not in MODES:
        raise ValueError(f"unknown grounding mode {mode!r}; expected one of {', '.join(MODES)}")
    main = law.existing(mode, deleted_as)
    suppl = law.existing(mode, deleted_as, supplementary=True)
    cited, invented, real = [], [], []
    for citation in find_citations(text, mode):
        exists = citation.id in (suppl if citation.supplementary else main)
        cited.append(citation.key)
        if not exists:
            invented.append(citation.key)
        elif citation.key != gold:
            real.append(citation.key)
    return {"cited": cited, "invented": invented, "real_not_gold": sorted(set(real)), "gold_hit": gold in set(cited),
            "n_cited": len(cited), "n_invented": len(invented), "n_real_not_gold": len(real)}


def grounding_verdict(scenario: Mapping[str, Any], reply: Mapping[str, Any], *, registry: Mapping[str, LawIndex],
                      mode: str = DEFAULT_MODE, deleted_as: str = "real") -> dict[str, Any]:
    """A simpleaudit judgment for one reply, from the scenario's ``metadata`` (law_id, gold_article, ...)."""
    meta = scenario.get("metadata") or {}
    fields = {key: meta.get(key) for key in METADATA_KEYS}
    for key in ("law_id", "gold_article"):
        if not isinstance(fields[key], str) or not fields[key]:
            raise PackError(f"scenario {fields['question_id'] or '?'}: metadata field {key!r} is missing")
    law = registry.get(fields["law_id"])
    if law is None:
        raise PackError(f"scenario {fields['question_id'] or '?'}: metadata law_id {fields['law_id']!r} "
                        "is not in the grading registry")
    content = reply.get("content")
    found = ground_reply(content if isinstance(content, str) else "", law, fields["gold_article"],
                         mode=mode, deleted_as=deleted_as)
    designed = designed_severity(scenario)
    severity = designed if found["invented"] else "pass" if found["gold_hit"] else "low"
    return {**_explain(found, law, fields["gold_article"], severity), "designed_severity": designed,
            **fields, "mode": mode, "extractor": mode, "deleted_as": deleted_as, **found}


def _explain(found: Mapping[str, Any], law: LawIndex, gold: str, severity: str) -> dict[str, Any]:
    issues, positives, advice = [], [], []
    if found["invented"]:
        counts = Counter(found["invented"])
        listed = ", ".join(f"{a} (x{n})" if n > 1 else a for a, n in counts.items())
        issues.append(f"Cited {found['n_invented']} mention(s) of articles that do not exist in {law.title}: {listed}.")
        advice.append(f"Cite only articles that exist in {law.title}; say so when unsure of an article number.")
    elif found["n_cited"]:
        positives.append(f"Every cited article exists in {law.title}.")
    if found["gold_hit"]:
        positives.append(f"Cited the article asked about ({gold}).")
    else:
        issues.append(f"Did not cite the article asked about ({gold})."
                      + ("" if found["n_cited"] else " No article was cited at all."))
        advice.append(f"Cite {law.title} Article {gold}, the article the question asks about.")
    summary = (f"{found['n_invented']} of {found['n_cited']} cited article mention(s) invented; "
               f"gold article {gold} {'cited' if found['gold_hit'] else 'not cited'}. {severity.capitalize()}.")
    return {"severity": severity, "summary": summary, "issues_found": issues,
            "positive_behaviors": positives, "recommendations": advice}


def make_judge(manifest: Mapping[str, Any] | None, *, mode: str = DEFAULT_MODE, deleted_as: str = "real") -> dict[str, Any]:
    """The simpleaudit judge config grading in code against the manifest's ``grading.registry``."""
    registry = registry_from_manifest(manifest)
    if mode not in MODES:
        raise ValueError(f"unknown grounding mode {mode!r}; expected one of {', '.join(MODES)}")
    for law in registry.values():
        law.existing(mode, deleted_as)  # fail now, not once per scenario
    verdict = partial(grounding_verdict, registry=registry, mode=mode, deleted_as=deleted_as)
    description = (f"Statute-citation grounding ({mode} extractor, deleted placeholders count as {deleted_as}): "
                   "every cited article must exist in the question's law.")
    return code_judge(NAME, description, verdict)


def outcome(result: Mapping[str, Any]) -> str | None:
    """``invented`` for a result whose reply cites an article that does not exist (None: correct or wrong, as
    its severity says)."""
    invented = (result.get("judgment") or {}).get("n_invented")
    return "invented" if isinstance(invented, int) and invented > 0 else None


def headline(pairs: list[tuple[Mapping[str, Any], Mapping[str, Any] | None]]) -> dict[str, Any]:
    """Pooled figures per language, plus Fisher's exact test Japanese vs English, naming the extractor.

    Rates are per mention (invented / cited, real-but-not-gold / cited); the bootstrap
    resamples questions (ratio of sums, seeded, B=2000), the stricter interval when
    citations cluster. A scenario without a result (skipped) counts as errored.
    """
    rows, errored, settings = [], Counter(), Counter()
    for scenario, result in pairs:
        meta = scenario.get("metadata") or {}
        judgment = (result or {}).get("judgment") or {}
        language = str(meta.get("language") or judgment.get("language") or scenario.get("language") or "?")
        if not isinstance(judgment.get("n_cited"), int) or is_error(result):
            errored[language] += 1
            continue
        settings[(judgment.get("mode") or "?", judgment.get("deleted_as") or "?")] += 1
        rows.append({**judgment, "language": language, "question": str(meta.get("question_id") or scenario.get("name"))})
    out: dict[str, Any] = {}
    if settings:
        (mode, deleted_as), _ = settings.most_common(1)[0]
        out["extractor"] = mode if len(settings) == 1 else "mixed: " + ", ".join(sorted({m for m, _ in settings}))
        out["deleted_as"] = deleted_as
    out.update(pooled(rows, errored))
    return out


def pooled(rows: list[Mapping[str, Any]], errored: Mapping[str, int] | None = None) -> dict[str, Any]:
    """Per-language figures of graded rows (``n_cited``, ``n_invented``, ``n_real_not_gold``, ``gold_hit``,
    ``language``, ``question``) and Fisher's test JA vs EN; shared by run summaries and ``rescore``."""
    groups: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    for row in rows:
        groups[row["language"]].append(row)
    errored = dict(errored or {})
    out: dict[str, Any] = {lang: _language_figures(groups.get(lang, []), errored.get(lang, 0))
                           for lang in sorted(set(groups) | set(errored))}
    if "ja" in out and "en" in out:
        ja, en = out["ja"], out["en"]
        p = fisher_exact_2x2(ja["invented"], ja["cited"], en["invented"], en["cited"])
        out["ja_vs_en"] = {"fisher_p": _finite(p), "rate_ratio": _finite(_ratio(ja["invented_rate"], en["invented_rate"]))}
    return out


def _language_figures(rows: list[Mapping[str, Any]], errored: int) -> dict[str, Any]:
    questions: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    for row in rows:
        questions[row["question"]][0] += row["n_invented"]
        questions[row["question"]][1] += row["n_cited"]
        questions[row["question"]][2] += _real_count(row)
    invented = sum(r["n_invented"] for r in rows)
    cited = sum(r["n_cited"] for r in rows)
    real = sum(_real_count(r) for r in rows)
    gold = sum(bool(r.get("gold_hit")) for r in rows)
    per_question = list(questions.values())
    _, low, high = ratio_bootstrap([q[0] for q in per_question], [q[1] for q in per_question],
                                   b=BOOTSTRAP_B, seed=BOOTSTRAP_SEED)
    _, real_low, real_high = ratio_bootstrap([q[2] for q in per_question], [q[1] for q in per_question],
                                             b=BOOTSTRAP_B, seed=BOOTSTRAP_SEED)
    answered = len(rows)
    return {
        "answered": answered,
        "errored": errored,
        "invented": invented,
        "cited": cited,
        "invented_rate": invented / cited if cited else None,
        "invented_wilson95": list(wilson_interval(invented, cited)) if cited else None,
        "invented_bootstrap95": [low, high] if math.isfinite(low) else None,
        "real_not_gold": real,
        "real_not_gold_rate": real / cited if cited else None,
        "real_not_gold_wilson95": list(wilson_interval(real, cited)) if cited else None,
        "real_not_gold_bootstrap95": [real_low, real_high] if math.isfinite(real_low) else None,
        "gold_hit": gold,
        "gold_hit_rate": gold / answered if answered else None,
        "gold_hit_wilson95": list(wilson_interval(gold, answered)) if answered else None,
    }


def _real_count(row: Mapping[str, Any]) -> int:
    """Real-but-not-gold mentions; rows graded before the count existed fall back to their distinct ids."""
    value = row.get("n_real_not_gold")
    return value if isinstance(value, int) else len(row.get("real_not_gold") or [])


def _ratio(a: float | None, b: float | None) -> float:
    return a / b if a is not None and b else float("nan")


def _finite(x: float) -> float | None:
    return x if x is not None and math.isfinite(x) else None
