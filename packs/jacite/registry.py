"""Which articles exist: a per-law index built from a jacite registry.json or the bundled 民法 file.

:class:`LawIndex` holds, for one law, the ids the two grading modes resolve
citations against. ``registry_to_manifest`` and ``registry_from_manifest`` carry
it through a pack manifest (``grading.registry``), so grading needs no source file.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path
from typing import Any, Iterable, Mapping

from auditpacks.packs.jacite.citations import article_ids_from_title, normalise_article_ref
from auditpacks.core.errors import PackError
from auditpacks.core.io import read_json

BUNDLED_MINPO = Path(str(files("auditpacks.packs") / "data" / "minpo.json"))
DELETED_AS = ("real", "invented")


@dataclass(frozen=True)
class LawIndex:
    """The articles of one law.

    ``ids``: every main-provision article (deleted placeholders included, ranges
    expanded, all branch levels). ``upstream_ids``: jacite-bench's identity set
    (its normaliser over every title, 附則 included). ``deleted``: ids of deleted
    placeholders, None when the source does not say. ``supplementary``: ids of 附則 articles.
    """

    law_id: str
    title: str
    ids: frozenset[str]
    upstream_ids: frozenset[str]
    deleted: frozenset[str] | None
    supplementary: frozenset[str] = frozenset()

    def existing(self, mode: str = "full", deleted_as: str = "real", *, supplementary: bool = False) -> frozenset[str]:
        """The ids a citation resolves against; ``deleted_as="invented"`` drops deleted placeholders."""
        if deleted_as not in DELETED_AS:
            raise ValueError(f"unknown deleted_as {deleted_as!r}; expected one of {', '.join(DELETED_AS)}")
        base = self.upstream_ids if mode == "upstream" else self.supplementary if supplementary else self.ids
        if deleted_as == "real" or (supplementary and mode != "upstream"):
            return base
        if self.deleted is None:
            raise PackError(f"registry of law {self.law_id}: deleted placeholders are not marked, "
                            "so deleted_as='invented' cannot be applied")
        return base - self.deleted


def id_sort_key(article_id: str) -> tuple:
    """Numeric order for canonical ids ("2" < "2-2" < "10"); anything else after, by text."""
    parts = article_id.split("-")
    return (0, tuple(int(p) for p in parts), "") if all(p.isdigit() for p in parts) else (1, (), article_id)


def _sorted(ids: Iterable[str]) -> list[str]:
    return sorted(ids, key=id_sort_key)


def registry_to_manifest(index: Mapping[str, LawIndex]) -> dict[str, Any]:
    """The JSON-ready ``grading.registry`` block of a pack manifest (lists in numeric id order)."""
    return {
        law_id: {
            "title": law.title,
            "ids": _sorted(law.ids),
            "upstream_ids": _sorted(law.upstream_ids),
            "deleted": None if law.deleted is None else _sorted(law.deleted),
            "supplementary_ids": _sorted(law.supplementary),
        }
        for law_id, law in sorted(index.items())
    }


def registry_from_manifest(manifest: Mapping[str, Any] | None) -> dict[str, LawIndex]:
    """The registry a jacite pack manifest carries in ``grading.registry``."""
    block = ((manifest or {}).get("grading") or {}).get("registry")
    if not isinstance(block, Mapping) or not block:
        raise PackError("pack manifest: field grading.registry is missing; build the pack with the jacite builder")
    index = {}
    for law_id, law in block.items():
        where = f"pack manifest: grading.registry[{law_id!r}]"
        if not isinstance(law, Mapping):
            raise PackError(f"{where} is not an object")
        for key in ("ids", "upstream_ids", "supplementary_ids"):
            if not isinstance(law.get(key), list):
                raise PackError(f"{where} field {key!r} is missing or not a list")
        if law.get("deleted") is not None and not isinstance(law["deleted"], list):
            raise PackError(f"{where} field 'deleted' is neither a list nor null")
        index[law_id] = LawIndex(
            law_id=law_id, title=str(law.get("title", "")), ids=frozenset(law["ids"]),
            upstream_ids=frozenset(law["upstream_ids"]),
            deleted=None if law.get("deleted") is None else frozenset(law["deleted"]),
            supplementary=frozenset(law["supplementary_ids"]),
        )
    return index


def load_registry(path: str | os.PathLike | None = None) -> dict[str, LawIndex]:
    """law_id → LawIndex from a jacite ``registry.json`` or a 民法-style file (default: the bundled one)."""
    path = Path(path) if path is not None else BUNDLED_MINPO
    data = read_json(path, "registry file")
    if isinstance(data, Mapping) and isinstance(data.get("laws"), list):
        return {law.law_id: law for law in (_from_registry_law(path.name, i, x) for i, x in enumerate(data["laws"]))}
    if isinstance(data, Mapping) and "law_id" in data and isinstance(data.get("articles"), list):
        law = _from_law_text(path.name, data)
        return {law.law_id: law}
    raise PackError(f"{path.name}: neither a registry (field 'laws') nor a law text (fields 'law_id', 'articles')")


def _field(where: str, record: Any, key: str) -> str:
    value = record.get(key) if isinstance(record, Mapping) else None
    if not isinstance(value, str):
        raise PackError(f"{where} field {key!r} is missing or not a string")
    return value


def is_deleted_text(text: Any) -> bool:
    """Whether an article's text is a deletion placeholder ("削除", brackets and spaces aside)."""
    return isinstance(text, str) and text.strip(" \u3000\n（）()「」") == "削除"


