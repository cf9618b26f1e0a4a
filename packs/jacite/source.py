"""jacite-bench sources: the dataset's registry.json and questions.json, or the bundled 民法 registry.

The dataset (``raihan-js/jacite-bench``) holds ``registry.json`` (laws → article titles and
captions, from the e-Gov Law API v2), ``questions.json`` and ``benchmark.json``. Without it,
the bundled ``packs/data/minpo.json`` (民法 from e-Gov, 2024) is turned into a registry of
the same shape: one entry per article title, deleted ranges collapsed back into one heading.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path
from typing import Any

from auditpacks.core.errors import PackError

from auditpacks.core.io import read_json

from auditpacks.packs.pack import source_entry
from auditpacks.packs.sources import Source

BUNDLED_REGISTRY = "minpo.json"
QUESTION_FIELDS = ("id", "language", "law", "law_id", "article", "question", "gold_article")


def bundled_registry_path() -> Path:
    return Path(str(files("auditpacks.packs") / "data" / BUNDLED_REGISTRY))


def registry_from_minpo(data: dict[str, Any], name: str = BUNDLED_REGISTRY) -> dict[str, Any]:
    """The bundled 民法 file as a jacite registry: titles and captions in document order."""
    from auditpacks.packs.jacite.registry import law_text_articles

    articles = [{"article": a["article"], "caption": a["caption"]} for a in law_text_articles(data, name)]
    law = {"law_id": data.get("law_id"), "title": data.get("title"), "revision_id": data.get("source"),
           "articles": articles}
    return {"source": data.get("source"), "laws": [law]}


def validate_registry(data: Any, name: str) -> dict[str, Any]:
    """Check a registry.json's shape; every problem names the law and article."""
    if not isinstance(data, dict):
        raise PackError(f"{name}: a registry is a JSON object with a 'laws' list")
    for li, law in enumerate(_list_field(data, "laws", name)):
        if not isinstance(law, dict):
            raise PackError(f"{name}: law #{li} is {'null' if law is None else 'a ' + type(law).__name__}, not an object")
        for key in ("law_id", "title"):
            if not isinstance(law.get(key), str) or not law[key]:
                raise PackError(f"{name}: law #{li} field {key!r} is missing or not a string")
        for ai, article in enumerate(_list_field(law, "articles", f"{name}: law {law['law_id']}")):
            if not isinstance(article, dict) or not isinstance(article.get("article"), str):
                raise PackError(f"{name}: law {law['law_id']} article #{ai} field 'article' is missing or not a string")
            if not isinstance(article.get("caption", ""), str):
                raise PackError(f"{name}: law {law['law_id']} article #{ai} field 'caption' is not a string")
    return data


def validate_questions(data: Any, name: str) -> list[dict[str, Any]]:
    if not isinstance(data, list):
        raise PackError(f"{name}: questions are a JSON list")
    for i, question in enumerate(data):
        if not isinstance(question, dict):
            raise PackError(f"{name}: record #{i} is not an object")
        for key in QUESTION_FIELDS:
            if not isinstance(question.get(key), str) or not question[key]:
                raise PackError(f"{name}: record #{i} ({question.get('id', '?')}) field {key!r} is missing or empty")
    return data


def _list_field(obj: dict[str, Any], key: str, where: str) -> list[Any]:
    value = obj.get(key) if isinstance(obj, dict) else None
    if not isinstance(value, list):
        raise PackError(f"{where}: field {key!r} is missing or not a list")
    return value


def load(source: Source | None) -> tuple[dict[str, Any], list[dict[str, Any]] | None, list[dict[str, Any]], Path]:
    """(registry, questions or None, manifest source entries, registry path) for a source or the bundle."""
    if source is None:
        path = bundled_registry_path()
        data = read_json(path)
        if not isinstance(data, dict):
            raise PackError(f"{path.name}: expected an object with 'articles'")
        registry = registry_from_minpo(data, path.name)
        return registry, None, [source_entry(path, name=f"packs/data/{path.name}", origin="bundled")], path
    registry_path = source.file("registry.json")
    registry = validate_registry(read_json(registry_path), registry_path.name)
    entries = [source_entry(registry_path, origin=source.origin)]
    questions = None
    questions_path = source.file("questions.json")
    if questions_path.is_file():
        questions = validate_questions(read_json(questions_path), questions_path.name)
        entries.append(source_entry(questions_path, origin=source.origin))
    return registry, questions, entries, registry_path
