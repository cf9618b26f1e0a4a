"""The chat messages a target sends: simpleaudit's own layout, or the documents first.

``stock_messages`` is the one place simpleaudit's ``ModelTarget`` layout lives: the
system prompt first, then the transcript so far (``history``, which already ends with
the current user turn), or the user turn alone when there is no history. Documents on
a user turn become extra text content parts after the prompt
(``"\\n--- DOCUMENT 1 ---\\n…"``, only each document's text, never its marks) and
images come last as ``image_url`` parts. Keys other than ``role`` and ``content`` (a
stored ``decision``, ``reasoning``) are not sent.

``document_first_messages`` sends the same content with the documents *before* the
question: the user turn that carries documents is ``"<documents>\\n\\n<question>"``
(the documents rendered exactly as above, less the leading newline), so every scenario
about one document shares a byte-identical prompt prefix (system prompt, chat template,
documents) and a prefix-caching server (llama.cpp, vLLM, Ollama) reads each document
once. With images the turn is text parts and images: documents, images, question.
A turn without documents or images is the same in both layouts.

With ``mark`` (a provider that caches the prefix up to a marked block: Anthropic), the first
turn's documents in the document-first layout are a text part of their own carrying
``cache_control`` (``CACHE_MARK``), that turn then the parts documents, images, question. The stock
layout is never marked: its question comes before the document, so every marked prefix would be
unique to one scenario, written to the cache at a surcharge and never read.
"""

from __future__ import annotations

from functools import partial
from typing import Any, Callable, Mapping

from simpleaudit.context_marks import render_documents
from simpleaudit.utils import image_content_block

Message = dict[str, Any]
CACHE_MARK = {"cache_control": {"type": "ephemeral"}}


def _text(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def _uris(entry: Mapping[str, Any]) -> list[str]:
    uris = entry.get("file_uri")
    return [uris] if isinstance(uris, str) else list(uris or [])


def _expand(entry: Mapping[str, Any], mark: bool = False) -> Message:
    """One transcript entry as a provider message: text, then documents, then images (``mark`` is ignored:
    a prefix ending after the question is never reused)."""
    documents, uris = entry.get("documents"), _uris(entry)
    if not documents and not uris:
        return {"role": entry["role"], "content": entry["content"]}
    parts: list[dict[str, Any]] = [_text(entry["content"])]
    if documents:
        parts.append(_text(render_documents(documents)))
    parts.extend(image_content_block(uri) for uri in uris)
    return {"role": entry["role"], "content": parts}


def _expand_document_first(entry: Mapping[str, Any], mark: bool = False) -> Message:
    """One transcript entry with its documents (marked for the prompt cache with ``mark``, then a part of
    their own) and images before its text."""
    documents, uris = entry.get("documents"), _uris(entry)
    if not documents and not uris:
        return {"role": entry["role"], "content": entry["content"]}
    block = render_documents(documents).lstrip("\n") if documents else ""
    if not uris and not (mark and block):
        return {"role": entry["role"], "content": f"{block}\n\n{entry['content']}"}
    parts = ([{**_text(block), **(CACHE_MARK if mark else {})}] if block else []) \
        + [image_content_block(uri) for uri in uris]
    return {"role": entry["role"], "content": [*parts, _text(entry["content"])]}


def _layout(expand: Callable[..., Message], *, system: str | None, user: str,
            history: list[Mapping[str, Any]] | None = None, documents: list[Any] | None = None,
            file_uri: str | list[str] | None = None, mark: bool = False) -> list[Message]:
    """The messages of one target call: system prompt, then the transcript (or the user turn), expanded; with
    ``mark``, the first turn that carries documents has them marked for the provider's prompt cache."""
    messages: list[Message] = [{"role": "system", "content": system}] if system else []
    entries = history or [{"role": "user", "content": user, "documents": documents, "file_uri": file_uri}]
    first = next((i for i, entry in enumerate(entries) if entry.get("documents")), None) if mark else None
    messages.extend(expand(entry, i == first) for i, entry in enumerate(entries))
    return messages


#: simpleaudit 0.4.2's message list for one target call.
stock_messages = partial(_layout, _expand)
#: The same messages with each turn's documents before its question (the prompt-cache layout).
document_first_messages = partial(_layout, _expand_document_first)


STOCK, DOCUMENT_FIRST = "stock", "document-first"
#: Message layouts by name (``stock`` is simpleaudit's own), the values of ``--prompt-order``.
LAYOUTS: dict[str, Callable[..., list[Message]]] = {STOCK: stock_messages, DOCUMENT_FIRST: document_first_messages}


def flat_messages(messages: list[Message]) -> list[Message]:
    """The same messages for Ollama's native API: text parts joined into one string, images as base64."""
    flat: list[Message] = []
    for message in messages:
        content = message["content"]
        if isinstance(content, str):
            flat.append({"role": message["role"], "content": content})
            continue
        text = "".join(part["text"] for part in content if part.get("type") == "text")
        images = [_data_uri_payload(part["image_url"]["url"]) for part in content if part.get("type") == "image_url"]
        entry: Message = {"role": message["role"], "content": text}
        if images:
            entry["images"] = images
        flat.append(entry)
    return flat


def _data_uri_payload(uri: str) -> str:
    """The base64 payload of a ``data:`` URI (what Ollama's ``images`` field takes)."""
    if not (uri.startswith("data:") and "," in uri):
        raise ValueError(f"image part is not a data: URI: {uri[:40]}")
    return uri.split(",", 1)[1]
