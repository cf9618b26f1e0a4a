"""Fit the per-script token estimate for Anthropic models (``runner/hosted/tokens.py`` ``SCRIPT_WEIGHTS``).

Counts English (the docs), Albanian (the Iustitia fixture's judgments) and Japanese (the bundled Civil
Code) text with the Claude tokenizer Anthropic published for its earlier models (``anthropic-tokenizer``,
a dev dependency), fits tokens per character of each script class by least squares, and prints the
weights and, per language, the estimate over the count for the fitted weights and the shipped ones.

    python scripts/bench_tokens.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from auditpacks.runner.hosted.tokens import SCRIPT_WEIGHTS, script_class, script_estimate  # noqa: E402


def texts() -> list[tuple[str, str]]:
    out = []
    for line in (ROOT / "tests/fixtures/iustitia/documents/test-00000-of-00001.jsonl").read_text("utf-8").splitlines():
        out.append(("sq", json.loads(line)["text"]))
    articles = json.loads((ROOT / "packs/data/minpo.json").read_text("utf-8"))["articles"][:400]
    japanese = "\n".join(a["text"] for a in articles)
    out += [("ja", japanese[i:i + 1500]) for i in range(0, len(japanese), 1500)]
    for doc in sorted((ROOT / "docs").glob("*.md"))[:8]:
        text = doc.read_text("utf-8")
        out += [("en", text[i:i + 3000]) for i in range(0, len(text), 3000)]
    return out


def main() -> None:
    from anthropic_tokenizer import count_tokens

    sample = texts()
    features = np.zeros((len(sample), len(SCRIPT_WEIGHTS)))
    for row, (_, text) in enumerate(sample):
        for ch in text:
            features[row, script_class(ch)] += 1
    counts = np.array([count_tokens(text) for _, text in sample], dtype=float)
    weights, *_ = np.linalg.lstsq(features, counts, rcond=None)
    print("fitted weights:", ", ".join(f"{w:.3f}" for w in weights))
    for language in ("en", "sq", "ja"):
        rows = [i for i, (lang, _) in enumerate(sample) if lang == language]
        fitted = (features[rows] @ weights).sum() / counts[rows].sum()
        shipped = sum(script_estimate(sample[i][1]) for i in rows) / counts[rows].sum()
        print(f"{language}: {len(rows)} texts, {int(counts[rows].sum())} tokens; estimate / count "
              f"{fitted:.3f} fitted, {shipped:.3f} shipped")


if __name__ == "__main__":
    main()
