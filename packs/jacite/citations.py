"""Japanese statute article citations: numerals, mentions in text, canonical ids.

A canonical id is the article number in Arabic digits with each の-branch level
joined by ``-``: 第五百四十一条 → ``"541"``, 第三百九十八条の二十二 → ``"398-22"``,
第二百五十二条の十七の二 → ``"252-17-2"``.

Two extractors live here, chosen by ``mode``:

* ``"full"`` (ours): kanji (with 〇, 零 and 万), ASCII and full-width numerals,
  の-branches at any depth, forms without 第 (民法541条, 541条), ``Article``,
  ``Art.``, ``Articles … and …`` lists, ranges, and 附則 (supplementary
  provision) mentions tagged apart. The choices are written down in
  ``docs/jacite-grading.md``.
* ``"upstream"``: jacite-bench's corrected published extractor, quirks included
  (one left-to-right regex, its own numeral reader, 附則 not told apart).

:func:`extract_citations_v1` reproduces jacite-bench's first-release extractor
(grouped by pattern, a phantom prefix for each branch), as far as it is known.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterator

from auditpacks.packs.jacite.numerals import article_number, check_mode, kanji_to_int, upstream_int

SUPPLEMENTARY_PREFIX = "附則"

# -- citations ----------------------------------------------------------------


@dataclass(frozen=True)
class Citation:
    """One article mention: canonical ``id``, whether it names a 附則 article, and its ``span`` in the text."""

    id: str
    supplementary: bool
    span: tuple[int, int]

    @property
    def key(self) -> str:
        """The id as counted in ``cited`` lists: 附則 articles carry the prefix ``附則`` ("附則1")."""
        return SUPPLEMENTARY_PREFIX + self.id if self.supplementary else self.id


_KANJI = "〇零一二三四五六七八九十百千万"
_JOIN = "\u200b"  # stands in for a line break inside 第…条 (see _prepare); same length, so spans hold
_SP = rf"[ \t\u3000{_JOIN}]*"
_NUM = rf"[{_KANJI}\d{_JOIN}]++"
_JO = "[条條]"  # 條: the traditional form
_HYPHEN = "[-‐‑−]"  # ASCII, hyphen, non-breaking hyphen, minus (full-width － is read as ASCII)
_BRANCH = rf"(?:{_SP}[のノ]{_SP}{_NUM}(?![部分つ人回件個]))*"  # の一部 / の三分の一 are not branches
_NOT_WORD = r"(?![件約理項目規文]|例(?!え))"  # 第一条件, 3条例, 条約 … are not articles (but 第三条例えば is)
_CAPTION = r"[（(][^（）()\n]{1,40}[）)]"  # （催告による解除）, (termination)
_SUPPL_EN = r"(?i:supplementary\s+provisions?)"
_EN_NUM = r"\d++(?:-\d++)*"
_EN_PARAGRAPH = r"\s*\(\s*\w{1,4}\s*\)"  # (2), (iii), (a)
_EN_SEPARATOR = r"\s*(?:,|and\b|or\b|&|to\b|through\b|[–—~〜～])\s*(?:and\s+|or\s+)?"
_LIST_CONNECTOR = (r"(?:(?<=法)|(?<=[、，,・とや~〜])|(?<=及び)|(?<=および)|(?<=並びに)|(?<=ならびに)|(?<=又は)|(?<=または)"
                   r"|(?<=若しくは)|(?<=もしくは)|(?<=から)|(?<=ないし))")
_FULL_RE = re.compile("|".join((
    # 第…条 (附則 …第…条 tagged): 第五百四十一条, 第５４１条, 附則第一条
    rf"(?P<suppl>附{_SP}則{_SP}(?:[（(][^）)\n]{{0,40}}[）)]{_SP})?)?第{_SP}(?P<ja>{_NUM}(?:{_HYPHEN}{_NUM})*){_SP}{_JO}{_NOT_WORD}(?P<jab>{_BRANCH})",
    # Articles 541, 542 and 543 / Arts. 541 to 543 (… of the Supplementary Provisions)
    rf"(?P<enpre>{_SUPPL_EN},?\s+)?(?<![A-Za-z])(?:(?i:articles)|(?i:arts)\.)\s*"
    rf"(?P<enlist>{_EN_NUM}(?:\s*{_CAPTION}|{_EN_SEPARATOR}{_EN_NUM})*)(?P<enlistpost>\s+of\s+(?:the\s+)?{_SUPPL_EN})?",
    # Article 541-2 / Art. 541 (… of the Supplementary Provisions)
    rf"(?P<enpre1>{_SUPPL_EN},?\s+)?(?<![A-Za-z])(?:(?i:article)\s+|(?i:art)\.\s*)(?P<en>{_EN_NUM})"
    rf"(?:{_EN_PARAGRAPH})*(?P<enpost>\s+of\s+(?:the\s+)?{_SUPPL_EN})?",
    # 541条, 民法541条
    rf"(?<![\d第.．\-‐‑−])(?P<bare>\d++(?:{_HYPHEN}\d++)*){_SP}{_JO}{_NOT_WORD}(?P<bareb>{_BRANCH})",
    # 民法五百四十一条, 第五百四十一条、五百四十二条 (the list case is checked in code)
    rf"{_LIST_CONNECTOR}{_SP}(?P<kanji>[{_KANJI}]++){_JO}{_NOT_WORD}(?P<kanjib>{_BRANCH})",
)))
_EN_TOKEN = re.compile(rf"(?P<num>{_EN_NUM})|{_EN_PARAGRAPH}|(?P<range>\bto\b|\bthrough\b|[–—~〜～])")
_SUFFIX = rf"(?:{_SP}第{_SP}{_NUM}{_SP}[項号])*(?:{_SP}(?:本文|ただし書|前段|後段|柱書))?"
_CONNECTORS = "及び|および|並びに|ならびに|又は|または|若しくは|もしくは|、|，|,|・|と|や|から|ないし|〜|~"
_CHAIN = re.compile(rf"{_SUFFIX}(?:{_SP}{_CAPTION})?{_SP}(?P<conn>{_CONNECTORS}){_SP}")
_UNTIL = re.compile(rf"{_SUFFIX}{_SP}まで")
_RANGE_CONNECTORS = ("ないし", "〜", "~")  # ～ (full-width) is read as ~
_MAX_RANGE = 1000


@dataclass
class _Mention:
    parts: tuple[int, ...]
    supplementary: bool
    span: tuple[int, int]
    range_from_previous: bool = False


def _parts(number: str, branch: str = "") -> tuple[int, ...] | None:
    """第415-2条 and 第四百十五条の二 alike: the hyphenated levels of the number, then its の/ノ branches."""
    number, branch = number.replace(_JOIN, ""), branch.replace(_JOIN, "")
    values = [kanji_to_int(n) for n in re.split(_HYPHEN, number)] + [kanji_to_int(b) for b in re.findall(_NUM, branch)]
    return None if None in values else tuple(values)


def _english(m: re.Match, supplementary: bool) -> Iterator[_Mention]:
    range_next = False
    base = m.start("enlist")
    listed = re.sub(_CAPTION, lambda c: " " * len(c.group()), m.group("enlist"))  # captions hold no article
    for token in _EN_TOKEN.finditer(listed):
        if token.group("range"):
            range_next = True
        elif token.group("num"):
            parts = tuple(article_number(p) for p in token.group("num").split("-"))
            span = (base + token.start(), base + token.end())
            yield _Mention(parts, supplementary, span, range_next)
            range_next = False


_FULLWIDTH = {code: code - 0xFEE0 for code in range(0xFF01, 0xFF5F)}  # ＡＢ１２（） → AB12()
_BROKEN = re.compile(rf"第(?:[{_KANJI}\d \t\u3000]|\r?\n){{1,24}}?{_JO}")


def _prepare(text: str) -> str:
    """Full-width ASCII forms as ASCII, and line breaks inside a 第…条 citation as joiners (same length)."""
    text = text.translate(_FULLWIDTH)
    return _BROKEN.sub(lambda m: m.group().replace("\r", _JOIN).replace("\n", _JOIN), text) if "\n" in text else text


def _mentions(text: str) -> Iterator[_Mention]:
    text = _prepare(text)
    previous: _Mention | None = None
    for m in _FULL_RE.finditer(text):
        kind = next(k for k in ("ja", "enlist", "en", "bare", "kanji") if m.group(k) is not None)
        if kind == "enlist":
            yield from _english(m, bool(m.group("enpre") or m.group("enlistpost")))
            previous = None
            continue
        if kind == "en":
            parts = tuple(article_number(p) for p in m.group("en").split("-"))
            previous = None
            yield _Mention(parts, bool(m.group("enpre1") or m.group("enpost")), m.span("en"))
            continue
        parts = _parts(m.group(kind), m.group(kind + "b"))
        start = m.start() if kind != "kanji" else m.start("kanji")
        chain = _CHAIN.fullmatch(text, previous.span[1], start) if previous else None
        if kind == "kanji" and not text[m.start() - 1:m.start()] == "法" and chain is None:
            continue  # a bare kanji numeral counts only after a law name or inside a list of articles
        if parts is None:
            continue
        mention = _Mention(parts, bool(m.group("suppl")) or bool(chain and previous.supplementary),
                           (start, m.end()))
        if chain is not None:
            conn = chain.group("conn")
            mention.range_from_previous = conn in _RANGE_CONNECTORS or (
                conn == "から" and _UNTIL.match(text, m.end()) is not None)
        previous = mention
        yield mention


def _canonical(parts: tuple[int, ...]) -> str:
    return "-".join(str(p) for p in parts)


def _between(a: tuple[int, ...], b: tuple[int, ...]) -> list[tuple[int, ...]]:
    """The articles strictly inside a range a..b: same branch prefix, last level counted up."""
    if len(a) != len(b) or a[:-1] != b[:-1] or not 0 < b[-1] - a[-1] <= _MAX_RANGE:
        return []
    return [a[:-1] + (n,) for n in range(a[-1] + 1, b[-1])]


def find_citations(text: str | None, mode: str = "full", *, expand_ranges: bool = False) -> list[Citation]:
    """Every article mention in ``text``, in text order, duplicates kept.

    A range (第N条から第M条まで, ``Articles N to M``) gives its two ends; with
    ``expand_ranges`` the articles in between are added (full mode, same branch prefix).
    """
    if not text:
        return []
    if mode == "upstream":
        return list(_upstream_citations(text))
    check_mode(mode)
    found: list[Citation] = []
    previous: _Mention | None = None
    for mention in _mentions(text):
        if expand_ranges and mention.range_from_previous and previous is not None:
            span = (previous.span[0], mention.span[1])
            found += [Citation(_canonical(p), mention.supplementary, span) for p in _between(previous.parts, mention.parts)]
        found.append(Citation(_canonical(mention.parts), mention.supplementary, mention.span))
        previous = mention
    return found


def extract_citations(text: str | None, mode: str = "full", *, expand_ranges: bool = False) -> list[str]:
    """The canonical ids of every article mention (``Citation.key``: 附則 articles as "附則1")."""
    return [c.key for c in find_citations(text, mode, expand_ranges=expand_ranges)]


# -- jacite-bench's extractors ---------------------------------------------------

_U_NUM = "[零一二三四五六七八九十百千\\d]+"
_U_CITATION = re.compile(rf"第({_U_NUM})条((?:の{_U_NUM})*)|Article\s+(\d+(?:-\d+)*)", re.IGNORECASE)
_U_ENGLISH = re.compile(r"Article\s+(\d+(?:-\d+)*)", re.IGNORECASE)
_U_BRANCH_ONE = re.compile(rf"第({_U_NUM})条の({_U_NUM})")
_U_PLAIN = re.compile(rf"第({_U_NUM})条")


def _upstream_citations(text: str) -> Iterator[Citation]:
    for m in _U_CITATION.finditer(text):
        if m.group(3) is not None:
            yield Citation(m.group(3), False, m.span())
            continue
        values = [upstream_int(m.group(1))] + [upstream_int(b) for b in re.findall(f"の({_U_NUM})", m.group(2))]
        if None not in values:
            yield Citation("-".join(map(str, values)), False, m.span())


def extract_citations_v1(text: str | None) -> list[str]:
    """jacite-bench's first-release extractor: three passes (の-branch, plain, English), grouped by pass.

    The plain pass also matches the prefix of every branch citation, so 第二条の二
    gives "2-2" and a phantom "2". Branches keep one level, as the normaliser did.
    """
    if not text:
        return []
    found = []
    for m in _U_BRANCH_ONE.finditer(text):
        base, branch = upstream_int(m.group(1)), upstream_int(m.group(2))
        if base is not None and branch is not None:
            found.append(f"{base}-{branch}")
    found += [str(n) for m in _U_PLAIN.finditer(text) if (n := upstream_int(m.group(1))) is not None]
    return found + [m.group(1) for m in _U_ENGLISH.finditer(text)]


# -- registry titles ----------------------------------------------------------------

_CANONICAL = re.compile(r"\d+(?:-\d+)*")


def normalise_article_ref(ref: str | None, mode: str = "full") -> str | None:
    """One canonical id for a reference or registry title, or None.

    Upstream: jacite-bench's rules (first match from the start; one branch level;
    a range or list gives its first number). Full: bare ids ("415-2") and numerals
    ("五百四十一") as such, otherwise the first article the reference names.
    """
    if not ref or not isinstance(ref, str):
        return None
    ref = ref.strip()
    if mode == "upstream":
        return _normalise_upstream(ref)
    check_mode(mode)
    if _CANONICAL.fullmatch(ref):
        return _canonical(tuple(article_number(p) for p in ref.split("-")))
    if (number := kanji_to_int(ref.removesuffix("条"))) is not None:
        return str(number)
    found = find_citations(ref)
    return found[0].key if found else None


def _normalise_upstream(ref: str) -> str | None:
    if m := re.match(r"Article\s+(\d+)(?:-(\d+))?", ref, re.IGNORECASE):
        return f"{m[1]}-{m[2]}" if m[2] else m[1]
    if m := re.match(rf"第({_U_NUM})条の({_U_NUM})", ref):
        base, branch = upstream_int(m[1]), upstream_int(m[2])
        return f"{base}-{branch}" if base is not None and branch is not None else None
    if m := re.match(rf"第({_U_NUM})条", ref) or re.match(r"^([零一二三四五六七八九十百千]+)条$", ref):
        number = upstream_int(m[1])
        return None if number is None else str(number)
    m = re.match(r"^(\d+)$", ref)
    return m[1] if m else None


def article_ids_from_title(title: str) -> list[str]:
    """Every article a registry title denotes (full mode): ranges expanded, lists split, all branch levels."""
    return [c.id for c in find_citations(title, "full", expand_ranges=True)]
