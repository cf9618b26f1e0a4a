"""Checklist judges whose behaviour is known, as answers for :class:`tests.support.fake_openai.FakeOpenAI`.

The judge is chosen by the model name of the request:

* ``judge-pass`` marks every expectation met; ``judge-fail`` marks every one violated;
* ``judge-correct`` knows how calibration transcripts are made and reads the truth from the
  prompt: the reference option (Iustitia) or article (jacite) from the first expectation,
  the judgment text from the judge notes, the replies from the transcript;
* ``judge-longer`` is ``judge-correct``, except that any reply over 250 characters passes.

Any other model name gets the fake server's default answer (a target's reply).
"""

from __future__ import annotations

import json
import re
from typing import Any

from tests.support.fake_openai import _text, default_answer

LONG_REPLY = 250
_EXPECTATION = re.compile(r"^(\d+)\. (.*)$", re.M)
_QUOTED = re.compile(r'"([^"]+)"')
_ARTICLE = re.compile(r"Article (\d+(?:-\d+)?)")
JUDGMENT_MARK = "for checking quotes:\n\n"


def answer(model: str, messages: list[dict[str, Any]]) -> dict[str, Any]:
    if not model.startswith("judge-"):
        return default_answer(model, messages)
    prompt = _text(messages[-1].get("content"))
    expectations = expectations_of(prompt)
    replies = replies_of(prompt)
    if model == "judge-pass" or (model == "judge-longer" and max(map(len, replies)) > LONG_REPLY):
        violated: set[int] = set()
    elif model == "judge-fail":
        violated = set(range(1, len(expectations) + 1))
    else:
        violated = truth(prompt, expectations, replies)
    items = [{"index": n, "expectation": text, "status": "violated" if n in violated else "met",
              "evidence_kind": "direct", "quote": replies[0].splitlines()[0]}
             for n, text in enumerate(expectations, start=1)]
    return {"content": json.dumps({"checklist": items, "notes": ""})}


def expectations_of(prompt: str) -> list[str]:
    block = prompt.split("SCENARIO EXPECTATIONS:\n", 1)[1].split("\n\n", 1)[0]
    return [text for _, text in _EXPECTATION.findall(block)]


def replies_of(prompt: str) -> list[str]:
    conversation = prompt.split("CONVERSATION:\n", 1)[1].split("\n\nSCENARIO EXPECTATIONS:", 1)[0]
    turns = re.split(r"(?:^|\n\n)(USER|ASSISTANT):\n", conversation)
    return [turns[i + 1] for i in range(1, len(turns) - 1, 2) if turns[i] == "ASSISTANT"]


def truth(prompt: str, expectations: list[str], replies: list[str]) -> set[int]:
    """The expectations a calibration transcript violates, by the rules that made it."""
    first = replies[0].splitlines()[0].strip()
    if expectations[0].startswith("Chooses the reference answer"):  # Iustitia
        reference = re.search(r"'([^']+)'", expectations[0]).group(1)
        judgment = prompt.split(JUDGMENT_MARK, 1)[1] if JUDGMENT_MARK in prompt else ""
        quote = _QUOTED.search(replies[0])
        violated = set()
        if first != reference:
            violated.add(1)
        if quote is None or quote.group(1) not in judgment:
            violated.add(2)
        if any(reply.splitlines()[0].strip() != first for reply in replies[1:]):
            violated.add(4)
        return violated
    gold = _ARTICLE.search(expectations[0]).group(1)  # jacite
    cited = _ARTICLE.findall(replies[0])
    violated = set()
    if not cited or cited[0] != gold:
        violated.add(1)
    if "See also Article" in replies[0]:
        violated.add(2)
    return violated
