"""``auditpacks tools BENCHMARK run``: a pack under one of the benchmark's tool conditions, on any
OpenAI-compatible endpoint.

The benchmark's plugin (its registry ``tools`` entry) gives the condition: per scenario the tool box
(cut at the scenario's cutoff), the grader and the instructions; ``args.encode`` is the query encoder
for tools that search by vector (``--embeddings-url``), or None. Every model call goes through the one
model-call path with a response cache (``<out>/responses/`` unless ``--no-response-cache``), so a
repeated or interrupted run replays the steps it has seen without new requests. The run writes the
results, the traces, the condition's facts and the typed run record (which names the condition); while it
runs, progress lines and the heartbeat go to stderr as for ``run``.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import os
import time
from pathlib import Path

from auditpacks.core.defaults import MAX_TOKENS
from auditpacks.core.errors import UserError
from auditpacks.core.runs.run_files import record_name

RESPONSES = "responses"


def add_run_arguments(action: argparse.ArgumentParser) -> None:
    action.add_argument("--pack", type=Path, required=True, help="a pack of this benchmark (auditpacks build)")
    action.add_argument("--condition", required=True, help="the tool condition (the plugin's names; see its docs)")
    where = action.add_mutually_exclusive_group(required=True)
    where.add_argument("--base-url", help="OpenAI-compatible endpoint, e.g. http://127.0.0.1:8080/v1")
    where.add_argument("--embedded", action="store_true", help="the embedded model (plumbing checks only)")
    action.add_argument("--target", help="model name (with --base-url)")
    action.add_argument("--api-key-env", help="environment variable holding the API key")
    action.add_argument("--max-steps", type=int, default=8, help="model calls that may ask for tools (default 8)")
    action.add_argument("--max-tokens", type=int, help="output-token cap per model call (default: the pack's "
                        f"run settings, else {MAX_TOKENS})")
    action.add_argument("--limit", type=int, help="first N scenarios only")
    action.add_argument("--out", type=Path, required=True, help="folder for results, traces, run record and cache")
    action.add_argument("--fresh", action="store_true", help="start over instead of resuming the folder's journal")
    action.add_argument("--embeddings-url", help="OpenAI-compatible embeddings endpoint for tools that search by "
                        "vector (the model that made the copy's vectors)")
    action.add_argument("--embeddings-model", help="embedding model name (with --embeddings-url)")
    action.add_argument("--no-response-cache", action="store_true",
                        help=f"ask the model every step again instead of replaying {RESPONSES}/ in --out")


def run(args, plugin) -> int:
    from auditpacks.packs.pack import load_pack
    from auditpacks.runner.display.progress import ProgressPrinter
    from auditpacks.runner.settings.config import model_stem
    from auditpacks.runner.tools.tool_record import tool_run_record
    from auditpacks.runner.tools.tool_run import run_with_tools
    from auditpacks.runner.tools.embeddings import endpoint_encoder
    from auditpacks.runner.tools.tool_loop import ToolLoop, endpoint_model

    if args.max_steps < 0:
        raise UserError(f"--max-steps {args.max_steps}: must be 0 or more")
    if args.base_url and not args.target:
        raise UserError("--target MODEL is needed with --base-url")
    if bool(args.embeddings_url) != bool(args.embeddings_model):
        raise UserError("--embeddings-url and --embeddings-model go together")
    key = os.environ.get(args.api_key_env) if args.api_key_env else None
    args.encode = endpoint_encoder(args.embeddings_url, args.embeddings_model, api_key=key) \
        if args.embeddings_url else None
    pack = load_pack(args.pack)
    setup = plugin.setup(args, pack)
    scenarios = pack.scenarios[: args.limit]  # None: all of them
    max_tokens = args.max_tokens or int(((pack.manifest or {}).get("run") or {}).get("max_tokens") or MAX_TOKENS)
    started, clock = dt.datetime.now(dt.timezone.utc), time.monotonic()
    with contextlib.ExitStack() as stack:
        if args.embedded:
            from auditpacks.runner.serving.embedded import EmbeddedModel

            server = stack.enter_context(EmbeddedModel())
            base_url, model = server.base_url, EmbeddedModel.model
        else:
            base_url, model = args.base_url, args.target
        cache = None if args.no_response_cache else args.out / RESPONSES
        loop = ToolLoop(endpoint_model(base_url, model, api_key=key, cache=cache), max_steps=args.max_steps,
                        max_tokens=max_tokens, final_nudge=setup.final_nudge)
        stack.callback(loop.close)
        stem = model_stem(model)
        setup.info.update({"pack": pack.path.name, "pack_sha256": pack.sha256, "max_steps": args.max_steps,
                           "max_tokens": max_tokens, "model": model, "base_url": base_url})
        progress = stack.enter_context(ProgressPrinter(len(scenarios), label=setup.condition.name))
        progress.start([])
        counts, results = run_with_tools(scenarios, loop, setup, out=args.out, stem=stem, fresh=args.fresh,
                                         on_done=progress.update)
        requests = dict(loop.model.counts)
    parameters = {"condition": setup.condition.name, "max_steps": args.max_steps, "max_tokens": max_tokens,
                  "temperature": 0.0, "limit": args.limit}
    record = tool_run_record(pack, scenarios, results, stem=stem, judge=setup.judge, condition=setup.condition,
                             model=model, base_url=base_url, embedded=args.embedded, parameters=parameters,
                             started=started, seconds=time.monotonic() - clock, resumed=counts["resumed"],
                             model_counts=requests)
    record.save(args.out / record_name(stem))
    print(f"{setup.condition.name}: {counts['scenarios']} scenarios ({counts['resumed']} resumed), "
          f"{counts['tool_calls']} tool calls, {counts['leaks_refused']} results withheld by the guard, "
          f"{counts['errors']} errors; {requests['requests']} model requests, {requests['cache_hits']} replayed "
          f"-> {args.out}")
    return 3 if counts["errors"] else 0
