"""``auditpacks merge``: join the results of ``--shard i/n`` runs into one results file and run file.

Each shard folder holds one shard run (``<model>.json`` and ``<model>.run.json``). The
shards must come from the same pack (sha256), the same settings (fingerprint) and the
same selection (its hash and size), and together cover shards 1..n exactly once, with
no scenario in two shards and none missing (scenarios a shard skipped are counted, not
missing). Results are put back in selection order using the positions each run file
records; each shard's results file is read one result at a time (only the results without
their documents stay in memory, as in a run) and the merged file is written one result at
a time. With ``--pack`` the pack is checked against the shards, every result's name
against its scenario, and the grader's headline figures are recomputed with the notes an
unsharded run of the selection prints (a subset, few clusters); without it the merged summary
has counts and the subset note only. Every shard's other notes are kept, once each.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from pathlib import Path
from typing import Any

from auditpacks.core.errors import UserError
from auditpacks.core.runs.record import RunRecord
from auditpacks.core.runs.run_files import RECORD_SUFFIX, record_name, stem_of
from auditpacks.runner.scenarios import selection as select
from auditpacks.runner.models.errors import RunError
from auditpacks.runner.settings.config import model_stem
from auditpacks.judges.figures import Headline
from auditpacks.judges.reader import Reader
from auditpacks.runner.store.lock import FolderBusy, FolderLock, holding
from auditpacks.runner.store.performance_sum import sum_blocks, sum_cost, sum_performance
from auditpacks.runner.store.results_file import Pairs, write_results
from auditpacks.runner.store.results_reader import ResultsIndex, scan_results
from auditpacks.runner.scenarios.scenario_source import StreamedPack, open_pack
from auditpacks.runner.store.summary import summarize
from auditpacks.runner.run.rounds import with_sample_warnings


class MergeError(RunError):
    """Shards that cannot be merged (one line, names the shard)."""


def find_run(folder: Path, model: str | None) -> Path:
    """The one shard run file in ``folder`` (or the one for ``model``)."""
    if not folder.is_dir():
        raise MergeError(f"{folder}: not a folder")
    candidates = [p for p in sorted(folder.glob("*" + RECORD_SUFFIX)) if _read(p).shard]
    if model is not None:
        candidates = [p for p in candidates if p.name == record_name(model_stem(model))]
    if not candidates:
        raise MergeError(f"{folder}: no shard run file (*.run.json from a run with --shard)"
                         + (f" for {model}" if model else ""))
    if len(candidates) > 1:
        raise MergeError(f"{folder}: several shard runs ({', '.join(p.name for p in candidates)}); pick one with --model")
    return candidates[0]


def _read(path: Path) -> RunRecord:
    try:
        return RunRecord.load(path)
    except UserError as exc:
        raise MergeError(str(exc)) from None


def load_shard(folder: Path, model: str | None) -> tuple[RunRecord, ResultsIndex, list[dict[str, Any]]]:
    """A shard's run record, where its results lie, and its results without documents (a results file is
    read one result at a time, never whole)."""
    run_path = find_run(folder, model)
    record = _read(run_path)
    if record.repeats != 1:
        raise MergeError(f"{run_path.name}: a run of {record.repeats} rounds; merge joins single-round shards")
    results_path = record.results_files(folder)[0]
    try:
        index, results = scan_results(results_path)
    except UserError as exc:
        raise MergeError(f"{folder}: {exc}") from None
    except OSError as exc:
        raise MergeError(f"{results_path}: cannot read the shard's results ({type(exc).__name__})") from None
    if len(results) != len(record.shard["positions"]):
        raise MergeError(f"{results_path}: {len(results)} results but its run file records "
                         f"{len(record.shard['positions'])} positions")
    return record, index, results


def check_shards(records: list[RunRecord]) -> None:
    """Same pack, settings and selection; shards 1..n each exactly once; no overlap, no gap."""
    first = records[0]
    spec = first.shard
    for record in records[1:]:
        where = f"shard {record.shard['spec']}"
        if record.pack.sha256 != first.pack.sha256:
            raise MergeError(f"{where}: another pack (sha256 {record.pack.sha256[:12]}… vs "
                             f"{first.pack.sha256[:12]}…)")
        if record.fingerprint != first.fingerprint:
            raise MergeError(f"{where}: other settings (fingerprint {record.fingerprint} vs {first.fingerprint})")
        for field in ("count", "selected", "selection_sha256"):
            if record.shard[field] != spec[field]:
                raise MergeError(f"{where}: another split or selection ({field} differs from shard {spec['spec']})")
    indices = Counter(r.shard["index"] for r in records)
    twice = sorted(i for i, n in indices.items() if n > 1)
    if twice:
        raise MergeError(f"shard {twice[0]}/{spec['count']} given more than once (overlap)")
    missing = sorted(set(range(1, spec["count"] + 1)) - set(indices))
    if missing:
        raise MergeError(f"shard {missing[0]}/{spec['count']} missing (gap)")
    seen: Counter[int] = Counter(p for r in records for p in r.shard["positions"])
    overlap = sorted(p for p, n in seen.items() if n > 1)
    if overlap:
        raise MergeError(f"selection position {overlap[0]} has results in more than one shard (overlap)")
    skipped = sum(sum(r.summary.skipped.values()) for r in records)
    if len(seen) + skipped != spec["selected"]:
        raise MergeError(f"the shards hold {len(seen)} results and {skipped} skips, but the selection has "
                         f"{spec['selected']} scenarios (gap)")


def pack_scenarios(pack_path: Path, record: RunRecord, positions: list[int], results: list[dict[str, Any]],
                   unanswered: list[str]) -> tuple[StreamedPack, list[dict[str, Any]], list[dict[str, Any]]]:
    """The pack (streamed), the merged results' scenarios and the unanswered ones (as stubs), checked
    against the shards."""
    from auditpacks.runner.scenarios.shard import selection_hash

    pack = open_pack(pack_path)
    if pack.sha256 != record.pack.sha256:
        raise MergeError(f"{pack_path.name}: not the pack the shards ran (sha256 {pack.sha256[:12]}… vs "
                         f"{record.pack.sha256[:12]}…)")
    p = record.parameters
    chosen = select.select(pack, smoke=p.get("smoke", False), per_question_n=p.get("per_question"),
                           limit=p.get("limit"), seed=p.get("seed", 0), allow_fewer=True,
                           question=Reader.of_record(record).question)
    if selection_hash(chosen) != record.shard["selection_sha256"]:
        raise MergeError(f"{pack_path.name}: the recorded selection does not match this pack's")
    scenarios = [chosen[i] for i in positions]
    for scenario, result in zip(scenarios, results):
        if scenario["name"] != result["scenario_name"]:
            raise MergeError(f"result {result['scenario_name']!r} sits where the pack has {scenario['name']!r}")
    by_name = {s["name"]: s for s in chosen}
    missing = [name for name in unanswered if name not in by_name]
    if missing:
        raise MergeError(f"unanswered scenario {missing[0]!r} is not in the selection")
    return pack, scenarios, [by_name[name] for name in unanswered]


def endpoints(records: list[RunRecord]) -> list[str]:
    """Every endpoint the shards were served by, the first shard's first, each once."""
    urls = [u for r in sorted(records, key=lambda r: r.shard["index"])
            for u in (r.base_url, *(r.parameters.get("more_base_urls") or ())) if u]
    return list(dict.fromkeys(urls))


