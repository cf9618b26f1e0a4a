"""``auditpacks icj-tools run``: an ICJ pack under a tool condition, on any OpenAI-compatible endpoint.

Each scenario's tools see the snapshot for its ``metadata.cutoff_date`` (its decision date). The
results file is graded by the ``citations`` grader and records the condition, so ``export icj``
writes prediction records under the condition's name and ``score icj`` compares it per condition.
"""

from __future__ import annotations

import argparse
import contextlib
import os
from pathlib import Path

from auditpacks.core.defaults import MAX_TOKENS
from auditpacks.core.errors import UserError

SYSTEM = ("Tools are available for looking up the International Court of Justice's cases, documents, legal "
          "provisions, judges and UN resolutions as they stood before the decision in question. Use them as "
          "you see fit. When you are done, reply with only one JSON object holding citation_case_ids, "
          "citation_provision_keys and citation_resolution_symbols (lists of strings).")


def add_run_arguments(action: argparse.ArgumentParser) -> None:
    action.add_argument("--pack", type=Path, required=True, help="an ICJ pack (auditpacks build icj)")
    action.add_argument("--condition", required=True, help="a condition of --protocol's conditions.json, else "
                        "one of: Parametric, Cypher + Lexical, Designed Tools Only")
    action.add_argument("--protocol", type=Path, help="the benchmark's protocol/ folder (conditions.json)")
    action.add_argument("--tool-alias", action="append", default=[], metavar="NAME=TOOL",
                        help="answer the copy's tool NAME with TOOL (repeatable)")
    where = action.add_mutually_exclusive_group(required=True)
    where.add_argument("--base-url", help="OpenAI-compatible endpoint, e.g. http://127.0.0.1:8080/v1")
    where.add_argument("--embedded", action="store_true", help="the embedded model (plumbing checks only)")
    action.add_argument("--target", help="model name (with --base-url)")
    action.add_argument("--api-key-env", help="environment variable holding the API key")
    action.add_argument("--max-steps", type=int, default=8, help="model calls that may ask for tools (default 8)")
    action.add_argument("--max-tokens", type=int, help="output-token cap per model call (default: the pack's "
                        f"run settings, else {MAX_TOKENS})")
    action.add_argument("--limit", type=int, help="first N scenarios only")
    action.add_argument("--out", type=Path, required=True, help="folder for results, traces and tool info")
    action.add_argument("--fresh", action="store_true", help="start over instead of resuming the folder's journal")


def run(args, graph) -> int:
    from auditpacks.judges.icj.citations import DEFAULT_PASS_F1, citation_verdict
    from auditpacks.packs.icj.graph.snapshot import snapshot_for
    from auditpacks.packs.icj.tools.catalogue import SEARCH_KIND, conditions, parse_aliases
    from auditpacks.packs.icj.tools.toolbox import ToolBox
    from auditpacks.packs.pack import load_pack
    from auditpacks.runner.execution.config import model_stem
    from auditpacks.runner.execution.tool_run import run_with_tools
    from auditpacks.runner.targets.tool_loop import ToolLoop

    known = conditions(args.protocol, parse_aliases(args.tool_alias))
    if args.condition not in known:
        raise UserError(f"--condition {args.condition!r}: not one of {', '.join(known)}")
    if args.max_steps < 0:
        raise UserError(f"--max-steps {args.max_steps}: must be 0 or more")
    tools = known[args.condition]
    pack = load_pack(args.pack)
    scenarios = pack.scenarios[: args.limit] if args.limit else pack.scenarios
    pass_f1 = float(((pack.manifest or {}).get("grading") or {}).get("pass_f1", DEFAULT_PASS_F1))
    cache = args.cache
    max_tokens = args.max_tokens or int(((pack.manifest or {}).get("run") or {}).get("max_tokens") or MAX_TOKENS)

    def toolbox_for(scenario):
        if not tools:
            return None
        cutoff = (scenario.get("metadata") or {}).get("cutoff_date")
        if not cutoff:
            raise UserError(f"{scenario['name']}: no metadata.cutoff_date; tools need the decision date")
        return ToolBox(snapshot_for(graph, cutoff, cache), tools)

    info = {"pack": pack.name, "pack_sha256": pack.sha256, "graph_source_hash": graph.source_hash,
            "tools": {t.name: t.does for t in tools}, "max_steps": args.max_steps,
            "max_tokens": max_tokens,
            "search": SEARCH_KIND.get(args.condition, "bm25 (lexical), cut corpus" if tools else None)}
    with contextlib.ExitStack() as stack:
        if args.embedded:
            from auditpacks.runner.serving.embedded import EmbeddedModel

            server = stack.enter_context(EmbeddedModel())
            base_url, model = server.base_url, EmbeddedModel.model
        else:
            if not args.target:
                raise UserError("--target MODEL is needed with --base-url")
            base_url, model = args.base_url, args.target
        key = os.environ.get(args.api_key_env) if args.api_key_env else None
        loop = ToolLoop(base_url, model, api_key=key, max_steps=args.max_steps, max_tokens=max_tokens)
        counts = run_with_tools(scenarios, loop, toolbox_for=toolbox_for,
                                grade=lambda s, r: citation_verdict(s, r, pass_f1=pass_f1), out=args.out,
                                stem=model_stem(model), condition=args.condition, system=SYSTEM if tools else None,
                                info={**info, "model": model, "base_url": base_url}, fresh=args.fresh)
    print(f"{args.condition}: {counts['scenarios']} scenarios ({counts['resumed']} resumed), "
          f"{counts['tool_calls']} tool calls, "
          f"{counts['leaks_refused']} results withheld by the guard, {counts['errors']} errors "
          f"-> {args.out}")
    return 3 if counts["errors"] else 0