def _marks(article: Mapping[str, Any]) -> tuple[bool | None, bool | None]:
    """(deleted, supplementary) as an entry marks them: ``deleted``/``supplementary`` flags, or a
    ``text`` (or caption) that is "削除"; None where the entry says nothing."""
    deleted = article.get("deleted")
    if not isinstance(deleted, bool):
        text = article.get("text")
        deleted = True if is_deleted_text(text) or is_deleted_text(article.get("caption")) else (
            False if isinstance(text, str) else None)
    supplementary = article.get("supplementary")
    return deleted, supplementary if isinstance(supplementary, bool) else None


def _from_registry_law(name: str, i: int, law: Any) -> LawIndex:
    """A registry.json law. Entries that mark themselves (``supplementary``, ``deleted`` or a "削除"
    ``text``, as ``auditpacks registry jacite`` writes them) are read as marked. Otherwise main
    provisions come first and their titles rise, and the first title that does not rise starts the
    supplementary provisions; deleted placeholders are then unknown (``deleted`` None)."""
    law_id = _field(f"{name}: laws[{i}]", law, "law_id")
    if not isinstance(law.get("articles"), list):
        raise PackError(f"{name}: laws[{i}] (law_id {law_id}) field 'articles' is missing or not a list")
    titles = [_field(f"{name}: laws[{i}] (law_id {law_id}) articles[{j}]", a, "article")
              for j, a in enumerate(law["articles"])]
    main, suppl, deleted, last, marked = set(), set(), set(), None, False
    for title, article in zip(titles, law["articles"]):
        ids = article_ids_from_title(title)
        if not ids:
            continue
        is_deleted, is_suppl = _marks(article)
        marked = marked or is_deleted is not None
        keys = [id_sort_key(x) for x in ids]
        if is_suppl is None:
            is_suppl = bool(suppl) or not (last is None or keys[0] > last)
        if is_suppl:
            suppl.update(ids)
            continue
        main.update(ids)
        last = keys[-1]
        if is_deleted:
            deleted.update(ids)
    upstream = {normalise_article_ref(t, "upstream") for t in titles} - {None}
    return LawIndex(law_id, str(law.get("title", "")), frozenset(main), frozenset(upstream),
                    frozenset(deleted) if marked else None, frozenset(suppl))


def law_text_articles(data: Mapping[str, Any], name: str = "law text") -> list[dict[str, Any]]:
    """A 民法-style law text's articles as jacite registry entries, in document order.

    Each expanded deleted range or pair (``range_deleted``) is folded back into one
    entry titled with its ``range_heading`` and caption "", as e-Gov lists it. Entries
    keep ``supplementary`` and ``deleted`` flags beside ``article`` and ``caption``.
    """
    if not isinstance(data.get("articles"), list):
        raise PackError(f"{name}: field 'articles' is missing or not a list")
    out: list[dict[str, Any]] = []
    for j, entry in enumerate(data["articles"]):
        title = _field(f"{name}: articles[{j}]", entry, "article")
        if entry.get("range_deleted"):
            heading = _field(f"{name}: articles[{j}]", entry, "range_heading")
            if out and out[-1]["article"] == heading:
                continue
            title, caption = heading, ""
        else:
            caption = entry.get("caption") if isinstance(entry.get("caption"), str) else ""
        out.append({"article": title, "caption": caption, "supplementary": bool(entry.get("supplementary")),
                    "deleted": bool(entry.get("deleted"))})
    return out


def _from_law_text(name: str, data: Mapping[str, Any]) -> LawIndex:
    """A 民法-style law text (``packs/data/minpo.json``), whose deleted placeholders are marked."""
    law_id = _field(name, data, "law_id")
    main, suppl, deleted, titles = set(), set(), set(), []
    for entry in law_text_articles(data, name):
        ids = article_ids_from_title(entry["article"])
        if not ids:
            raise PackError(f"{name}: article {entry['article']!r} names no article")
        titles.append(entry["article"])
        (suppl if entry["supplementary"] else main).update(ids)
        if entry["deleted"] and not entry["supplementary"]:
            deleted.update(ids)
    upstream = {normalise_article_ref(t, "upstream") for t in titles} - {None}
    return LawIndex(law_id, str(data.get("title", "")), frozenset(main), frozenset(upstream),
                    frozenset(deleted), frozenset(suppl))
