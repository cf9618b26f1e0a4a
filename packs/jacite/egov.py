"""Build jacite-bench's registry of 11 laws from the e-Gov Law API v2.

``auditpacks registry jacite --out registry.json [--from DIR] [--api URL] [--laws ID,ID,…]``

Each law is ``GET {api}/law_data/{law_id}`` (or ``DIR/{law_id}.json``, a saved response).
Its ``law_full_text`` is a tree of ``{"tag", "attr", "children"}`` nodes; every
``Article`` is listed in document order (MainProvision, then each SupplProvision)
with its title and caption, as jacite-bench's registry lists them, and marked:
``supplementary`` (with the 附則's ``amend_law_num``) and ``deleted`` (its text is
"削除"). Captions keep Ruby base text whole (jacite-bench cut them at the first Ruby
node). The registry records each law's revision id and update time, so it is versioned.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping

from auditpacks.core.errors import PackError
from auditpacks.core.io import atomic_write_json, read_json
from auditpacks.packs.jacite.registry import is_deleted_text

API = "https://laws.e-gov.go.jp/api/2"
SOURCE = "e-Gov Law API v2"
_SKIP_TEXT = {"Rt"}  # Ruby readings: not part of the written text


def text_of(node: Any) -> str:
    """All text under a node, Ruby readings left out."""
    if isinstance(node, str):
        return node
    if not isinstance(node, Mapping) or node.get("tag") in _SKIP_TEXT:
        return ""
    return "".join(text_of(child) for child in node.get("children") or [])


def _child(node: Mapping[str, Any], tag: str) -> Mapping[str, Any] | None:
    return next((c for c in node.get("children") or [] if isinstance(c, Mapping) and c.get("tag") == tag), None)


def _articles(node: Any, suppl: Mapping[str, Any] | None = None) -> Iterator[dict[str, Any]]:
    if not isinstance(node, Mapping):
        return
    tag = node.get("tag")
    if tag == "SupplProvision":
        suppl = node
    if tag == "Article":
        title, caption = _child(node, "ArticleTitle"), _child(node, "ArticleCaption")
        body = "".join(text_of(c) for c in node.get("children") or []
                       if isinstance(c, Mapping) and c.get("tag") == "Paragraph")
        entry = {"article": text_of(title).strip() if title else "", "caption": text_of(caption).strip() if caption else "",
                 "supplementary": suppl is not None, "deleted": is_deleted_text(body)}
        if suppl is not None:
            entry["amend_law_num"] = (suppl.get("attr") or {}).get("AmendLawNum") or ""
        yield entry
        return
    for child in node.get("children") or []:
        yield from _articles(child, suppl)


def law_entry(response: Any, law_id: str, name: str) -> dict[str, Any]:
    """One registry law from a ``law_data`` response; a response of another shape is a one-line error."""
    if not isinstance(response, Mapping) or not isinstance(response.get("law_full_text"), Mapping):
        raise PackError(f"{name}: not an e-Gov law_data response (no law_full_text object)")
    revision = response.get("revision_info") or {}
    info = response.get("law_info") or {}
    if info.get("law_id") not in (None, law_id):
        raise PackError(f"{name}: field law_info.law_id is {info.get('law_id')!r}, expected {law_id}")
    articles = list(_articles(response["law_full_text"]))
    untitled = next((i for i, a in enumerate(articles) if not a["article"]), None)
    if untitled is not None:
        raise PackError(f"{name}: article #{untitled} has no ArticleTitle text")
    if not articles:
        raise PackError(f"{name}: law_full_text holds no Article")
    title = revision.get("law_title") or text_of(_find(response["law_full_text"], "LawTitle")).strip()
    return {"law_id": law_id, "title": title, "revision_id": revision.get("law_revision_id"),
            "updated": revision.get("updated"), "articles": articles}


def _find(node: Any, tag: str) -> Any:
    if not isinstance(node, Mapping):
        return None
    if node.get("tag") == tag:
        return node
    return next((found for c in node.get("children") or [] if (found := _find(c, tag)) is not None), None)


def http_fetch(api: str, timeout: float = 60.0) -> Callable[[str], tuple[Any, str]]:
    def fetch(law_id: str) -> tuple[Any, str]:
        url = f"{api.rstrip('/')}/law_data/{law_id}"
        try:
            with urllib.request.urlopen(url, timeout=timeout) as response:
                return json.loads(response.read().decode("utf-8")), url
        except (urllib.error.URLError, TimeoutError, json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise PackError(f"{url}: cannot fetch the law ({type(exc).__name__}: {exc}); "
                            "save the responses and pass --from DIR") from None
    return fetch


def folder_fetch(folder: Path) -> Callable[[str], tuple[Any, str]]:
    def fetch(law_id: str) -> tuple[Any, str]:
        path = Path(folder) / f"{law_id}.json"
        return read_json(path, "saved law_data response"), path.name
    return fetch


def build_registry(laws: list[str], fetch: Callable[[str], tuple[Any, str]], *, origin: str) -> dict[str, Any]:
    entries = []
    for law_id in laws:
        response, name = fetch(law_id)
        entries.append(law_entry(response, law_id, name))
    return {"source": SOURCE, "origin": origin,
            "retrieved": dt.datetime.now(dt.timezone.utc).replace(microsecond=0).isoformat(), "laws": entries}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", type=Path, required=True, help="registry.json to write")
    parser.add_argument("--from", dest="folder", type=Path,
                        help="folder of saved law_data responses named {law_id}.json (no network)")
    parser.add_argument("--api", default=API, help=f"e-Gov Law API v2 base URL (default {API})")
    parser.add_argument("--laws", help="comma-separated e-Gov law ids (default: the card's 11 laws)")


def main(args: argparse.Namespace) -> int:
    from auditpacks.packs.codebook import section

    laws = [x.strip() for x in args.laws.split(",") if x.strip()] if args.laws else [
        law["law_id"] for law in section("jacite")["laws"]]
    fetch = folder_fetch(args.folder) if args.folder else http_fetch(args.api)
    registry = build_registry(laws, fetch, origin="saved responses" if args.folder else args.api)
    atomic_write_json(args.out, registry)
    counts = ", ".join(f"{law['title']} {len(law['articles'])}" for law in registry["laws"])
    print(f"wrote {args.out}: {len(registry['laws'])} laws ({counts} articles)")
    return 0
