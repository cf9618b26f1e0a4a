"""A pack for hosted-provider tests: three closed questions about each long judgment (a cacheable prefix)."""

from __future__ import annotations

from pathlib import Path

from auditpacks.packs.pack import PackWriter
from tests.support.tiny_pack import tiny_scenario

PER_DOCUMENT = 3


def judgment_text(verdict: str, words: int = 1500) -> str:
    """A long judgment: about ``words`` words, different for every verdict from its first sentence on."""
    return f"Judgment {verdict}. " + " ".join(f"finding{(i * 7 + int(verdict[1:])) % 97}" for i in range(words))


def write_hosted_pack(path: Path, documents: int = 3, *, words: int = 1500) -> Path:
    # the reply the fake providers give: the key, then a quote of about 25 words ("findingNN": 2 tokens each)
    answer = {"format": "an option key, then a short quote", "tokens": 54}
    with PackWriter(path, builder="tests", extra={"grading": {"judge": "choice_match"}, "answer": answer}) as writer:
        for i in range(documents * PER_DOCUMENT):
            scenario = tiny_scenario(i, per_document=PER_DOCUMENT)
            scenario["documents"] = [judgment_text(scenario["metadata"]["verdict_id"], words)]
            writer.add(scenario)
    return path


PRICES = """date: "2026-12-01"
batch_turnaround_hours: 1
defaults: {batch_discount: %s, cache_min_tokens: 1024, input_tokens_per_s: 4000, output_tokens_per_s: 60,
           request_overhead_s: 0.4, expected_output_tokens: %d}
models:
  gpt-4o-mini: {provider: openai, input: 0.15, cached_input: 0.075, cache_write: 0.15, output: 0.60}
  claude-sonnet-4-0: {provider: anthropic, input: 3.0, cached_input: 0.3, cache_write: 3.75, output: 15.0}
"""


def write_prices(path: Path, expected_output_tokens: int = 2, batch_discount: float = 0.5) -> Path:
    """A price table whose expected reply is an option key (what the fake provider answers); the batch API's
    price is ``batch_discount`` times the normal one."""
    path.write_text(PRICES % (batch_discount, expected_output_tokens), encoding="utf-8")
    return path


def benchmark_packs(folder: Path) -> Path:
    """An Iustitia pack built from the fixture (``iustitia.json``: long Albanian judgments) and a jacite pack of
    twelve questions (``jacite.json``: short Japanese and English prompts) in ``folder``."""
    from auditpacks.runner.cli.main import main
    from tests.support.iustitia import build_pack

    build_pack(folder, name="iustitia.json")
    assert main(["build", "jacite", "--out", str(folder / "jacite.json"), "--limit", "12"]) == 0
    return folder
