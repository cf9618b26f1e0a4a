"""Which modules mutation testing covers and which tests exercise each, found from the tree (no list to go stale).

Every module under the source folders (``auditpacks/``, ``packs/``, ``judges/``, ``runner/``)
is covered except ``__init__.py`` files and the few in :data:`SKIP` (no logic: constants, an
entry point), each with its reason. A module's tests are its mirrored test files
(``judges/statistics/stats.py`` → ``tests/judges/statistics/test_stats.py`` and
``tests/judges/statistics/test_stats_*.py``;
``auditpacks/core/redact.py`` → ``tests/core/test_redact*.py``), whatever folder the module
is in, plus the few other test files in :data:`EXTRAS` that exercise parts the mirrored ones
do not, less the few in :data:`SLOW` (minutes a mutant) and, for one module, those in :data:`SLOW_FOR` (its
integration tests, where its in-process tests pin the same behaviour). :func:`problems` lists the entries of these
tables and of :data:`SKIP` and :data:`BY_PATH` that no longer name an existing file, so a module moved or a test
renamed shows at once (``tests/scripts/test_mutation_map.py``).
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: source folder → where it is imported from (the card's folders are subpackages of ``auditpacks``)
FOLDERS = {"auditpacks": "auditpacks", "packs": "auditpacks/packs", "judges": "auditpacks/judges",
           "runner": "auditpacks/runner"}
#: folders under the sources that hold data, not modules
DATA = ("packs/data",)

#: Modules without logic to mutate, each with its reason.
SKIP = {
    "auditpacks/__main__.py": "calls the CLI's main and exits: nothing to mutate",
    "auditpacks/core/defaults.py": "named constants only; the tests of the modules that read them pin their values",
}

#: Module → test files beyond its mirrored ones that exercise it (where a part of it is tested from its caller,
#: or its tests still sit beside the module it came from).
EXTRAS: dict[str, list[str]] = {
    "judges/choice.py": ["tests/judges/iustitia/test_agreement.py"],
    "judges/choice_match.py": ["tests/judges/test_choice_edges.py"],
    "judges/jacite/grounding.py": ["tests/packs/jacite/test_citations.py"],
    "judges/icj/citations.py": ["tests/judges/icj/test_export.py", "tests/judges/icj/test_truncation.py"],
    "judges/icj/score.py": ["tests/judges/icj/test_export.py"],
    "judges/statistics/stats.py": ["tests/judges/jacite/test_grounding.py", "tests/judges/iustitia/test_agreement.py"],
    "packs/checks.py": ["tests/packs/test_pack.py", "tests/packs/jacite/test_builder.py",
                        "tests/packs/iustitia/test_builder.py"],
    "runner/store/journal.py": ["tests/runner/run/test_run_resume_errors.py"],
    "runner/scenarios/selection.py": ["tests/runner/store/test_journal_selection_config.py"],
    "runner/scenarios/shard.py": ["tests/runner/scenarios/test_selection.py"],
    "runner/models/retry.py": ["tests/runner/store/test_journal_cache_retry.py",
                               "tests/runner/models/test_retry.py"],
    "runner/models/cache.py": ["tests/runner/store/test_journal_cache_retry.py",
                               "tests/runner/models/test_cache.py", "tests/runner/models/test_cache_entries.py"],
    "runner/hosted/prices.py": ["tests/runner/hosted/test_plan_discount.py"],
    "runner/store/results_split.py": ["tests/runner/store/test_results_file.py"],
    "auditpacks/core/runs/results_layout.py": ["tests/runner/store/test_results_file.py",
                                          "tests/runner/store/test_results_split.py"],
    # the export commands' argument handling is tested through `auditpacks export` and the formats' own tests
    "runner/cli/export/inspect_eval.py": ["tests/runner/cli/test_export_formats.py",
                                          "tests/runner/reporting/exports/test_inspect_log.py"],
    "runner/cli/export/eee_records.py": ["tests/runner/cli/test_export_formats.py",
                                         "tests/runner/reporting/exports/test_eee.py"],
    # where judge-check keeps a qualification, and where a run finds it
    "judges/trust/qualification_store.py": ["tests/runner/cli/test_judge_check.py",
                                            "tests/runner/trust/test_judge_checks.py"],
}


#: Modules the tests also run by their repository path (the cards' ``python runner/run_simpleaudit.py``): staged at
#: that path too, unmutated, so those tests pass; run as a script, a module's own functions are the original ones, so
#: its mutants are killed by the tests that import it.
BY_PATH = ("runner/run_simpleaudit.py",)


#: Test files never run against mutants, each with its reason (minutes a mutant).
SLOW = {
    "tests/runner/run/test_run_resume.py": "kills whole runs at ten random points: minutes per mutant",
}


#: Module → its test files not run against its mutants, each with its reason: integration tests that build runs
#: against fake servers or drive the CLI in a child process (seconds a mutant, mostly fixtures mutmut rebuilds for
#: each one), where the module's in-process tests pin the same behaviour. Leaving a file out can only lower a score:
#: a mutant those files alone would kill counts as a survivor, and a function they alone call as "no tests".
SLOW_FOR: dict[str, dict[str, str]] = {
    "packs/icj/tools/audit.py": {
        "tests/packs/icj/tools/test_audit.py": "audits the fixture graph, a snapshot built for each cutoff and "
                                               "hypothesis calls fired at every tool: ~20-60 s a mutant",
    },
    "runner/cli/main.py": {
        "tests/runner/cli/test_main_exports.py": "builds packs and runs against a fake server in a module fixture",
        "tests/runner/cli/test_main_fuzz.py": "hypothesis drives every reader through the CLI, and a decision server",
        "tests/runner/cli/test_main_hostile_input.py": "whole runs against hostile fake servers",
        "tests/runner/cli/test_main_hostile_nonsense.py": "builds and runs packs through the CLI against fake servers",
        "tests/runner/cli/test_main_run_outputs.py": "whole runs against fake servers through the CLI",
    },
    "runner/cli/run_args.py": {
        "tests/runner/cli/test_run_args.py": "builds an ICJ and a jacite pack, runs tiny packs against a fake server",
    },
    "runner/hosted/batch_run.py": {
        "tests/runner/hosted/test_batch_run.py": "whole batch runs against a fake provider, one killed in a child "
                                                 "process: ~16 s a mutant",
        "tests/runner/hosted/test_batch_run_garbage.py": "whole batch runs against a fake provider returning garbage: "
                                                         "~10 s a mutant",
    },
    "runner/hosted/plan.py": {
        "tests/runner/hosted/test_plan.py": "`auditpacks run --dry-run` through the CLI beside a fake server: "
                                            "~5 s a mutant",
        "tests/runner/hosted/test_plan_bill.py": "whole runs against fake providers, live and in batches: "
                                                 "~20 s a mutant",
    },
    "runner/reporting/exports/eee.py": {
        "tests/runner/reporting/exports/test_eee.py": "exports four runs built against fake servers in session "
                                                      "fixtures and runs the package's validator: ~12 s a mutant",
    },
    "runner/reporting/exports/inspect_log.py": {
        "tests/runner/reporting/exports/test_inspect_log.py": "exports four runs built against fake servers in "
                                                              "session fixtures: ~12 s a mutant",
    },
    "runner/reporting/exports/source.py": {
        "tests/runner/reporting/exports/test_source.py": "builds, runs, merges and exports runs against a fake "
                                                         "server in a module fixture: ~12 s a mutant",
    },
    "runner/reporting/report.py": {
        "tests/runner/reporting/test_report.py": "renders whole reports of six runs through the CLI: ~15 s a mutant",
    },
    "runner/systemone/batching.py": {
        "tests/runner/systemone/test_batching.py":
            "whole runs through the CLI against a fake System One: ~20 s a mutant",
    },
    "runner/systemone/serve_decision.py": {
        "tests/runner/systemone/test_serve_decision.py":
            "stub upstream servers and the CLI in a child process: ~10 s a mutant",
        "tests/runner/systemone/test_serve_decision_callers.py":
            "a real server and a stub upstream for each case: ~9 s a mutant",
        "tests/runner/systemone/test_serve_decision_hostile.py":
            "clients dripping bytes to real servers until their deadlines: ~9 s a mutant",
        "tests/runner/systemone/test_serve_decision_limits.py":
            "real servers against slow and degenerate upstreams: ~8 s a mutant",
    },
}


def modules(root: Path = ROOT) -> list[str]:
    """Every module mutation testing covers, as a path from the repository root, sorted."""
    found = []
    for top in FOLDERS:
        for path in (root / top).rglob("*.py"):
            name = path.relative_to(root).as_posix()
            if path.name != "__init__.py" and name not in SKIP and not name.startswith(DATA) \
                    and "__pycache__" not in path.parts:
                found.append(name)
    return sorted(found)


def mirror_folder(module: str) -> str:
    """The test folder that mirrors ``module``'s folder (``auditpacks/`` is left out of the mirror)."""
    folder = Path(module).parent
    parts = folder.parts[1:] if folder.parts[:1] == ("auditpacks",) else folder.parts
    return Path("tests", *parts).as_posix()


