"""The chat messages a target sends, laid out exactly as simpleaudit's ``ModelTarget`` does.

``stock_messages`` is the one place that layout lives: the system prompt first, then
the transcript so far (``history``, which already ends with the current user turn),
or the user turn alone when there is no history. Documents on a user turn become
extra text content parts after the prompt (``"\\n--- DOCUMENT 1 ---\\n…"``, only
each document's text, never its marks) and images come last as ``image_url`` parts.
Keys other than ``role`` and ``content`` (a stored ``decision``, ``reasoning``) are
not sent. Another layout (say, documents first) would be a second function beside
this one, registered in ``LAYOUTS``.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

from simpleaudit.context_marks import render_documents
from simpleaudit.utils import image_content_block

Message = dict[str, Any]


def _expand(entry: Mapping[str, Any]) -> Message:
    """One transcript entry as a provider message: text, then documents, then images."""
    documents = entry.get("documents")
    uris = entry.get("file_uri")
    uris = [uris] if isinstance(uris, str) else list(uris or [])
    if not documents and not uris:
        return {"role": entry["role"], "content": entry["content"]}
    parts: list[dict[str, Any]] = [{"type": "text", "text": entry["content"]}]
    if documents:
        parts.append({"type": "text", "text": render_documents(documents)})
    parts.extend(image_content_block(uri) for uri in uris)
    return {"role": entry["role"], "content": parts}


def stock_messages(
    *,
    system: str | None,
    user: str,
    history: list[Mapping[str, Any]] | None = None,
    documents: list[Any] | None = None,
    file_uri: str | list[str] | None = None,
) -> list[Message]:
    """simpleaudit 0.4.2's message list for one target call."""
    messages: list[Message] = [{"role": "system", "content": system}] if system else []
    if history:
        messages.extend(_expand(entry) for entry in history)
    else:
        messages.append(_expand({"role": "user", "content": user, "documents": documents, "file_uri": file_uri}))
    return messages


#: Message layouts by name (``stock`` is simpleaudit's own).
LAYOUTS: dict[str, Callable[..., list[Message]]] = {"stock": stock_messages}


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
