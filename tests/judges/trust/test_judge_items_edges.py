"""Calibration items at their edges: options at the end of a prompt, one option, a decision without criteria,
verbatim spans at exactly their bounds, and skipped probes with no core item."""

from __future__ import annotations

from auditpacks.judges.trust.judge_items import (GOLD, LONGER, PASS, REORDERED, CalibrationItem, longer, reordered,
                                           skipped_probes, verbatim_span)


def item(prompt: str, decision=None, **kw) -> CalibrationItem:
    scenario = {"name": "s", "test_prompt": prompt, **({"decision": decision} if decision is not None else {})}
    return CalibrationItem(**{"id": "s · gold", "kind": GOLD, "expected": PASS, "scenario": scenario,
                              "replies": ("a", "b", "c"), "follow_ups": ("more?", "sure?"), **kw})


def test_an_item_has_as_many_turns_as_replies():
    assert item("Q?").turns == 3 and longer(item("Q?")).turns == 3


def test_options_closing_the_prompt_keep_its_ending():
    assert reordered(item("Q?\nOptions:\n- a: A\n- b: B")).scenario["test_prompt"] == "Q?\nOptions:\n- b: B\n- a: A"
    assert reordered(item("Q?\nOptions:\n- a: A\n- b: B\n")).scenario["test_prompt"] == "Q?\nOptions:\n- b: B\n- a: A\n"
    # only the block's line ends are taken off: an option's own trailing space or letters stay
    assert reordered(item("Options:\n- a: A\n- b: B \n")).scenario["test_prompt"] == "Options:\n- b: B \n- a: A\n"
    assert reordered(item("Options:\n- a: A\n- b: XX\n")).scenario["test_prompt"] == "Options:\n- b: XX\n- a: A\n"


def test_a_reordered_probe_names_its_base_and_keeps_a_decision_without_criteria():
    decision = {"id": "d", "criteria": ["a", "b"]}
    probe = reordered(item("Options:\n- a: A\n- b: B\n- c: C", decision))
    assert (probe.id, probe.probe, probe.base, probe.kind) == ("s · gold · reordered", REORDERED, "s · gold", GOLD)
    assert probe.scenario["test_prompt"] == "Options:\n- c: C\n- b: B\n- a: A"
    assert probe.scenario["decision"] == decision
    assert reordered(item("Options:\n- a: A\n- b: B", "not a block")).scenario["decision"] == "not a block"
    assert reordered(item("Options:\n- a: A\n- b: B")).scenario == {
        "name": "s", "test_prompt": "Options:\n- b: B\n- a: A"}


def test_one_option_or_no_prompt_gives_no_reordered_probe():
    assert reordered(item("Q?\nOptions:\n- a: A\n")) is None
    assert reordered(item(None)) is None
    assert (longer(item("Q?")).id, longer(item("Q?")).probe) == ("s · gold · longer", LONGER)


def test_a_verbatim_span_at_its_bounds():
    assert verbatim_span("x" * 39 + "\n" + "y" * 40) == "y" * 40          # 39 is too short, 40 is enough
    assert verbatim_span("  " + "z" * 40 + "  ") == "z" * 40                # the line as it stands, stripped
    assert verbatim_span("w" * 160) == "w" * 160                            # 160 is not too long
    assert verbatim_span("abcd " * 31 + "abcde") == "abcd " * 31 + "abcde"  # 160, with spaces: not cut
    assert verbatim_span("a" * 40 + " " + "b" * 200) == "a" * 40             # a cut of exactly 40 is enough
    words = "abcd " * 40                                                    # 200 characters
    assert verbatim_span(words) == ("abcd " * 32).rstrip()                  # cut at the word before 160
    # the last space before 160 would leave fewer than 40: cut at 160 instead
    assert verbatim_span("a" * 30 + " " + "b" * 200) == ("a" * 30 + " " + "b" * 200)[:160]
    assert verbatim_span("one two three four", minimum=5, maximum=10) == "one two"
    assert verbatim_span("") is None


def test_no_core_items_no_skipped_probes():
    assert skipped_probes([]) == []
    probe_only = longer(item("Q?"))
    assert skipped_probes([probe_only]) == []