def mirrored(module: str, root: Path = ROOT) -> list[str]:
    """The test files named after ``module`` in its mirrored folder: ``test_<name>.py`` and ``test_<name>_*.py``."""
    folder, stem = root / mirror_folder(module), Path(module).stem
    if not folder.is_dir():
        return []
    files = [p for p in folder.glob(f"test_{stem}*.py") if p.stem == f"test_{stem}" or
             p.stem.startswith(f"test_{stem}_")]
    return sorted(p.relative_to(root).as_posix() for p in files)


def tests_for(module: str, root: Path = ROOT) -> list[str]:
    """The test files that exercise ``module``: its mirrored ones, then its extras (never the :data:`SLOW` ones, nor
    its own in :data:`SLOW_FOR`)."""
    left_out = SLOW.keys() | SLOW_FOR.get(module, {}).keys()
    found = [t for t in mirrored(module, root) if t not in left_out]
    return found + [t for t in EXTRAS.get(module, []) if t not in found and t not in left_out]


def problems(root: Path = ROOT) -> list[str]:
    """Entries of :data:`SKIP`, :data:`SLOW`, :data:`BY_PATH`, :data:`EXTRAS` and :data:`SLOW_FOR` that name no
    existing file (a module moved, a test renamed)."""
    out = [f"SKIP names {m}, which does not exist" for m in SKIP if not (root / m).is_file()]
    out += [f"SLOW names {t}, which does not exist" for t in SLOW if not (root / t).is_file()]
    out += [f"BY_PATH names {m}, which does not exist" for m in BY_PATH if not (root / m).is_file()]
    for table, entries in (("EXTRAS", EXTRAS), ("SLOW_FOR", SLOW_FOR)):
        for module, tests in entries.items():
            if not (root / module).is_file():
                out.append(f"{table} names {module}, which does not exist")
            out += [f"{table} for {module} names {t}, which does not exist" for t in tests if not (root / t).is_file()]
    return out


def staged_path(module: str) -> str:
    """Where ``module`` lies in the staged copy's import layout (``judges/x.py`` → ``src/auditpacks/judges/x.py``)."""
    top, _, rest = module.partition("/")
    return f"src/{FOLDERS[top]}/{rest}"
