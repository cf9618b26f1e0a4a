"""Scale benchmarks: memory and time of a full-size run, start-up, several endpoints, document-first at density.

    python scripts/bench_scale.py [--scale 1.0] [--only memory,results,startup,endpoints,p1]

* **memory**: a synthetic pack of the Iustitia card's size (``scale_pack.py``: 198 judgments of
  ~25,000 characters, 670 units, 67 questions, 14,843 tasks; ``--scale`` for a fraction), then
  ``auditpacks check``, ``run --limit 1`` and the full ``run`` as child processes against an
  instant local OpenAI-compatible server; peak RSS of each child from ``os.wait4``'s rusage.
  Goals: full run < 1 GB, ``--limit 1`` < 300 MB; then the full run's own results files: each
  < 100 MB (Studio's viewer) and ``AuditResults.load`` of each < 1 GB.
* **results**: the results of a full-size run (``scale_pack.results``: each scenario's result as
  the runner stores it, the judgment in its transcript) written by the run's own writer in a child
  process, then ``AuditResults.load`` of each results file in a child of its own; every file's
  size and each load's peak RSS. Goals: every file < 100 MB (Studio's viewer), each load < 1 GB.
* **startup**: ``python -X importtime`` of ``auditpacks --help`` and ``auditpacks check`` on a
  small pack: the top-level imports' cumulative time (interpreter start-up modules included),
  median and minimum of 9. Goal: < 0.5 s.
* **endpoints**: 2 embedded model servers (2 slots each) with document-affine assignment, the
  same 2 with random assignment, and 1 server, each freshly started; prompt tokens the
  servers evaluated (llama.cpp ``timings.prompt_n``) and wall time, same pack and workers.
* **p1**: one judgment of 25,000 characters with 75 questions (the card's density), stock against
  document-first prompts, *counted*: each prompt from the runner's layouts through the embedded
  server's ``/apply-template`` and ``/tokenize``, less its common token prefix with the one before
  (what a one-slot prefix cache evaluates); ``--p1-measure`` runs both orders on the model instead
  (``--p1-chars`` long). Goal: ≥ 10× fewer prompt tokens evaluated.

A benchmark, not a test: timings depend on the machine and its load.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

import scale_pack  # noqa: E402

CLI = [sys.executable, "-m", "auditpacks"]
PROBE = "import sys\nfrom auditpacks.runner.cli.main import main\ntry:\n    main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"


def child(argv: list[str], log: Path) -> tuple[int, float, float]:
    """Run ``argv``; (exit code, seconds, peak RSS in MB) from the child's own rusage."""
    start = time.monotonic()
    with open(log, "wb") as err:
        proc = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return proc.returncode, time.monotonic() - start, usage.ru_maxrss / 1024


def run_argv(pack: Path, out: Path, *extra: str) -> list[str]:
    return [*CLI, "run", "--pack", str(pack), "--target", "m", "--out", str(out), "--quiet", "--fresh", *extra]


def bench_memory(tmp: Path, scale: float) -> None:
    from tests.support.fake_openai import FakeOpenAI

    class Instant(FakeOpenAI):
        def plan(self, body, headers):  # keep no request bodies: this process is not what is measured
            planned = super().plan(body, headers)
            self.bodies.clear(), self.headers.clear(), self.calls.clear()
            return planned

    pack = tmp / "scale.json"
    started = time.monotonic()
    scale_pack.write(pack, scale)
    judgments, units, tasks = scale_pack.sizes(scale)
    print(f"memory: pack of {tasks} scenarios ({judgments} judgments, {units} units), "
          f"{pack.stat().st_size / 2**20:.0f} MiB, built in {time.monotonic() - started:.0f} s", flush=True)
    rows = []
    with Instant() as server:
        url = ["--base-url", server.base_url]
        for label, argv, goal in (
                ("check", [*CLI, "check", str(pack), "--quiet"], None),
                ("run --limit 1", run_argv(pack, tmp / "one", *url, "--limit", "1"), 300),
                ("run (all)", run_argv(pack, tmp / "all", *url, "--concurrency", "4"), 1000)):
            code, seconds, peak = child(argv, tmp / "log.txt")
            if code not in (0, 1):
                print((tmp / "log.txt").read_text()[-2000:])
            rows.append((label, code, seconds, peak, goal))
            print(f"  {label:<14} exit {code}  {seconds:7.1f} s  peak RSS {peak:7.0f} MB"
                  + (f"  goal < {goal} MB: {'yes' if peak < goal else 'NO'}" if goal else ""), flush=True)
    record = json.loads((tmp / "all" / "m.run.json").read_text())["summary"]
    print(f"  full run: {record['completed']} completed, {record['errors']} errors of {tasks}; "
          f"{tasks / rows[-1][2]:.0f} scenarios/s; its results files:")
    from auditpacks.core.runs.results_layout import layout

    results_files(tmp, [*(found := layout(tmp / "all" / "m.json")).parts, *filter(None, [found.documents])])