def merge(folders: list[Path], out: Path, *, pack: Path | None = None, model: str | None = None) -> RunRecord:
    """Write the merged ``<model>.json`` and ``<model>.run.json`` into ``out``; return the run record."""
    if not folders:
        raise MergeError("give at least one shard folder")
    if Path(out).resolve() in {Path(folder).resolve() for folder in folders}:
        raise MergeError(f"{out}: --out is one of the shard folders; merge into another folder")
    try:
        with holding(folders):  # no shard may still be running: its files would change under the merge
            return _merge(folders, out, pack=pack, model=model)
    except FolderBusy as exc:
        raise MergeError(str(exc)) from None


def _merge(folders: list[Path], out: Path, *, pack: Path | None, model: str | None) -> RunRecord:
    loaded = [load_shard(Path(f), model) for f in folders]
    records = [record for record, _, _ in loaded]
    check_shards(records)
    placed = sorted((pos, shard, i) for shard, (record, _, _) in enumerate(loaded)
                    for i, pos in enumerate(record.shard["positions"]))
    positions = [pos for pos, _, _ in placed]
    results = [loaded[shard][2][i] for _, shard, i in placed]
    whole = (loaded[shard][1].load(i) for _, shard, i in placed)
    first = min(records, key=lambda r: r.shard["index"])
    skipped: Counter[str] = Counter()
    for record in records:
        skipped.update(record.summary.skipped)
    unanswered = [name for record in sorted(records, key=lambda r: r.shard["index"])
                  for name in record.summary.unanswered]
    reader = Reader.of_record(first)
    if pack is not None:
        streamed, scenarios, stubs = pack_scenarios(pack, first, positions, results, unanswered)

        def produce():
            yield from ((streamed.load(s), r) for s, r in zip(scenarios, results))
            yield from ((streamed.load(s), None) for s in stubs)

        headline = with_sample_warnings(reader.headline(Pairs(len(results) + len(stubs), produce)), reader,
                                        [*scenarios, *stubs], first.pack.scenarios_in_pack or None)
    else:  # counts only: the subset note still holds (clusters cannot be counted without the pack)
        scenarios = [{"name": r["scenario_name"]} for r in results]
        generic = Reader(first.judge)   # no benchmark's clusters
        headline = with_sample_warnings(Headline(), generic, [*scenarios, *({"name": n} for n in unanswered)],
                                        first.pack.scenarios_in_pack or None)
    stem = stem_of(find_run(Path(folders[0]), model))
    with FolderLock(out):  # no other merge or run writes the output folder meanwhile
        return _write(out, stem, first, records, scenarios, results, whole, (headline, reader), skipped, unanswered)


def _write(out: Path, stem: str, first: RunRecord, records: list[RunRecord], scenarios: list, results: list,
           whole: Any, read: tuple[Headline, Reader], skipped: Counter, unanswered: list[str]) -> RunRecord:
    write_results(Path(out) / first.rounds[0].results, results, whole)
    notes = list(dict.fromkeys(note for r in sorted(records, key=lambda r: r.shard["index"]) for note in r.summary.notes))
    summary = summarize(scenarios, results, *read, skipped=dict(skipped), notes=notes)
    summary.unanswered = unanswered
    record = dataclasses.replace(
        first,
        parameters={**first.parameters, "shard": None, "more_base_urls": endpoints(records)[1:]},
        shard=None,
        merged_from={"shards": sorted((r.shard["spec"] for r in records), key=lambda s: int(s.split("/")[0])),
                     "selection_sha256": first.shard["selection_sha256"], "selected": first.shard["selected"]},
        cache=sum_blocks([r.cache for r in records]),
        cost=sum_cost([r.cost for r in records]),
        started=min(r.started for r in records),
        seconds=round(sum(r.seconds for r in records), 2),
        performance=sum_performance([r.performance for r in sorted(records, key=lambda r: r.shard["index"])]),
        rounds=[dataclasses.replace(first.rounds[0], summary=None)],
        summary=summary,
    )
    record.save(Path(out) / record_name(stem))
    return record
