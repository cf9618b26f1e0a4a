"""jacite-bench sources: the dataset's registry.json and questions, or the bundled 民法 registry.

The dataset (``raihan-js/jacite-bench``) holds ``registry.json`` (laws → article titles and
captions, from the e-Gov Law API v2), ``questions.json`` and ``benchmark.json``: at the top of
an ``hf download`` copy, under ``data/`` (``data/results/benchmark.json``) in a clone of the
benchmark's GitHub repository. Which registry file is used is decided by its content. The
questions may also be JSON Lines or parquet (``questions.jsonl``, ``questions/*.parquet``, ...;
:func:`auditpacks.packs.tables.table_files`), read whole; one that cannot be read stops the build
(it never falls back to questions made from the registry). Without a registry file,
the bundled ``packs/data/minpo.json`` (民法 from e-Gov, 2024) is turned into a registry of
the same shape: one entry per article title, deleted ranges collapsed back into one heading.
"""

from __future__ import annotations

import re
from importlib.resources import files
from pathlib import Path
from typing import Any

from auditpacks.core.errors import PackError
from auditpacks.core.io import read_json
from auditpacks.packs.pack import source_entry
from auditpacks.packs.sources import Source
from auditpacks.packs.readreport import ReadReport, data_files
from auditpacks.packs.tables import LocalTable, table_files

BUNDLED_REGISTRY = "minpo.json"
#: What a question must carry: its text and its gold article (``gold_article``, else read from ``article``).
#: Everything else is optional: the law joins on ``law_id``, else on the law's name, else on the
#: registry's only law; the language defaults to the script of the question; the id to its position.
QUESTION_FIELDS = ("question",)
#: Where each file lies: the HF dataset's layout first, then a clone of the GitHub repository.
PLACES = {"registry.json": ("registry.json", "data/registry.json")}
_JAPANESE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff]")


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


def join_law(record: dict[str, Any], laws: list[dict[str, Any]], where: str,
             english: dict[str, str] | None = None) -> dict[str, Any]:
    """The registry law a question or benchmark row is about: by ``law_id``, else by the law's name
    (Japanese title or English name), else the registry's only law; otherwise a one-line error."""
    by_id = {law["law_id"]: law for law in laws}
    law_id = record.get("law_id")
    if law_id is not None:
        if not isinstance(law_id, str) or law_id not in by_id:
            raise PackError(f"{where}: field 'law_id' {law_id!r} is not a law of the registry")
        return by_id[law_id]
    name = record.get("law")
    if name is not None and not isinstance(name, str):
        raise PackError(f"{where}: field 'law' is {type(name).__name__}, not a law's name")
    english = english or {}
    named = [law for law in laws if name is not None and name in (law.get("title"), english.get(law["law_id"]))]
    if len(named) == 1:
        return named[0]
    if len(laws) == 1 and name is None:
        return laws[0]
    raise PackError(f"{where}: cannot tell which law it is about (no law_id; law {name!r} "
                    f"{'names several' if named else 'names none'} of the registry's {len(laws)} laws)")


def validate_questions(data: Any, name: str, registry: dict[str, Any],
                       english: dict[str, str] | None = None) -> list[dict[str, Any]]:
    """Questions with ``id``, ``language``, ``law_id``, ``law`` and ``gold_article`` filled in (see QUESTION_FIELDS)."""
    from auditpacks.packs.jacite.citations import normalise_article_ref

    if not isinstance(data, list):
        raise PackError(f"{name}: questions are a JSON list")
    out = []
    for i, question in enumerate(data):
        if not isinstance(question, dict):
            raise PackError(f"{name}: record #{i} is not an object")
        where = f"{name}: record #{i} ({question.get('id', '?')})"
        for key in QUESTION_FIELDS:
            if not isinstance(question.get(key), str) or not question[key]:
                raise PackError(f"{where} field {key!r} is missing or empty")
        law = join_law(question, registry["laws"], where, english)
        gold = question.get("gold_article") or normalise_article_ref(question.get("article"), "upstream")
        if not isinstance(gold, str) or not gold:
            raise PackError(f"{where} field 'gold_article' is missing (and no 'article' title to read it from)")
        language = question.get("language") or ("ja" if _JAPANESE.search(question["question"]) else "en")
        out.append({**question, "id": str(question.get("id") or f"q{i:04d}"), "language": language,
                    "law_id": law["law_id"], "law": question.get("law") or law["title"],
                    "article": question.get("article") or gold, "gold_article": gold})
    return out