WRITE = ("import sys\nsys.path.insert(0, 'scripts')\nimport scale_pack\nfrom pathlib import Path\n"
         "from auditpacks.runner.store.results_file import slim_result, write_results\n"
         "scale = float(sys.argv[2])\nslim = [slim_result(r) for r in scale_pack.results(scale)]\n"
         "write_results(Path(sys.argv[1]), slim, scale_pack.results(scale))\n")
LOAD = "import sys\nfrom simpleaudit import AuditResults\nAuditResults.load(sys.argv[1])\n"


def bench_results(tmp: Path, scale: float) -> None:
    """A full-size run's results through the run's own writer: every file's size and ``AuditResults.load``'s
    peak RSS on each results file (goals: < 100 MB, Studio's limit, and < 1 GB)."""
    from auditpacks.runner.store.results_split import entry_bytes

    plain = sum(len(entry_bytes(r)) for r in scale_pack.results(scale))
    out = tmp / "results" / "m.json"
    code, seconds, peak = child([sys.executable, "-c", WRITE, str(out), str(scale)], tmp / "log.txt")
    print((tmp / "log.txt").read_text()[-2000:] if code else "", end="")
    files = sorted(out.parent.iterdir(), key=lambda f: (f.suffix != ".json", len(f.name), f.name))
    print(f"results: {sizes_line(scale)}; one file would hold {plain / 1e6:,.0f} MB of results; written as "
          f"{len(files)} files in {seconds:.0f} s, writer peak RSS {peak:.0f} MB", flush=True)
    results_files(tmp, files)


def results_files(tmp: Path, files: list[Path]) -> None:
    """Each file's size and, for a results part, ``AuditResults.load``'s peak RSS; the goals met or not."""
    worst = 0.0
    for f in files:
        code, seconds, rss = child([sys.executable, "-c", LOAD, str(f)], tmp / "log.txt") if f.suffix == ".json" \
            else (None, 0.0, 0.0)
        worst = max(worst, rss)
        print(f"  {f.name:<20} {f.stat().st_size / 1e6:7.1f} MB" + ("" if code is None else
              f"  AuditResults.load exit {code}, {seconds:5.1f} s, peak RSS {rss:5.0f} MB"), flush=True)
    largest = max(f.stat().st_size for f in files) / 1e6
    print(f"  largest file {largest:.1f} MB (goal < 100: {'yes' if largest < 100 else 'NO'}); "
          f"largest load peak RSS {worst:.0f} MB (goal < 1000: {'yes' if worst < 1000 else 'NO'})")


def sizes_line(scale: float) -> str:
    judgments, units, tasks = scale_pack.sizes(scale)
    return f"{tasks} scenarios ({judgments} judgments, {units} units)"


def import_seconds(argv: list[str]) -> float:
    """Top-level imports' cumulative time (s) of one ``auditpacks`` command, from ``-X importtime``."""
    out = subprocess.run([sys.executable, "-X", "importtime", "-c", PROBE, *argv], cwd=ROOT,
                         capture_output=True, text=True)
    total = 0
    for line in out.stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            _, cumulative, name = line.split("|")
            if name.startswith(" ") and not name.startswith("  ") and cumulative.strip().isdigit():
                total += int(cumulative)
    return total / 1e6


