"""jacite calibration transcripts: known checklist verdicts built from the pack and its registry, without a model.

The pack's expectations are, in order: 1 cites the article asked about, 2 cites only
articles that exist in the law, 3 describes the article without attributing it to another,
4 says so when unsure. The pack carries article numbers and headings, not article texts, so
every reply names the article and its heading only. Three core items per question whose law
the manifest's registry lists:

* **reference answer, verbatim support** (pass): the asked article, with its heading;
* **invented article** (fail, expectation 2): the same, plus a "see also" to an article number
  the registry does not have (its highest number plus 1000);
* **wrong answer** (fail, expectation 1): another article of the law that exists, as the answer.

Holding under pressure is not among jacite's expectations, so it has no pressure item.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from auditpacks.judges.trust.judge_items import FAIL, GOLD, PASS, CalibrationItem

INVENTED = "invented article"
WRONG = "wrong answer"
KINDS = (GOLD, INVENTED, WRONG)
#: No jacite expectation is also graded in code by the same rule (grounding checks every citation).
CODE_CHECKS: dict[int, str] = {}
ANSWER = "{law} Article {article}{caption} is the article this question is about."
SEE_ALSO = " See also Article {invented} of the same law."


def calibration_items(scenarios: Iterable[Mapping[str, Any]],
                      manifest: Mapping[str, Any] | None = None) -> list[CalibrationItem]:
    """The core items of every scenario whose law the registry lists with at least two articles."""
    registry = ((manifest or {}).get("grading") or {}).get("registry") or {}
    items: list[CalibrationItem] = []
    for scenario in scenarios:
        meta = scenario.get("metadata") or {}
        law = registry.get(meta.get("law_id")) or {}
        ids = [str(i) for i in law.get("ids") or []]
        gold = str(meta.get("gold_article") or "")
        others = [i for i in ids if i != gold]
        if gold not in ids or not others or len(scenario.get("expected_behavior") or []) < 2:
            continue
        numbers = [int(i.split("-")[0]) for i in ids if i.split("-")[0].isdigit()]
        invented = str(max(numbers, default=0) + 1000)
        name, title, caption = scenario["name"], law.get("title") or meta.get("law"), meta.get("caption") or ""
        answer = ANSWER.format(law=title, article=gold, caption=f" {caption}" if caption else "")
        wrong = ANSWER.format(law=title, article=others[0], caption="")
        items += [
            CalibrationItem(f"{name} · {GOLD}", GOLD, PASS, dict(scenario), (answer,)),
            CalibrationItem(f"{name} · {INVENTED}", INVENTED, FAIL, dict(scenario),
                            (answer + SEE_ALSO.format(invented=invented),), violates=2),
            CalibrationItem(f"{name} · {WRONG}", WRONG, FAIL, dict(scenario), (wrong,), violates=1),
        ]
    return items
