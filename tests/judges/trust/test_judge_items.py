"""Bias probes made from calibration items: the same content longer, the options in reverse order."""

from __future__ import annotations

from auditpacks.judges.trust.judge_items import (FAIL, GOLD, LONGER, PASS, REORDERED, RESTATEMENT, CalibrationItem,
                                           longer, reordered, verbatim_span, with_probes)

PROMPT = "Question?\n\nOptions:\n- yes: It did.\n- no: It did not.\n- not_mentioned: Silent.\n\nReply with a key."
SCENARIO = {"name": "s", "test_prompt": PROMPT,
            "decision": {"criteria": {"yes": "It did.", "no": "It did not.", "not_mentioned": "Silent."}}}


def item(**kw) -> CalibrationItem:
    return CalibrationItem(**{"id": "s · gold", "kind": GOLD, "expected": PASS, "scenario": SCENARIO,
                              "replies": ("yes\n\"q\"", "yes again"), "follow_ups": ("sure?",), **kw})


def test_longer_adds_the_restatement_to_every_reply_and_keeps_the_rest():
    probe = longer(item())
    assert probe.replies == ("yes\n\"q\"\n\n" + RESTATEMENT, "yes again\n\n" + RESTATEMENT)
    assert (probe.probe, probe.base, probe.expected, probe.follow_ups, probe.scenario) == \
        (LONGER, "s · gold", PASS, ("sure?",), SCENARIO)


def test_reordered_reverses_the_option_lines_and_the_criteria_only():
    probe = reordered(item())
    assert probe.scenario["test_prompt"] == ("Question?\n\nOptions:\n- not_mentioned: Silent.\n- no: It did not.\n"
                                             "- yes: It did.\n\nReply with a key.")
    assert list(probe.scenario["decision"]["criteria"]) == ["not_mentioned", "no", "yes"]
    assert probe.replies == item().replies and probe.probe == REORDERED and SCENARIO["test_prompt"] == PROMPT


def test_no_reordered_probe_without_options_and_probes_follow_the_core():
    plain = item(scenario={"name": "j", "test_prompt": "What does Article 1 state?"}, id="j", expected=FAIL)
    assert reordered(plain) is None
    probes = with_probes([item(), plain])
    assert [p.id for p in probes] == ["s · gold", "j", "s · gold · longer", "j · longer", "s · gold · reordered"]


def test_verbatim_span_is_a_substring_of_the_text():
    text = "short\n" + "word " * 60 + "\nnext line that is long enough to be chosen, yes indeed"
    span = verbatim_span(text)
    assert span in text and 40 <= len(span) <= 160 and not span.endswith(" ")
    assert verbatim_span("tiny\nlines") is None


def test_a_probe_not_made_from_every_item_is_recorded_with_why():
    from auditpacks.judges.trust.judge_items import skipped_probes

    plain = item(id="p · gold", scenario={"name": "p", "test_prompt": "Which article applies?"})
    items = with_probes([item(), plain])   # one item lists options, one does not
    assert skipped_probes(items) == [{"probe": REORDERED, "skipped": 1, "of": 2,
                                      "why": "the prompt lists no options to reorder, so option-order bias is "
                                             "not measured"}]
    assert skipped_probes(with_probes([item()])) == []
