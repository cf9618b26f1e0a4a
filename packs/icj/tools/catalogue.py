"""Tool names, descriptions and JSON schemas, and the conditions that expose them.

The default conditions are the card's three settings, its Cypher + Semantic in two forms: **Cypher +
Lexical** (passage search is BM25 over the cut corpus; always available) and **Cypher + Semantic**
(vector search over the copy's passage vectors, which needs them and a query encoder). A
benchmark copy's ``protocol/conditions.json`` replaces the defaults: its condition names are kept,
and its tools must be ones implemented here (its JSON schemas are used when it gives them, each checked
at load by :mod:`~auditpacks.packs.icj.tools.schemas`).
"""

from __future__ import annotations

import inspect
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from auditpacks.core.errors import FormatError
from auditpacks.packs.icj.tools import cypher, schemas
from auditpacks.packs.icj.tools.lookups import LIST_CAP, PASSAGE_CAP, Lookups


def _str(description: str) -> dict:
    return {"type": "string", "description": description, "minLength": 1, "maxLength": 2000}


def _limit(cap: int) -> dict:
    return {"type": "integer", "minimum": 1, "maximum": cap, "description": f"at most {cap}"}


def _schema(required: dict, optional: dict | None = None) -> dict:
    return {"type": "object", "properties": {**required, **(optional or {})}, "required": list(required),
            "additionalProperties": False}


QUERY = {"query": _str("words to look for")}
#: name → (description, JSON schema, how to call it on a snapshot)
TOOLS: dict[str, tuple[str, dict, Callable]] = {
    "get_schema": ("The graph's node and relationship tables and their properties.", _schema({}),
                   lambda s, **a: cypher.schema(s)),
    "run_cypher": ("Run one read-only Cypher query on the citation graph (rows capped, time-limited).",
                   _schema({"query": _str("a read-only Cypher query")}), lambda s, **a: cypher.run_query(s, **a)),
    "search_passages": ("Lexical (BM25) search over passages of decisions, pleadings and UN resolutions.",
                        _schema(QUERY, {"limit": _limit(cypher.SEARCH_CAP)}),
                        lambda s, **a: cypher.search_passages(s, **a)),
    "semantic_search": ("Search passages of decisions, pleadings and UN resolutions by meaning (embeddings).",
                        _schema(QUERY, {"limit": _limit(cypher.SEARCH_CAP)}), None),
    "find_case": ("Find cases by words of their name or by case id.", _schema(QUERY, {"limit": _limit(LIST_CAP)}),
                  None),
    "get_case": ("A case and its documents.", _schema({"case_id": _str("three-digit case id, e.g. 070")}), None),
    "get_case_citations": ("What a case's documents cite, and which documents cite the case.",
                           _schema({"case_id": _str("three-digit case id")}), None),
    "find_document": ("Find documents by words of their passages, optionally within one case.",
                      _schema(QUERY, {"case_id": _str("three-digit case id"), "limit": _limit(PASSAGE_CAP)}), None),
    "get_document": ("A document with the cases, provisions and resolutions it cites and its judges.",
                     _schema({"document_id": _str("document id")}), None),
    "get_passages": ("The passages of one document, in order.",
                     _schema({"document_id": _str("document id")}, {"limit": _limit(PASSAGE_CAP)}), None),
    "find_provision": ("Find legal provisions by key, instrument or words, e.g. 'charter 51'.",
                       _schema(QUERY, {"limit": _limit(LIST_CAP)}), None),
    "get_provision": ("A provision and the documents citing it.",
                      _schema({"provision_key": _str("e.g. statute:article_36")}), None),
    "find_resolution": ("Find UN resolutions by symbol or words of their title.",
                        _schema(QUERY, {"limit": _limit(LIST_CAP)}), None),
    "get_resolution": ("A UN resolution, the resolutions it cites and is cited by, and the documents citing it.",
                       _schema({"symbol": _str("e.g. A/RES/2625(XXV)")}), None),
    "find_judge": ("Find judges by name or nationality.", _schema(QUERY, {"limit": _limit(LIST_CAP)}), None),
    "get_judge": ("A judge and the documents the judge sat on.", _schema({"judge_id": _str("judge id")}), None),
}
CYPHER_TOOLS = ["get_schema", "run_cypher", "search_passages"]
DESIGNED_TOOLS = [n for n in TOOLS if n not in CYPHER_TOOLS and n != "semantic_search"]
DEFAULT_CONDITIONS = {"Parametric": [], "Cypher + Lexical": CYPHER_TOOLS, "Designed Tools Only": DESIGNED_TOOLS,
                      "Cypher + Semantic": CYPHER_TOOLS}