def bench_startup(tmp: Path) -> None:
    pack = scale_pack.write(tmp / "small.json", 0.005)
    for label, argv in (("--help", ["--help"]), ("check", ["check", str(pack), "--quiet"]),
                        ("run --help", ["run", "--help"])):
        times = [import_seconds(argv) for _ in range(9)]
        median = statistics.median(times)
        print(f"startup: auditpacks {label:<11} imports {median:.3f} s (median of 9; min {min(times):.3f}) "
              f"goal < 0.5 s: {'yes' if median < 0.5 else 'NO'}", flush=True)


def small_pack(path: Path, documents: int, questions: int, chars: int) -> Path:
    """``documents`` judgments of ``chars`` characters with ``questions`` questions each (one unit per judgment)."""
    import random

    from auditpacks.packs.pack import PackWriter

    rng = random.Random(7)
    with PackWriter(path, builder="bench_scale", extra={"grading": {"judge": "choice_match"}}) as writer:
        for d in range(documents):
            text = scale_pack.judgment_text(rng, d, chars)
            for q in range(questions):
                writer.add(scale_pack.scenario(rng, text, f"domv{d:03d}", f"u{d:03d}", "decision", q))
    return path


def llama_run(pack: Path, out: Path, urls: list[str], *extra: str) -> dict:
    argv = [*CLI, "run", "--pack", str(pack), "--target", "smollm2", "--provider", "llamacpp", "--out", str(out),
            "--quiet", "--fresh", "--max-tokens", "1", *(a for url in urls for a in ("--base-url", url)), *extra]
    code, seconds, _ = child(argv, out.with_suffix(".log"))
    if code != 0:
        raise SystemExit(f"bench_scale: run failed: {out.with_suffix('.log').read_text()[-2000:]}")
    record = json.loads((out / "smollm2.run.json").read_text())
    tokens = record["performance"]["server_prompt_tokens"] or {}
    return {"seconds": seconds, "prompt_n": tokens.get("prompt_n", 0), "cache_n": tokens.get("cache_n", 0),
            "completed": record["summary"]["completed"]}


def servers(count: int, parallel: int):
    from contextlib import ExitStack

    from auditpacks.runner.serving.embedded import EmbeddedModel

    stack = ExitStack()
    started = [stack.enter_context(EmbeddedModel(ctx=4096 * parallel, threads=1, parallel=parallel))
               for _ in range(count)]
    return stack, [s.base_url for s in started]


def table(title: str, columns: dict[str, dict]) -> None:
    print(f"\n{title}\n{'':<26}" + "".join(f"{name:>16}" for name in columns))
    for label, key in (("wall time (s)", "seconds"), ("prompt tokens evaluated", "prompt_n"),
                       ("prompt tokens reused", "cache_n"), ("completed", "completed")):
        cells = "".join(f"{(f'{c[key]:.1f}' if isinstance(c[key], float) else c[key]):>16}" for c in columns.values())
        print(f"{label:<26}{cells}")


def bench_endpoints(tmp: Path, documents: int, questions: int, chars: int) -> None:
    pack = small_pack(tmp / "endpoints.json", documents, questions, chars)
    columns = {}
    for name, count, extra in (("1 server", 1, ()), ("2 affine", 2, ("--endpoint-assignment", "document")),
                               ("2 random", 2, ("--endpoint-assignment", "random"))):
        stack, urls = servers(count, parallel=2)
        with stack:
            columns[name] = llama_run(pack, tmp / name.replace(" ", "_"), urls, "--concurrency", "2", *extra)
        print(f"endpoints: {name} done", flush=True)
    table(f"endpoints: {documents} judgments x {questions} questions, {chars} characters each, 2 workers, "
          "servers of 2 slots", columns)
    one, affine, rand = (columns[k]["prompt_n"] for k in ("1 server", "2 affine", "2 random"))
    print(f"affine evaluates {affine / one:.2f}x one server's prompt tokens and {rand / affine:.2f}x fewer than "
          f"random; goal affine <= one server: {'yes' if affine <= one else 'NO'}")


