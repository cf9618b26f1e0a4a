"""Run a scenario pack with SimpleAudit, with the flags the benchmark cards use.

    python runner/run_simpleaudit.py --smoke --target gpt-4o-mini
    python runner/run_simpleaudit.py --per-question 1 --target qwen3:8b --base-url http://localhost:11434/v1 --api-key local
    python runner/run_simpleaudit.py --smoke --decision ollama --target clef --base-url http://localhost:11434
    python runner/run_simpleaudit.py --smoke --pack jacite.json             # any local pack; no --target: embedded model

Without ``--pack`` it uses the pack of the card an installed benchmark declares (its plugin's ``card``:
repository and file names; ``--card NAME`` picks one when several do): a local copy when there is one (the card's
``hf download`` layout, or a pack built with ``auditpacks build``, in the current folder),
else the published file (the smoke file for ``--smoke``) from Hugging Face's cache or
the hub. Offline, or when the hub cannot be reached, it stops within seconds with one
line saying what to do. Same code as ``auditpacks run``; results go to
``results/<pack>/<run id>/`` (``results/<pack>/latest`` is the run finished last), and, as the card says,
also to ``results/<model>.json`` (``qwen3:8b`` → ``qwen3_8b.json``; without ``--out``), so
``AuditResults.load("results/qwen3_8b.json")`` reads them.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from pathlib import Path

try:  # light imports only: the pack is found (or refused) before simpleaudit's slow import
    from auditpacks.core.errors import PackError, UserError, fail
    from auditpacks.core.benchmark import Card
    from auditpacks.core.registry import BENCHMARKS, card_benchmark
    from auditpacks.core.arg_types import plain
    from auditpacks.runner.cli.run_args import add_run_arguments, config_from_args
except ModuleNotFoundError as exc:  # a plain script outside an installed auditpacks
    sys.exit(f"run_simpleaudit.py: {exc}; install auditpacks first (pip install . or python3 scripts/bootstrap.py setup)")

REACH_TIMEOUT = 3.0
CARD_RESULTS = Path("results")  # the card: "saves every conversation to results/<model>.json"


def local_pack(card: Card, smoke: bool, folder: Path = Path(".")) -> Path | None:
    """A local copy of the card's pack: its files as ``hf download`` lays them out, or a pack built here.
    For ``--smoke`` a built pack counts only with its manifest (which names the smoke set): a plain full
    file has none, and the card's smoke file is then taken from the cache or the hub."""
    from auditpacks.packs.stream import manifest_path

    for name in card.local_smoke if smoke else ():
        if (folder / name).is_file():
            return folder / name
    for name in card.local_built:
        if (folder / name).is_file() and (not smoke or manifest_path(folder / name).is_file()):
            return folder / name
    return None


def hub_unreachable() -> str | None:
    """Why the hub cannot be asked right now (offline mode, or no connection within seconds), or None."""
    import os
    import socket
    from urllib.parse import urlsplit

    if os.environ.get("HF_HUB_OFFLINE", "").lower() in ("1", "true", "yes", "on"):
        return "HF_HUB_OFFLINE is set and the file is not in the Hugging Face cache"
    endpoint = urlsplit(os.environ.get("HF_ENDPOINT") or "https://huggingface.co")
    host, port = endpoint.hostname or "huggingface.co", endpoint.port or (443 if endpoint.scheme == "https" else 80)
    try:
        socket.create_connection((host, port), timeout=REACH_TIMEOUT).close()
    except OSError as exc:
        return f"cannot reach {host}:{port} ({type(exc).__name__}: {exc})"
    return None


def card_pack(benchmark: str, card: Card, smoke: bool) -> Path:
    """The card's published pack: from the Hugging Face cache, else the hub (gated: accepted terms, `hf auth login`)."""
    from huggingface_hub import hf_hub_download

    filename = card.smoke_file if smoke else card.full_file
    try:
        return Path(hf_hub_download(card.repo, filename, repo_type="dataset", local_files_only=True))
    except Exception:
        pass
    reason = hub_unreachable()
    if reason is None:
        try:
            return Path(hf_hub_download(card.repo, filename, repo_type="dataset"))
        except Exception as exc:
            reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    bundled = next((name for name, b in BENCHMARKS.items() if b.bundled), None)
    raise PackError(
        f"hf:{card.repo}/{filename}: cannot download ({reason}); accept the dataset's terms on its page and run "
        f"`hf auth login`, or pass --pack PACK.json (e.g. one built with `auditpacks build {benchmark}`)"
        + (f", or run the bundled {bundled} pack: `auditpacks build {bundled} --out {bundled}.json` then --pack "
           f"{bundled}.json" if bundled else "")
    ) from None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=plain(__doc__), formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pack", type=Path, help="scenario pack (default: the card's pack, from Hugging Face)")
    parser.add_argument("--card", metavar="BENCHMARK", help="the benchmark whose card's pack runs without --pack "
                        "(default: the one installed benchmark that declares a card)")
    add_run_arguments(parser, pack_required=False)
    args = parser.parse_args(argv)
    try:
        if args.pack is None:
            benchmark, card = card_benchmark(args.card)
            args.pack = local_pack(card, args.smoke) or card_pack(benchmark, card, args.smoke)
            print(f"run_simpleaudit: pack {args.pack}", file=sys.stderr)
    except UserError as exc:  # PackError among them
        return fail(exc)
    from auditpacks.runner.cli.main import USER_ERRORS
    from auditpacks.runner.cli.run_command import print_viewer, report_run
    from auditpacks.runner.store.layout import located
    from auditpacks.runner.run.run import results_path, run

    try:
        config = config_from_args(args)
        with contextlib.redirect_stdout(sys.stderr):  # progress and library chatter
            record = run(config)
    except USER_ERRORS as exc:
        return fail(exc)
    source = results_path(config, record)
    if args.out is None and source.is_file():
        print(f"run_simpleaudit: results {card_results(record, source)}", file=sys.stderr)
    code = report_run(record, as_json=False)
    print_viewer(located(config, record))
    return code


def card_results(record, source: Path, folder: Path = CARD_RESULTS) -> Path:
    """The run's (first round's) AuditResults file at the card's path, ``results/<model>.json``: a hard
    link where the file system allows one (no second copy of a large file), else a copy; replaced whole."""
    import os
    import shutil

    from auditpacks.runner.settings.config import model_slug

    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{model_slug(record.model)}.json"
    if target.resolve() == Path(source).resolve():
        return target
    partial = target.with_name(f".{target.name}.partial")
    partial.unlink(missing_ok=True)
    try:
        os.link(source, partial)
    except OSError:
        shutil.copyfile(source, partial)
    os.replace(partial, target)
    return target


if __name__ == "__main__":
    sys.exit(main())
