"""Batched decision requests through the local System One server: calls per state, batched vs single.

    python scripts/bench_decision.py [--states 3] [--questions 6] [--big 70] [--doc-tokens 500]

Builds a decision pack from the bundled 民法 text (``packs/data/minpo.json``): ``--states``
states (a run of consecutive articles of about ``--doc-tokens`` SmolLM2 tokens, plus a
``decision.state`` naming the law and part) with ``--questions`` yes/no questions each
("does article N contain the word W?"), and one more state with ``--big`` questions
(more than 64, so it needs ⌈questions / 64⌉ calls). Runs it twice through ``auditpacks
run --decision-url`` against ``DecisionServer`` over the embedded model (a fresh model
for each run): batched (``--batch-questions 64``) and single (``--batch-questions 1``).
Prints, per state, the questions and the calls each run made (batched must equal
⌈questions / 64⌉), the wall times, and whether both runs gave every scenario the same
choice (they should: the server asks its upstream one question at a time either way).
A benchmark, not a test.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from auditpacks.packs.pack import PackWriter, load_pack
from auditpacks.packs.scenario import make_scenario  # noqa: E402
from auditpacks.runner.settings.config import ExecutionConfig, RunConfig, TargetConfig  # noqa: E402
from auditpacks.runner.serving.embedded import EmbeddedModel  # noqa: E402
from auditpacks.runner.run.run import run  # noqa: E402
from auditpacks.runner.systemone.serve_decision import DecisionServer  # noqa: E402
from scripts.bench_prefix import article_text, count_tokens  # noqa: E402

WORDS = ("権利", "債務", "契約", "請求", "取得", "効力", "第三者", "期間", "相手方", "登記", "損害", "目的")
OPTIONS = {"yes": "含まれる", "no": "含まれない"}


class CountingServer(DecisionServer):
    """DecisionServer that remembers the state of every call it receives."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.states: list[str] = []

    def decide(self, body: Any) -> dict:
        self.states.append(json.dumps(body.get("state") if isinstance(body, dict) else None, sort_keys=True))
        return super().decide(body)


def states(root: str, count: int, doc_tokens: int, big: int) -> list[list[dict[str, Any]]]:
    """``count`` + 1 runs of consecutive articles; the last one long enough for ``big`` questions."""
    articles = [a for a in json.loads((ROOT / "packs" / "data" / "minpo.json").read_text(encoding="utf-8"))["articles"]
                if not a["deleted"] and not a["supplementary"]]
    out, start = [], 400
    for number in range(count + 1):
        current, tokens = [], 0
        needed = math.ceil(big / len(WORDS)) if number == count else 1
        while tokens < doc_tokens or len(current) < needed:
            current.append(articles[start])
            tokens += count_tokens(root, article_text(articles[start])) + 1
            start += 1
        out.append(current)
    return out


def build_pack(path: Path, docs: list[list[dict[str, Any]]], per_state: list[int]) -> list[dict[str, Any]]:
    with PackWriter(path, builder="bench_decision", extra={"grading": {"judge": "choice_match"}}) as writer:
        for number, (doc, wanted) in enumerate(zip(docs, per_state)):
            text = "\n".join(article_text(a) for a in doc)
            pairs = [(a, w) for a in doc for w in WORDS][:wanted]
            for q, (article, word) in enumerate(pairs):
                instructions = f"この文書の{article['article']}に「{word}」という語は含まれるか。"
                truth = "yes" if word in article["text"] else "no"
                writer.add(make_scenario(
                    name=f"minpo state {number} q{q}", description="Reads one article of a statute extract.",
                    test_prompt=instructions, language="ja", expected_behavior=[f"Answers {truth}."],
                    category="System Integrity", subcategory="Hallucination", severity="medium",
                    source={"type": "adapted", "origin": "民法 (e-Gov)", "original_language": "ja"},
                    metadata={"case_id": f"minpo-state-{number}", "question_id": f"q{q}"}, date_created="2026-12-01",
                    documents=[text], decision={"id": f"q{q}", "instructions": instructions, "criteria": dict(OPTIONS),
                                                "accepted": [truth], "state": {"law": "民法", "part": doc[0]["part"]}},
                ))
    return load_pack(path).scenarios


def run_once(pack: Path, out: Path, batch: int) -> tuple[dict[str, Any], Counter, dict[str, str]]:
    with EmbeddedModel() as model, CountingServer(model.base_url, model=model.model) as server:
        target = TargetConfig(model=model.model, decision="url", decision_url=server.url + "/v1/systemone")
        execution = ExecutionConfig(batch_questions=batch, resume=False, show_progress=False)
        record = run(RunConfig(pack=pack, out=out / f"batch{batch}", target=target, execution=execution)).to_dict()
        calls = Counter(server.states)
    stored = json.loads((out / f"batch{batch}" / f"{model.model}.json").read_text(encoding="utf-8"))["results"]
    chosen = {r["scenario_name"]: (r["conversation"][-1].get("decision") or {}).get("choice") for r in stored}
    return record, calls, chosen


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--states", type=int, default=3, help="states with --questions questions each")
    parser.add_argument("--questions", type=int, default=6)
    parser.add_argument("--big", type=int, default=70, help="questions on the one large state")
    parser.add_argument("--doc-tokens", type=int, default=500, help="about this many tokens per state document")
    args = parser.parse_args(argv)
    per_state = [args.questions] * args.states + [args.big]
    with tempfile.TemporaryDirectory() as tmp:
        with EmbeddedModel() as tokenizer:
            docs = states(tokenizer.root_url, args.states, args.doc_tokens, args.big)
        scenarios = build_pack(Path(tmp) / "decisions.json", docs, per_state)
        print(f"pack: {len(scenarios)} questions on {len(per_state)} states {per_state}", flush=True)
        batched, batched_calls, batched_choices = run_once(Path(tmp) / "decisions.json", Path(tmp), 64)
        single, single_calls, single_choices = run_once(Path(tmp) / "decisions.json", Path(tmp), 1)
    order = list(dict.fromkeys(batched_calls))  # states in the order first called
    print(f"\n{'state':<8}{'questions':>10}{'batched calls':>15}{'⌈q/64⌉':>8}{'single calls':>14}")
    ok = True
    for number, state in enumerate(order):
        questions = per_state[number]
        expected = math.ceil(questions / 64)
        ok &= batched_calls[state] == expected and single_calls[state] == questions
        print(f"{number:<8}{questions:>10}{batched_calls[state]:>15}{expected:>8}{single_calls[state]:>14}")
    same = batched_choices == single_choices and None not in batched_choices.values()
    print(f"\nwall time: batched {batched['seconds']} s, single {single['seconds']} s")
    print(f"batching record: {json.dumps(batched['performance']['decision_batching'], ensure_ascii=False)}")
    print(f"calls per state as expected: {'yes' if ok else 'NO'}; same choices in both runs: "
          f"{'yes' if same else 'NO'} ({sum(a == b for a, b in zip(batched_choices.values(), single_choices.values()))}"
          f"/{len(single_choices)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
