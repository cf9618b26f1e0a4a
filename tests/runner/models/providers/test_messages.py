"""Message layouts with the document block marked for a provider's prompt cache (``mark``)."""

from __future__ import annotations

from auditpacks.runner.models.providers.messages import document_first_messages, stock_messages

MARK = {"cache_control": {"type": "ephemeral"}}
DOCS = ["The court found for the claimant."]
RENDERED = "--- DOCUMENT 1 ---\nThe court found for the claimant."


def test_document_first_marks_the_documents_as_a_part_of_their_own_before_the_question():
    [system, user] = document_first_messages(system="Be brief.", user="Who won?", documents=DOCS, mark=True)
    assert system == {"role": "system", "content": "Be brief."}
    assert user["content"] == [{"type": "text", "text": RENDERED, **MARK}, {"type": "text", "text": "Who won?"}]


def test_stock_never_marks_the_document_after_the_question():
    # the marked prefix would end after each scenario's own question: written at a surcharge, never read
    [user] = stock_messages(system=None, user="Who won?", documents=DOCS, mark=True)
    assert user["content"] == [{"type": "text", "text": "Who won?"}, {"type": "text", "text": "\n" + RENDERED}]


def test_without_mark_nothing_changes():
    [user] = document_first_messages(system=None, user="Who won?", documents=DOCS)
    assert user["content"] == RENDERED + "\n\nWho won?"
    [user] = stock_messages(system=None, user="Who won?", documents=DOCS)
    assert "cache_control" not in user["content"][1]


def test_only_the_first_turn_with_documents_is_marked():
    history = [{"role": "user", "content": "Who won?", "documents": DOCS},
               {"role": "assistant", "content": "The claimant."},
               {"role": "user", "content": "And this one?", "documents": ["Second."]}]
    first, answer, second = document_first_messages(system=None, user="", history=history, mark=True)
    assert first["content"][0]["cache_control"] == {"type": "ephemeral"}
    assert answer == {"role": "assistant", "content": "The claimant."}
    assert second["content"] == "--- DOCUMENT 1 ---\nSecond.\n\nAnd this one?"
    assert not any("cache_control" in part for part in first["content"][1:])
