"""Run a scenario pack with SimpleAudit, with the flags the benchmark cards use.

    python runner/run_simpleaudit.py --smoke --target gpt-4o-mini
    python runner/run_simpleaudit.py --per-question 1 --target qwen3:8b --base-url http://localhost:11434/v1 --api-key local
    python runner/run_simpleaudit.py --smoke --decision ollama --target clef --base-url http://localhost:11434
    python runner/run_simpleaudit.py --smoke --pack packs/jacite.json      # any local pack; no --target: embedded model

Without ``--pack`` it fetches Iustitia Marigonae's published pack (the smoke file
for ``--smoke``) from Hugging Face, as the card's runner does. Same code as
``auditpacks run``; results go to ``results/<model>.json``.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from pathlib import Path

try:
    from auditpacks.core.errors import PackError, fail
    from auditpacks.runner.cli.main import USER_ERRORS, report_run
    from auditpacks.runner.cli.run_args import add_run_arguments, config_from_args
    from auditpacks.runner.execution.run import run
except ModuleNotFoundError as exc:  # a plain script outside an installed auditpacks
    sys.exit(f"run_simpleaudit.py: {exc}; install auditpacks first (pip install . or python3 scripts/bootstrap.py setup)")

CARD_REPO = "Kushtrim/iustitia-marigonae"
CARD_FILES = {True: "simpleaudit/iustitia_marigonae_smoke3.json", False: "simpleaudit/iustitia_marigonae.json"}


def card_pack(smoke: bool) -> Path:
    """The published Iustitia pack from the hub (gated: needs accepted terms and `hf auth login`)."""
    from huggingface_hub import hf_hub_download

    filename = CARD_FILES[smoke]
    try:
        return Path(hf_hub_download(CARD_REPO, filename, repo_type="dataset"))
    except Exception as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise PackError(
            f"hf:{CARD_REPO}/{filename}: cannot download ({reason}); accept the dataset's terms and run "
            "`hf auth login`, or pass --pack PACK.json"
        ) from None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pack", type=Path, help="scenario pack (default: Iustitia Marigonae from Hugging Face)")
    add_run_arguments(parser, pack_required=False)
    args = parser.parse_args(argv)
    try:
        if args.pack is None:
            args.pack = card_pack(args.smoke)
        with contextlib.redirect_stdout(sys.stderr):  # progress and library chatter
            record = run(config_from_args(args))
    except USER_ERRORS as exc:
        return fail(exc)
    return report_run(record, as_json=False)


if __name__ == "__main__":
    sys.exit(main())
