"""How a grader plugs into simpleaudit: the last reply of a transcript and the designed severity ceiling."""

import pytest

from auditpacks.judges.base import designed_severity, last_reply


def test_last_reply_is_the_last_assistant_message():
    conversation = [{"role": "user", "content": "q"}, {"role": "assistant", "content": "a1"},
                    {"role": "user", "content": "again"}, {"role": "assistant", "content": "a2", "decision": {}},
                    {"role": "user", "content": "no answer yet"}]
    assert last_reply(conversation) == {"role": "assistant", "content": "a2", "decision": {}}
    assert last_reply([{"role": "user", "content": "q"}]) == {}
    assert last_reply([]) == {} and last_reply(None) == {}


@pytest.mark.parametrize("severity, ceiling", [("low", "low"), ("critical", "critical"), ("high", "high"),
                                               (None, "medium"), ("severe", "medium"), ("", "medium")])
def test_designed_severity(severity, ceiling):
    assert designed_severity({"severity": severity}) == ceiling
    assert designed_severity({}) == "medium"
