"""Prefix caching on the embedded model: the same pack with stock and document-first prompts.

    python scripts/bench_prefix.py [--documents 3] [--questions 6] [--doc-tokens 1500] [--max-tokens 8]

Builds a pack from the bundled 民法 text (``packs/data/minpo.json``): each document is a run
of consecutive articles of about ``--doc-tokens`` SmolLM2 tokens, with ``--questions``
closed questions on it ("which article provides …?", four article numbers as options,
with decision blocks). Runs it twice through ``auditpacks run`` on the embedded model,
``--prompt-order stock`` and ``document-first``, each on a freshly started server (so an
empty prompt cache), and prints side by side: wall time, the prompt tokens the server
evaluated (llama.cpp's ``timings.prompt_n``, summed over requests) and reused
(``cache_n``), and the unique-token lower bound: every document-first prompt tokenised
with the server's ``/apply-template`` and ``/tokenize``, each less its longest common
token prefix with the prompt before it (so each document once, plus each question
suffix). Acceptance: document-first prefill within 5% of that bound, and at least 3×
faster than stock. A benchmark, not a test; timings depend on the machine and its load.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from auditpacks.packs.pack import PackWriter, load_pack
from auditpacks.packs.scenario import make_scenario  # noqa: E402
from auditpacks.runner.settings.config import DecodingConfig, ExecutionConfig, RunConfig  # noqa: E402
from auditpacks.runner.serving.embedded import EmbeddedModel  # noqa: E402
from auditpacks.runner.run.run import run  # noqa: E402
from auditpacks.runner.models.providers.messages import LAYOUTS  # noqa: E402

OPTIONS = 4


def post(root: str, path: str, body: dict[str, Any]) -> dict[str, Any]:
    request = urllib.request.Request(root + path, data=json.dumps(body).encode("utf-8"),
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=600) as resp:
        return json.loads(resp.read().decode("utf-8"))


def count_tokens(root: str, text: str) -> int:
    return len(post(root, "/tokenize", {"content": text})["tokens"])


def article_text(article: dict[str, Any]) -> str:
    return f"{article['article']}{article['caption']}\n{article['text']}"


def documents(root: str, count: int, doc_tokens: int, questions: int) -> list[list[dict[str, Any]]]:
    """``count`` runs of consecutive in-force main articles, each about ``doc_tokens`` tokens long."""
    articles = json.loads((ROOT / "packs" / "data" / "minpo.json").read_text(encoding="utf-8"))["articles"]
    usable = [a for a in articles if not a["deleted"] and not a["supplementary"]]
    out, current, tokens = [], [], 0
    for article in usable[100:]:  # past the general provisions, into property and obligations
        current.append(article)
        tokens += count_tokens(root, article_text(article)) + 1
        if tokens >= doc_tokens:
            if sum(bool(a["caption"]) for a in current) >= questions:
                out.append(current)
            current, tokens = [], 0
            if len(out) == count:
                return out
    raise SystemExit(f"bench_prefix: 民法 has too few articles for {count} documents of {doc_tokens} tokens")


def build_pack(path: Path, docs: list[list[dict[str, Any]]], questions: int) -> list[dict[str, Any]]:
    rng = random.Random(0)
    with PackWriter(path, builder="bench_prefix", extra={"grading": {"judge": "choice_match"}}) as writer:
        for number, doc in enumerate(docs):
            text = "\n".join(article_text(a) for a in doc)
            captioned = [a for a in doc if a["caption"]]
            for q, article in enumerate(rng.sample(captioned, questions)):
                others = rng.sample([a for a in doc if a is not article], OPTIONS - 1)
                keys = sorted([article, *others], key=lambda a: rng.random())
                criteria = {a["number"]: a["article"] for a in keys}
                instructions = f"この文書のうち、{article['caption'].strip('（）')}について定める条文はどれか。"
                decision = {"id": f"q{q}", "instructions": instructions, "criteria": criteria,
                            "accepted": [article["number"]]}
                lines = "\n".join(f"- {k}: {v}" for k, v in criteria.items())
                writer.add(make_scenario(
                    name=f"minpo doc {number} q{q}", description="Finds the article on a topic in a statute extract.",
                    test_prompt=f"{instructions}\n\nOptions:\n{lines}\n\nReply with the key of exactly one option on "
                                "the first line.",
                    language="ja", expected_behavior=[f"Answers {article['number']}."], category="System Integrity",
                    subcategory="Hallucination", severity="medium",
                    source={"type": "adapted", "origin": "民法 (e-Gov)", "original_language": "ja"},
                    metadata={"case_id": f"minpo-{number}", "question_id": f"q{q}"}, date_created="2026-12-01",
                    documents=[text], decision=decision,
                ))
    return load_pack(path).scenarios


def unique_bound(root: str, scenarios: list[dict[str, Any]]) -> int:
    """Tokens a perfect one-slot prefix cache must evaluate for the document-first prompts, in pack (= run)
    order: each prompt less its longest common token prefix with the prompt before it."""
    total, previous = 0, []
    for s in scenarios:
        messages = LAYOUTS["document-first"](system=None, user=s["test_prompt"], documents=s["documents"])
        prompt = post(root, "/apply-template", {"messages": messages})["prompt"]
        tokens = post(root, "/tokenize", {"content": prompt})["tokens"]
        shared = 0
        while shared < min(len(tokens), len(previous)) and tokens[shared] == previous[shared]:
            shared += 1
        total += len(tokens) - shared
        previous = tokens
    return total


def run_once(pack: Path, out: Path, order: str, max_tokens: int) -> dict[str, Any]:
    execution = ExecutionConfig(prompt_order=order, resume=False, show_progress=False)
    record = run(RunConfig(pack=pack, out=out / order, decoding=DecodingConfig(max_tokens=max_tokens),
                           execution=execution)).to_dict()
    tokens = record["performance"]["server_prompt_tokens"] or {}
    return {"seconds": record["seconds"], "prompt_n": tokens.get("prompt_n", 0), "cache_n": tokens.get("cache_n", 0),
            "requests": tokens.get("requests", 0), "completed": record["summary"]["completed"]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--documents", type=int, default=3)
    parser.add_argument("--questions", type=int, default=6, help="questions per document")
    parser.add_argument("--doc-tokens", type=int, default=1500, help="about this many SmolLM2 tokens per document")
    parser.add_argument("--max-tokens", type=int, default=8, help="output budget per reply")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp, EmbeddedModel() as tokenizer:
        pack = Path(tmp) / "minpo_bench.json"
        docs = documents(tokenizer.root_url, args.documents, args.doc_tokens, args.questions)
        scenarios = build_pack(pack, docs, args.questions)
        doc_sizes = [count_tokens(tokenizer.root_url, s["documents"][0]) for s in scenarios[::args.questions]]
        bound = unique_bound(tokenizer.root_url, scenarios)
        print(f"pack: {len(docs)} documents x {args.questions} questions; document tokens {doc_sizes}; "
              f"max_tokens {args.max_tokens}", flush=True)
        stock = run_once(pack, Path(tmp), "stock", args.max_tokens)
        first = run_once(pack, Path(tmp), "document-first", args.max_tokens)
    print(f"\n{'':<26}{'stock':>12}{'document-first':>16}")
    for label, key in (("wall time (s)", "seconds"), ("prompt tokens evaluated", "prompt_n"),
                       ("prompt tokens reused", "cache_n"), ("requests", "requests"), ("completed", "completed")):
        print(f"{label:<26}{stock[key]:>12}{first[key]:>16}")
    print(f"{'unique-token bound':<26}{bound:>12}{bound:>16}")
    speed = stock["seconds"] / first["seconds"] if first["seconds"] else float("inf")
    tokens = stock["prompt_n"] / first["prompt_n"] if first["prompt_n"] else float("inf")
    over = first["prompt_n"] / bound - 1 if bound else float("inf")
    print(f"\nspeed-up {speed:.2f}x wall time, {tokens:.2f}x fewer prompt tokens; document-first evaluates "
          f"{over:+.1%} vs the bound (stock {stock['prompt_n'] / bound:.2f}x the bound)")
    print(f"acceptance: prefill within 5% of the bound: {'yes' if abs(over) <= 0.05 else 'NO'}; "
          f"at least 3x faster: {'yes' if speed >= 3 else 'NO'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