#: tools answered otherwise in a default condition: the model still sees ``search_passages``
DEFAULT_ALIASES = {"Cypher + Semantic": {"search_passages": "semantic_search"}}
#: what each default condition's search is, for the run record
SEARCH_KIND = {"Parametric": None, "Cypher + Lexical": "bm25 (lexical), cut corpus", "Designed Tools Only":
               "bm25 (lexical), cut corpus", "Cypher + Semantic": "vector (cosine), cut corpus"}
#: the tool that needs passage vectors and a query encoder
SEMANTIC = "semantic_search"


@dataclass(frozen=True)
class Tool:
    """A tool as the model sees it (``name``, ``description``, ``parameters``) and the tool that answers it."""

    name: str
    description: str
    parameters: dict
    implementation: str = ""

    @property
    def does(self) -> str:
        return self.implementation or self.name

    def openai(self) -> dict:
        return {"type": "function", "function": {"name": self.name, "description": self.description,
                                                 "parameters": self.parameters}}

    def function(self, snapshot, semantic=None) -> Callable[..., Any]:
        """The callable answering this tool on ``snapshot`` (``semantic``: the vector search, when there is one)."""
        if self.does == SEMANTIC:
            if semantic is None:
                raise FormatError("semantic search needs passage vectors in the graph copy and a query encoder")
            return semantic.search
        call = TOOLS[self.does][2]
        if call is not None:
            return lambda **args: call(snapshot, **args)
        return getattr(Lookups(snapshot), self.does)


def _parameters_of(name: str) -> set[str]:
    call = TOOLS[name][2]
    if call is None and hasattr(Lookups, name):
        return set(inspect.signature(getattr(Lookups, name)).parameters) - {"self"}
    return set(TOOLS[name][1]["properties"])


def _tool_name(entry: Any) -> Any:
    """A tool entry's name: the entry itself, its ``name`` (``tool``, ``id``), or an OpenAI ``function``'s."""
    if isinstance(entry, dict):
        if isinstance(entry.get("function"), dict):
            return _tool_name(entry["function"])
        return next((entry[k] for k in ("name", "tool", "id") if k in entry), None)
    return entry


def _tool(entry: Any, where: str, aliases: dict[str, str] | None = None) -> Tool:
    if isinstance(entry, dict) and isinstance(entry.get("function"), dict):
        entry = entry["function"]
    name = _tool_name(entry)
    does = (aliases or {}).get(name, name) if isinstance(name, str) else name
    if not isinstance(name, str) or does not in TOOLS:
        raise FormatError(f"{where}: tool {name!r} is not one auditpacks implements ({', '.join(TOOLS)}); "
                          "map it to one with --tool-alias NAME=TOOL")
    description, parameters, _ = TOOLS[does]
    if isinstance(entry, dict):
        description = entry.get("description") or description
        given = entry.get("parameters") or entry.get("input_schema") or parameters
        unknown = set((given.get("properties") or {})) - _parameters_of(does) if isinstance(given, dict) else {1}
        if unknown:
            raise FormatError(f"{where}: tool {name} takes {sorted(_parameters_of(does))}, "
                              f"not {sorted(map(str, unknown))}")
        if given is not parameters:
            schemas.check(given, f"{where}: tool {name}")
        parameters = given
    return Tool(name, description, parameters, does)