def counted_tokens(root: str, scenarios: list[dict], order: str) -> int:
    """Prompt tokens a one-slot prefix cache evaluates for ``scenarios`` in ``order``'s layout, in pack order."""
    from bench_prefix import post

    from auditpacks.runner.models.providers.messages import LAYOUTS

    total, previous = 0, []
    for s in scenarios:
        messages = LAYOUTS[order](system=None, user=s["test_prompt"], documents=s["documents"])
        prompt = post(root, "/apply-template", {"messages": messages})["prompt"]
        tokens = post(root, "/tokenize", {"content": prompt})["tokens"]
        shared = next((i for i, (a, b) in enumerate(zip(tokens, previous)) if a != b), min(len(tokens), len(previous)))
        total += len(tokens) - shared
        previous = tokens
    return total


def bench_p1_counted(tmp: Path, questions: int, chars: int) -> None:
    from auditpacks.packs.pack import load_pack

    scenarios = load_pack(small_pack(tmp / "p1.json", 1, questions, chars)).scenarios
    stack, urls = servers(1, parallel=1)
    with stack:
        root = urls[0].removesuffix("/v1")
        counts = {order: counted_tokens(root, scenarios, order) for order in ("stock", "document-first")}
    ratio = counts["stock"] / counts["document-first"]
    print(f"p1 (counted with the server's tokenizer): 1 judgment of {chars} characters x {questions} questions: "
          f"stock {counts['stock']} prompt tokens, document-first {counts['document-first']}: {ratio:.1f}x fewer; "
          f"goal >= 10x: {'yes' if ratio >= 10 else 'NO'}")


def bench_p1(tmp: Path, questions: int, chars: int) -> None:
    pack = small_pack(tmp / "p1.json", 1, questions, chars)
    columns = {}
    for order in ("stock", "document-first"):
        stack, urls = servers(1, parallel=1)
        with stack:
            columns[order] = llama_run(pack, tmp / order, urls, "--prompt-order", order)
        print(f"p1: {order} done", flush=True)
    table(f"p1: 1 judgment of {chars} characters x {questions} questions", columns)
    ratio = columns["stock"]["prompt_n"] / max(1, columns["document-first"]["prompt_n"])
    print(f"document-first evaluates {ratio:.1f}x fewer prompt tokens; goal >= 10x: {'yes' if ratio >= 10 else 'NO'}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale", type=float, default=1.0, help="fraction of the card's size (default 1)")
    parser.add_argument("--only", default="memory,results,startup,endpoints,p1",
                        help="sections to run, comma-separated")
    parser.add_argument("--documents", type=int, default=4, help="endpoints: judgments (default 4)")
    parser.add_argument("--questions", type=int, default=4, help="endpoints: questions per judgment (default 4)")
    parser.add_argument("--chars", type=int, default=800, help="endpoints: characters per judgment (default 800)")
    parser.add_argument("--p1-questions", type=int, default=75, help="p1: questions on the judgment (default 75)")
    parser.add_argument("--p1-chars", type=int, default=25_000,
                        help="p1: characters of the judgment (default 25,000, the card's)")
    parser.add_argument("--p1-measure", action="store_true", help="p1: run the model instead of counting tokens")
    args = parser.parse_args(argv)
    only = set(args.only.split(","))
    with tempfile.TemporaryDirectory(prefix="bench_scale.") as name:
        tmp = Path(name)
        sections = {"startup": lambda: bench_startup(tmp), "memory": lambda: bench_memory(tmp, args.scale),
                    "results": lambda: bench_results(tmp, args.scale),
                    "endpoints": lambda: bench_endpoints(tmp, args.documents, args.questions, args.chars),
                    "p1": lambda: (bench_p1 if args.p1_measure else bench_p1_counted)(tmp, args.p1_questions,
                                                                                       args.p1_chars)}
        for name in (n for n in sections if n in only):
            sections[name]()
    return 0


if __name__ == "__main__":
    sys.exit(main())