def _list_field(obj: dict[str, Any], key: str, where: str) -> list[Any]:
    value = obj.get(key) if isinstance(obj, dict) else None
    if not isinstance(value, list):
        raise PackError(f"{where}: field {key!r} is missing or not a list")
    return value


def load(source: Source | None, english: dict[str, str] | None = None, report: ReadReport | None = None,
         ) -> tuple[dict[str, Any], list[dict[str, Any]] | None, list[dict[str, Any]], Path]:
    """(registry, questions or None, manifest source entries, registry path) for a source or the bundle;
    ``report``: what was read (articles of the registry, questions) and every questions or registry file
    left out, recorded for :mod:`auditpacks.packs.readreport`."""
    if source is None:
        path = bundled_registry_path()
        data = read_json(path)
        if not isinstance(data, dict):
            raise PackError(f"{path.name}: expected an object with 'articles'")
        registry = registry_from_minpo(data, path.name)
        return registry, None, [source_entry(path, name=f"packs/data/{path.name}", origin="bundled")], path
    registry_path, data = locate(source, "registry.json", _is_registry)
    registry = validate_registry(data, registry_path.name)
    entries = [source_entry(registry_path, name=_relative(source, registry_path), origin=source.origin)]
    if report is not None:
        report.table("registry", [registry_path], sum(len(law["articles"]) for law in registry["laws"]))
        for place in PLACES["registry.json"]:
            if source.file(place).is_file() and source.file(place) != registry_path:
                report.skip(source.file(place), f"{_relative(source, registry_path)} was read instead", data=False)
    questions = None
    files = table_files(source.root, "questions")
    if files:
        label = _relative(source, files[0]) if len(files) == 1 else f"questions ({len(files)} files)"
        data = list(LocalTable(files, label, root=source.root).rows())
        if not data:
            raise PackError(f"{label}: read 0 questions (an empty table); remove it to use questions made "
                            "from the registry")
        questions = validate_questions(data, label, registry, english)
        entries += [source_entry(p, name=_relative(source, p), origin=source.origin) for p in files]
        if report is not None:
            report.table("questions", files, len(data))
    if report is not None:
        report.skip_unread([p for p in data_files(source.root) if "question" in p.name or "registry" in p.name],
                           "not the questions table read")
    return registry, questions, entries, registry_path


def _is_registry(data: Any) -> bool:
    return isinstance(data, dict) and isinstance(data.get("laws"), list)


def _relative(source: Source, path: Path) -> str:
    return path.relative_to(source.root).as_posix()


def locate(source: Source, name: str, fits) -> tuple[Path, Any]:
    """(path, parsed content) of the first of ``PLACES[name]`` whose content ``fits``; otherwise one line
    naming the folder and every place looked at (and why a file there was not taken)."""
    looked = []
    first: tuple[Path, Any] | None = None
    for place in PLACES[name]:
        path = source.file(place)
        if not path.is_file():
            looked.append(f"{place} (absent)")
            continue
        data = read_json(path)
        if fits(data):
            return path, data
        looked.append(f"{place} (not a jacite {name.removesuffix('.json')} file)")
        first = first or (path, data)
    if first is not None:  # only files of the wrong shape: let validation say what is wrong with the first
        return first
    where = source.origin if source.origin != "local" else str(source.root)
    raise PackError(f"{name}: not found in {where}; looked at {', '.join(looked)} "
                    "(an `hf download` copy or a clone of the benchmark's repository with its data/ folder)")
