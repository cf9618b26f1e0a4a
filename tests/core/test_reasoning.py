"""Reasoning blocks split from the answer: the answer is what simpleaudit 0.4.2 keeps, the reasoning the rest."""

import pytest
from simpleaudit import ModelAuditor

from auditpacks.core.reasoning import split_reasoning, strip_reasoning

CASES = [
    ("plain answer", ("plain answer", None)),
    ("<think>step 1</think>\nA", ("A", "step 1")),
    ("<THINKING> a </Thinking>B<think>b</think> C", ("B C", "a\n\nb")),
    ("pre-filled reasoning</think>answer", ("answer", "pre-filled reasoning")),
    ("answer <think>never closed", ("answer", "never closed")),
    ("< think >x</ think >y", ("y", "x")),
    ("<think></think>only", ("only", None)),
    ("", ("", None)),
]


@pytest.mark.parametrize("text, expected", CASES)
def test_split_by_hand(text, expected):
    assert split_reasoning(text) == expected


@pytest.mark.parametrize("text", [text for text, _ in CASES] + [
    "<think>a</think>mid </think> tail", "x </thinking> y <think> z", "<think>a<think>b</think>c"])
def test_the_answer_is_what_simpleaudit_stores(text):
    assert strip_reasoning(text) == ModelAuditor.strip_thinking(text)
