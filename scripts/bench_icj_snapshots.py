"""Time and size the per-cutoff ICJ graph snapshots (cut, Cypher database, BM25 index).

    python scripts/bench_icj_snapshots.py [--graph DIR] [--documents 700] [--passages 20] [--sample 5] [--seed 0]

Without ``--graph`` a synthetic graph is made in memory: ``--documents`` documents over 1947-2026 in
190 cases, ``--passages`` passages of 60 words each per document, resolutions, provisions, judges
and links in about the card's proportions (the real graph: 6,901 documents, 1,206,400 passages,
20,291 resolutions). It builds snapshots for ``--sample`` cutoffs spread over the dates, reports
the build time, the process's peak memory and each snapshot's size on disk, and estimates the
total for 199 cutoffs from the sample. A benchmark, not a test.
"""

from __future__ import annotations

import argparse
import random
import resource
import shutil
import sys
import tempfile
import time
from datetime import date, timedelta
from pathlib import Path

import pyarrow as pa

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from a checkout without installing

from auditpacks.packs.icj.graph.reader import Graph, read_graph  # noqa: E402
from auditpacks.packs.icj.graph.schema import load_mapping  # noqa: E402
from auditpacks.packs.icj.graph.snapshot import snapshot_for  # noqa: E402

WORDS = ("court judgment treaty sovereignty boundary maritime delimitation jurisdiction admissibility "
         "self-defence charter resolution obligation reparation genocide nuclear environment river "
         "immunity diplomatic consular territory occupation self-determination advisory opinion").split()


def _day(rng: random.Random) -> str:
    return (date(1947, 1, 1) + timedelta(days=rng.randrange(79 * 365))).isoformat()


def synthetic(documents: int, passages: int, seed: int) -> Graph:
    rng = random.Random(seed)
    rows: dict[str, list[dict]] = {role: [] for role in load_mapping().roles}
    rows["cases"] = [{"case_id": f"{n:03d}", "name": f"Case {n} " + " ".join(rng.sample(WORDS, 3))}
                     for n in range(1, 191)]
    rows["instruments"] = [{"instrument_id": i, "name": i.title()} for i in ("statute", "charter")]
    rows["provisions"] = [{"provision_key": f"{i}:article_{n}", "instrument_id": i}
                          for i in ("statute", "charter") for n in range(1, 112)]
    symbols = [f"A/RES/{n}({rng.choice('IVX')})" for n in range(documents * 3)]
    rows["resolutions"] = [{"symbol": s, "date": _day(rng), "title": " ".join(rng.sample(WORDS, 4))} for s in symbols]
    rows["resolution_passages"] = [{"symbol": s, "text": " ".join(rng.choices(WORDS, k=60))} for s in symbols]
    rows["resolution_links"] = [{"source_symbol": rng.choice(symbols), "target_symbol": rng.choice(symbols)}
                                for _ in range(documents * 8)]
    rows["judges"] = [{"judge_id": f"j{n}", "name": f"Judge {n}", "term_start": _day(rng)} for n in range(110)]
    for d in range(documents):
        doc = f"DOC_{d:05d}"
        rows["documents"].append({"document_id": doc, "case_id": f"{rng.randrange(1, 191):03d}", "date": _day(rng)})
        rows["passages"] += [{"document_id": doc, "passage_id": f"{doc}#{p}",
                              "text": " ".join(rng.choices(WORDS, k=60))} for p in range(passages)]
        rows["document_case_links"] += [{"document_id": doc, "cited_case_id": f"{rng.randrange(1, 191):03d}"}
                                        for _ in range(3)]
        rows["document_provision_links"] += [{"document_id": doc, "provision_key": rng.choice(rows["provisions"])[
            "provision_key"]} for _ in range(4)]
        rows["document_resolution_links"].append({"document_id": doc, "symbol": rng.choice(symbols)})
        rows["judge_links"] += [{"document_id": doc, "judge_id": f"j{rng.randrange(110)}"} for _ in range(5)]
    mapping = load_mapping()
    tables = {role: pa.table({c: pa.array([r.get(c) for r in rows[role]], pa.string())
                              for c in mapping.roles[role].columns}) for role in rows}
    return Graph(tables, f"synthetic-{documents}-{passages}-{seed}")


def _size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graph", type=Path, help="a local copy of the graph (default: synthetic)")
    parser.add_argument("--documents", type=int, default=700)
    parser.add_argument("--passages", type=int, default=20, help="passages per document")
    parser.add_argument("--sample", type=int, default=5, help="cutoffs to build")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    started = time.perf_counter()
    graph = read_graph(args.graph) if args.graph else synthetic(args.documents, args.passages, args.seed)
    print(f"graph: {graph.tables['documents'].num_rows} documents, {graph.tables['passages'].num_rows} passages, "
          f"{graph.tables['resolutions'].num_rows} resolutions (read or made in {time.perf_counter() - started:.1f} s)")
    cutoffs = [(date(1950, 1, 1) + timedelta(days=int(i * 76 * 365 / max(args.sample - 1, 1)))).isoformat()
               for i in range(args.sample)]
    cache = Path(tempfile.mkdtemp(prefix="icj-snapshot-bench-"))
    times, sizes = [], []
    try:
        for cutoff in cutoffs:
            t0 = time.perf_counter()
            snapshot = snapshot_for(graph, cutoff, cache)
            times.append(time.perf_counter() - t0)
            sizes.append(_size(snapshot.folder))
            peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            print(f"{cutoff}: {times[-1]:6.2f} s, {sizes[-1] / 2**20:7.1f} MiB on disk, "
                  f"{snapshot.info['counts']['documents']} documents, {snapshot.info['lexical']['passages']} "
                  f"passages; peak memory so far {peak:.0f} MiB")
    finally:
        for path in [cache, *cache.rglob("*")]:
            path.chmod(0o755)
        shutil.rmtree(cache)
    mean_t, mean_s = sum(times) / len(times), sum(sizes) / len(sizes)
    print(f"mean per cutoff: {mean_t:.2f} s, {mean_s / 2**20:.1f} MiB; estimate for 199 cutoffs: "
          f"{199 * mean_t / 60:.1f} min, {199 * mean_s / 2**30:.2f} GiB (cutoffs spread evenly over 1950-2026)")


if __name__ == "__main__":
    main()
