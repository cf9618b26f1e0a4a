"""Message layouts: the document block marked for a provider's prompt cache (``mark``), images, a history,
and the flat messages of Ollama's native API."""

from __future__ import annotations

import re
from base64 import b64encode

import pytest

from auditpacks.runner.models.providers.messages import LAYOUTS, document_first_messages, flat_messages, \
    stock_messages

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


def image(tmp_path, name="scan.png", data=b"\x89PNG page"):
    """An image file and the ``image_url`` part it is sent as (a base64 data: URI)."""
    path = tmp_path / name
    path.write_bytes(data)
    return str(path), {"type": "image_url", "image_url": {"url": "data:image/png;base64," + b64encode(data).decode()}}


def test_stock_sends_the_question_then_the_documents_then_the_images(tmp_path):
    uri, part = image(tmp_path)
    [system, user] = stock_messages(system="Be brief.", user="Who won?", documents=DOCS, file_uri=uri)
    assert system == {"role": "system", "content": "Be brief."}
    assert user == {"role": "user", "content": [{"type": "text", "text": "Who won?"},
                                                {"type": "text", "text": "\n" + RENDERED}, part]}


@pytest.mark.parametrize("documents, first", [(DOCS, [{"type": "text", "text": RENDERED}]), (None, [])])
def test_document_first_with_images_sends_documents_images_then_the_question(tmp_path, documents, first):
    uri, part = image(tmp_path)
    other, other_part = image(tmp_path, "b.png", b"second")
    [user] = document_first_messages(system=None, user="Who won?", documents=documents, file_uri=[uri, other])
    assert user == {"role": "user", "content": [*first, part, other_part, {"type": "text", "text": "Who won?"}]}


def test_images_alone_are_never_marked(tmp_path):
    uri, part = image(tmp_path)
    [user] = document_first_messages(system=None, user="Who won?", file_uri=uri, mark=True)
    assert user["content"] == [part, {"type": "text", "text": "Who won?"}]


@pytest.mark.parametrize("layout", [stock_messages, document_first_messages])
def test_a_history_is_sent_as_it_stands_without_its_stored_keys(layout):
    """The history already ends with the current turn: ``user`` is not added; ``decision`` and ``reasoning``
    stay in the transcript."""
    history = [{"role": "user", "content": "Who won?"},
               {"role": "assistant", "content": "A", "reasoning": "r", "decision": {"choice": "A"}},
               {"role": "user", "content": "Sure?", "documents": None, "file_uri": None}]
    assert layout(system="", user="ignored", history=history) == [
        {"role": "user", "content": "Who won?"}, {"role": "assistant", "content": "A"},
        {"role": "user", "content": "Sure?"}]


def test_the_layouts_by_their_prompt_order_names():
    assert LAYOUTS == {"stock": stock_messages, "document-first": document_first_messages}


def test_ollama_gets_one_string_a_turn_and_the_images_base64(tmp_path):
    uri, _ = image(tmp_path)
    messages = [{"role": "system", "content": "Be brief."},
                *stock_messages(system=None, user="Who won?", documents=DOCS, file_uri=uri),
                *stock_messages(system=None, user="Next?", documents=DOCS)]
    assert flat_messages(messages) == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Who won?\n" + RENDERED, "images": [b64encode(b"\x89PNG page").decode()]},
        {"role": "user", "content": "Next?\n" + RENDERED}]


def test_an_image_part_that_is_no_data_uri_is_refused():
    url = "https://example.org/" + "a" * 40 + ".png"
    part = {"type": "image_url", "image_url": {"url": url}}
    with pytest.raises(ValueError, match=f"^image part is not a data: URI: {re.escape(url[:40])}$"):
        flat_messages([{"role": "user", "content": [part]}])
    with pytest.raises(ValueError, match="not a data: URI: data:image/png$"):
        flat_messages([{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "data:image/png"}}]}])


def test_the_payload_is_all_after_the_first_comma():
    """RFC 2397: the data follows the first comma, commas in it included."""
    part = {"type": "image_url", "image_url": {"url": "data:image/svg+xml,<svg a='1,2'/>"}}
    assert flat_messages([{"role": "user", "content": [part]}])[0]["images"] == ["<svg a='1,2'/>"]