def parse_aliases(values: list[str]) -> dict[str, str]:
    """``["THEIRS=OURS", ...]`` from ``--tool-alias`` as a mapping; a malformed one is one line."""
    out = {}
    for value in values:
        theirs, sep, ours = value.partition("=")
        if not sep or not theirs.strip() or ours.strip() not in TOOLS:
            raise FormatError(f"--tool-alias {value!r}: expected NAME=TOOL with TOOL one of {', '.join(TOOLS)}")
        out[theirs.strip()] = ours.strip()
    return out


_CONDITION_KEYS = ("name", "condition", "id", "setting")
_TOOLS_KEYS = ("tools", "tool_names", "functions", "allowed_tools")


def _tools_of(value: Any) -> list | None:
    """A condition's tool list: a list, or an object holding one under ``tools`` (``functions``, ...)."""
    if isinstance(value, dict):
        value = next((value[k] for k in _TOOLS_KEYS if k in value), None)
    return value if isinstance(value, list) else None


def condition_lists(data: Any, where: str) -> dict[str, list]:
    """Condition → its tool entries, from a conditions file read by content: an object of condition →
    tools (or → an object with ``tools``), the same under ``conditions``, a list of condition objects
    (``name``/``condition`` and ``tools``), or a plain list of tool names (one condition, ``tools``)."""
    inner = data.get("conditions") if isinstance(data, dict) else None
    if isinstance(inner, dict) or (isinstance(inner, list) and inner and all(
            isinstance(e, dict) and _tools_of(e) is not None for e in inner)):
        data = inner
    if isinstance(data, list) and all(isinstance(e, str) or (isinstance(e, dict) and _tool_name(e) is not None
                                                             and _tools_of(e) is None) for e in data):
        return {"tools": data}
    if isinstance(data, list):
        out = {}
        for i, entry in enumerate(data):
            name = next((entry[k] for k in _CONDITION_KEYS if isinstance(entry, dict) and k in entry), None)
            tools = _tools_of(entry)
            if not isinstance(name, str) or tools is None:
                raise FormatError(f"{where}: condition #{i} has no name and tool list (expected "
                                  f"{{'name': ..., 'tools': [...]}})")
            out[name] = tools
        return out
    if not isinstance(data, dict):
        raise FormatError(f"{where}: expected condition → tools, a list of conditions or a list of tool names")
    out = {}
    for condition, value in data.items():
        tools = _tools_of(value)
        if tools is None:
            raise FormatError(f"{where}: condition {condition!r} holds no list of tools")
        out[str(condition)] = tools
    return out


def conditions(protocol: Path | None = None, aliases: dict[str, str] | None = None) -> dict[str, list[Tool]]:
    """Condition name → its tools: from ``protocol/conditions.json`` when given and present, else the defaults.

    ``aliases`` maps a tool name of the copy to the tool here that answers it; the model sees the copy's name.
    Every tool the file names that is not implemented here is named in one line."""
    path = Path(protocol) / "conditions.json" if protocol else None
    if path is None or not path.is_file():
        return {c: [_tool(n, "defaults", DEFAULT_ALIASES.get(c)) for n in names]
                for c, names in DEFAULT_CONDITIONS.items()}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError:
        raise FormatError(f"{path}: not valid JSON") from None
    lists = condition_lists(data, str(path))
    unknown = [(c, n) for c, entries in lists.items() for n in map(_tool_name, entries)
               if not isinstance(n, str) or (aliases or {}).get(n, n) not in TOOLS]
    if unknown:
        named = ", ".join(f"{n!r} ({c})" for c, n in unknown)
        raise FormatError(f"{path}: {len(unknown)} tool{'s' if len(unknown) > 1 else ''} not implemented here: "
                          f"{named}; map each with --tool-alias NAME=TOOL (tools: {', '.join(TOOLS)})")
    return {c: [_tool(entry, f"{path}: condition {c!r}", aliases) for entry in entries]
            for c, entries in lists.items()}
