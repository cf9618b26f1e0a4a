"""The ICJ card's tool conditions for ``auditpacks tools icj``: Parametric, Cypher + Lexical, Cypher + Semantic,
Designed Tools Only.

The registry's ``tools`` entry for ICJ. ``setup(args, pack)`` gives the runner one condition: each
scenario's tools read the snapshot of the graph at its ``metadata.cutoff_date`` (its decision date),
the final reply is graded by the ``citations`` grader, and the run record names the condition, its
tools, its search and the cutoff policy. ``describe``, ``snapshot`` and ``leak-audit`` are the
graph's own commands (:mod:`auditpacks.packs.icj.tools.commands`).
"""

from __future__ import annotations

from typing import Any, Mapping

from auditpacks.core.condition import Condition, ToolSetup
from auditpacks.core.errors import UserError
from auditpacks.packs.icj.tools.commands import ACTIONS, add_arguments, default_cache, main

__all__ = ["ACTIONS", "add_arguments", "main", "setup"]

SYSTEM = ("Tools are available for looking up the International Court of Justice's cases, documents, legal "
          "provisions, judges and UN resolutions as they stood before the decision in question. Use them as "
          "you see fit. When you are done, reply with only one JSON object holding citation_case_ids, "
          "citation_provision_keys and citation_resolution_symbols (lists of strings).")
FINAL_NUDGE = ("The tool budget is spent. Reply now with only the final JSON object: citation_case_ids, "
               "citation_provision_keys and citation_resolution_symbols.")
CUTOFF_POLICY = ("per target: a read-only snapshot of the graph holding only material dated strictly before its "
                 "decision date (metadata.cutoff_date); every tool result checked against that date before the "
                 "model sees it")


def setup(args, pack) -> ToolSetup:
    """The condition ``args.condition`` over the graph copy ``args.graph``, for the scenarios of ``pack``."""
    from auditpacks.judges.icj.citations import DEFAULT_PASS_F1, citation_verdict
    from auditpacks.packs.icj.graph.reader import read_graph
    from auditpacks.packs.icj.graph.snapshot import snapshot_for
    from auditpacks.packs.icj.graph.vectors import vectors_for
    from auditpacks.packs.icj.tools.catalogue import SEARCH_KIND, SEMANTIC, conditions, parse_aliases
    from auditpacks.packs.icj.tools.semantic import Semantic
    from auditpacks.packs.icj.tools.toolbox import ToolBox

    known = conditions(args.protocol, parse_aliases(args.tool_alias))
    if args.condition not in known:
        raise UserError(f"--condition {args.condition!r}: not one of {', '.join(known)}")
    graph = read_graph(args.graph, args.mapping, allow_partial=getattr(args, "allow_partial", False))
    tools = known[args.condition]
    cache = args.cache or default_cache()
    pass_f1 = float(((pack.manifest or {}).get("grading") or {}).get("pass_f1", DEFAULT_PASS_F1))

    semantic = any(t.does == SEMANTIC for t in tools)
    if semantic:
        _check_semantic(args, graph)

    def toolbox_for(scenario: Mapping[str, Any]):
        if not tools:
            return None
        cutoff = (scenario.get("metadata") or {}).get("cutoff_date")
        if not cutoff:
            raise UserError(f"{scenario['name']}: no metadata.cutoff_date; tools need the decision date")
        snapshot = snapshot_for(graph, cutoff, cache)
        return ToolBox(snapshot, tools, Semantic(vectors_for(graph, snapshot), args.encode) if semantic else None)

    search = SEARCH_KIND.get(args.condition, "bm25 (lexical), cut corpus") if tools else None
    if semantic:
        search = f"vector (cosine over the copy's passage vectors), query encoder {args.embeddings_model}, cut corpus"
    condition = Condition(name=args.condition, tools={t.name: t.does for t in tools}, search=search,
                          cutoff_policy=CUTOFF_POLICY if tools else None)
    return ToolSetup(condition, toolbox_for, lambda s, r: citation_verdict(s, r, pass_f1=pass_f1), judge="citations",
                     system=SYSTEM if tools else None, final_nudge=FINAL_NUDGE,
                     info={"graph_source_hash": graph.source_hash, "graph_read_report": graph.report})


def _check_semantic(args, graph) -> None:
    """A semantic condition needs the copy's passage vectors and a query encoder that gives vectors of their
    length; else one line naming the fallback, before any model request."""
    from auditpacks.packs.icj.graph.vectors import vector_dimensions

    what = f"--condition {args.condition!r}"
    dimensions = vector_dimensions(graph.vector_sources) if graph.vector_sources else None
    if dimensions is None:
        column = ", ".join(sorted({s.vector_column for s in graph.vector_sources.values()}))
        raise UserError(f"{what}: the graph copy holds no passage vectors (a list-of-floats column beside "
                        f"passage_id{'; ' + column + ' is empty' if column else ''}); run 'Cypher + Lexical' instead")
    if getattr(args, "encode", None) is None:
        raise UserError(f"{what}: searching by vector needs --embeddings-url and "
                        "--embeddings-model (the model that made the copy's vectors)")
    try:
        probe = args.encode("passage vectors: a probe of the query encoder")
    except Exception as exc:  # noqa: BLE001 - any failure of the endpoint is the same refusal
        reason = str(exc).strip().splitlines()[0][:200] if str(exc).strip() else type(exc).__name__
        raise UserError(f"{what}: the embeddings endpoint gives no query vector ({reason})") from None
    if len(probe) != dimensions:
        raise UserError(f"{what}: the embeddings model gives {len(probe)}-dimensional vectors, the copy's passage "
                        f"vectors have {dimensions}; give the model that made them (--embeddings-model)")
