#!/usr/bin/env python3
"""Mutation testing (mutmut 3) of every module with logic, each against the tests that exercise it.

    .venv/bin/python scripts/mutation.py judges/statistics/stats.py   # one module (or several)
    .venv/bin/python scripts/mutation.py --list               # each module and its tests; runs nothing
    .venv/bin/python scripts/mutation.py                      # every module (hours on 2 cores)
    .venv/bin/python scripts/mutation.py --min-score 90 --max-children 2

The modules and their tests are found from the tree (:mod:`mutation_map`: mirrored test files
plus a few declared extras). Each module is mutated on its own, against only its tests
(``-m "not model"``), so a run stays tractable on a small machine. Prints the score per
module (killed and timed-out mutants over all mutants less the equivalent ones listed in
docs/testing.md) and every other surviving mutant as a diff; exits 1 when a module scores
below ``--min-score``, has mutants that no test runs ("no tests": a function its tests never
call), lists an equivalent that names none of its mutants (its code changed since), or has no tests at all.

mutmut 3 names a mutant after its file's path and activates it by comparing that name with
the function's ``__module__``; the card's folders (``packs/``, ``judges/``, ``runner/``) import
as ``auditpacks.*``, so the script stages a copy in the import layout
(``build/mutation/<module>/src/auditpacks/...``) and runs mutmut there, with the staged
``mutants/src`` first on ``PYTHONPATH`` so child processes started by tests run the mutant too.
Options shared by every module come from ``[tool.mutmut]`` in pyproject.toml.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from mutation_map import BY_PATH, FOLDERS, ROOT, SKIP, modules, problems, staged_path, tests_for  # noqa: E402

STAGE = ROOT / "build" / "mutation"
KILLED = {"killed", "timeout", "segfault"}
UNTESTED = "no tests"
NOT_CHECKED = "not checked"
#: Mutants no test can tell apart from the original, each listed with its reason in this file.
EQUIVALENT_DOC = ROOT / "docs" / "testing.md"
_EQUIVALENT = re.compile(r"^- `(auditpacks\.[\w.]+__mutmut_\d+)`", re.M)


def toml_value(value: object) -> str:
    return json.dumps(value)  # strings, numbers, booleans and lists of them are the same in TOML


def write_config(stage: Path, module: str, tests: list[str]) -> None:
    """The project's pyproject with a [tool.mutmut] table for this module (shared options kept)."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    shared = tomllib.loads(text).get("tool", {}).get("mutmut", {})
    kept = [line for line in _without_table(text.splitlines(), "[tool.mutmut]")]
    options = dict(shared, source_paths=[staged_path(module)], pytest_add_cli_args_test_selection=tests)
    options.pop("paths_to_mutate", None)
    scripts = sorted({Path(script).parent.as_posix() + "/" for script in BY_PATH})  # mutmut copies no file's parents
    options["also_copy"] = list(shared.get("also_copy", [])) + ["src/", "codebook.yaml", *scripts]
    table = ["[tool.mutmut]"] + [f"{key} = {toml_value(val)}" for key, val in options.items()]
    (stage / "pyproject.toml").write_text("\n".join(kept + [""] + table) + "\n", encoding="utf-8")


def _without_table(lines: list[str], header: str) -> list[str]:
    out, skipping = [], False
    for line in lines:
        if line.strip().startswith("["):
            skipping = line.strip() == header
        if not skipping:
            out.append(line)
    return out


def stage_dir(module: str) -> Path:
    return STAGE / module.replace("/", "-").removesuffix(".py")


def stage_module(module: str, tests: list[str]) -> Path:
    stage = stage_dir(module)
    shutil.rmtree(stage, ignore_errors=True)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for folder, target in FOLDERS.items():
        shutil.copytree(ROOT / folder, stage / "src" / target, ignore=ignore, dirs_exist_ok=True)
    shutil.copytree(ROOT / "tests", stage / "tests", ignore=ignore)
    shutil.copytree(ROOT / "packs" / "data", stage / "packs" / "data")  # tests read bundled data by path (also_copy)
    shutil.copy2(ROOT / "codebook.yaml", stage / "codebook.yaml")  # and the codebook at the repository's root
    for script in BY_PATH:  # and the scripts they run by path
        (stage / script).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / script, stage / script)
    write_config(stage, module, tests)
    (stage / "mutants" / "src").mkdir(parents=True)  # exists before Python starts, or its path cache skips it
    return stage


def mutmut(stage: Path, *args: str) -> None:
    """``mutmut ARGS`` in ``stage``, output to its mutmut.log; the staged mutants first on PYTHONPATH."""
    env = dict(os.environ, PYTHONPATH=str(stage / "mutants" / "src"))  # child processes run the mutant too
    with (stage / "mutmut.log").open("a", encoding="utf-8") as out:
        subprocess.run([sys.executable, "-m", "mutmut", *args], cwd=stage, env=env, stdout=out,
                       stderr=subprocess.STDOUT, check=False)


def _meta(module: str) -> Path:
    return stage_dir(module) / "mutants" / (staged_path(module) + ".meta")


def exit_codes(module: str) -> dict[str, int | None]:
    """Mutant name -> mutmut's exit code from the staged run (empty when there is none)."""
    meta = _meta(module)
    return json.loads(meta.read_text(encoding="utf-8"))["exit_code_by_key"] if meta.exists() else {}


def statuses(module: str) -> dict[str, str]:
    from mutmut.stats import status_by_exit_code

    return {name: status_by_exit_code[code] for name, code in exit_codes(module).items()}


def run_module(module: str, tests: list[str], max_children: int) -> dict[str, str]:
    """A fresh mutmut run on one module; returns mutant name -> status."""
    stage = stage_module(module, tests)
    mutmut(stage, "run", "--max-children", str(max_children))
    found = statuses(module)
    if not found and not nothing_to_mutate(module):
        sys.exit(f"mutmut produced no results for {module}; see {(stage / 'mutmut.log').relative_to(ROOT)}")
    return checked(module, found)


def checked(module: str, found: dict[str, str]) -> dict[str, str]:
    """``found``, or exit naming the log when mutmut checked none of its mutants (its tests failed unmutated, so
    every mutant stays "not checked": a score of 0% that says nothing about the tests)."""
    if found and all(status == NOT_CHECKED for status in found.values()):
        log = (stage_dir(module) / "mutmut.log").relative_to(ROOT)
        sys.exit(f"mutmut checked none of the {len(found)} mutants of {module}: its tests fail unmutated; see {log}")
    return found


def nothing_to_mutate(module: str) -> bool:
    """Whether mutmut found no function to mutate in ``module`` (declarations only: a registry entry, dataclasses
    whose one property is an f-string); it scores 0 / 0."""
    meta = _meta(module)
    return meta.exists() and not json.loads(meta.read_text(encoding="utf-8"))["hash_by_function_name"]


def retest_module(module: str, tests: list[str], max_children: int) -> dict[str, str]:
    """The last run's survivors tested again against the current tests (killed ones stay killed)."""
    before = statuses(module)
    if not before:
        return run_module(module, tests, max_children)
    survivors = [name for name, status in before.items() if status not in KILLED]
    if survivors:
        stage, codes = stage_dir(module), exit_codes(module)
        shutil.copytree(ROOT / "tests", stage / "tests", ignore=shutil.ignore_patterns("__pycache__"), dirs_exist_ok=True)
        write_config(stage, module, tests)
        mutmut(stage, "run", "--max-children", str(max_children), *survivors)
        retested = exit_codes(module)  # a changed test selection resets the others: keep their earlier verdicts
        meta = json.loads(_meta(module).read_text(encoding="utf-8"))
        meta["exit_code_by_key"] = {name: retested.get(name) if name in survivors else code for name, code in codes.items()}
        _meta(module).write_text(json.dumps(meta, indent=4), encoding="utf-8")
    return checked(module, statuses(module))


def show(module: str, name: str) -> str:
    stage = stage_dir(module)
    done = subprocess.run([sys.executable, "-m", "mutmut", "show", name], cwd=stage, capture_output=True, text=True)
    return done.stdout.strip()


def equivalent() -> set[str]:
    return set(_EQUIVALENT.findall(EQUIVALENT_DOC.read_text(encoding="utf-8"))) if EQUIVALENT_DOC.exists() else set()


def dotted(module: str) -> str:
    """The prefix of ``module``'s mutant names (``judges/choice.py`` → ``auditpacks.judges.choice.``); a name's own
    is ``name.rpartition(".")[0] + "."``."""
    return staged_path(module).removeprefix("src/").removesuffix(".py").replace("/", ".") + "."


def functions(module: str, root: Path = ROOT) -> set[str]:
    """mutmut's names for the functions of ``module``: ``x_f`` for a function, ``xǁClassǁm`` for a method."""
    tree = ast.parse((root / module).read_text(encoding="utf-8"))
    kinds = (ast.FunctionDef, ast.AsyncFunctionDef)
    found = {f"x_{node.name}" for node in tree.body if isinstance(node, kinds)}
    for cls in (node for node in tree.body if isinstance(node, ast.ClassDef)):
        found |= {f"x\u01c1{cls.name}\u01c1{node.name}" for node in cls.body if isinstance(node, kinds)}
    return found


def orphan_equivalents(names: list[str], known: set[str], root: Path = ROOT) -> list[str]:
    """Listed equivalents that name no mapped module, or a function their module no longer defines (moved,
    renamed or removed since the list was written); found without running anything."""
    by_module: dict[str, list[str]] = {}
    for name in sorted(known):
        by_module.setdefault(name.rpartition(".")[0] + ".", []).append(name)
    mapped = {dotted(module) for module in modules(root)}
    out = [f"{name}: listed as equivalent, but no mapped module has it"
           for owner, listed in by_module.items() if owner not in mapped for name in listed]
    for module in names:
        listed = by_module.get(dotted(module), [])
        defined = functions(module, root) if listed else set()
        out += [f"{name}: listed as equivalent, but {module} has no such function" for name in listed
                if name.rpartition(".")[2].rsplit("__mutmut_", 1)[0] not in defined]
    return out


def list_modules(names: list[str]) -> int:
    """Each module and its tests; exit 1 when one has none, a table entry names no file or a listed equivalent
    names a function that is gone."""
    bad = problems() + orphan_equivalents(names, equivalent())
    for module in names:
        tests = tests_for(module)
        print(f"{module}: {', '.join(tests) if tests else 'NO TESTS'}")
        bad += [] if tests else [f"{module}: no test file found (tests/<path>/test_<module>*.py or EXTRAS)"]
    print("\n".join(bad), file=sys.stderr)
    return 1 if bad else 0


def score(found: dict[str, str], known: set[str]) -> tuple[int, int, float]:
    """Killed mutants, listed equivalents among the survivors, and the score in percent."""
    killed = sum(status in KILLED for status in found.values())
    same = sum(status not in KILLED and name in known for name, status in found.items())
    return killed, same, 100.0 * killed / (len(found) - same) if len(found) > same else 100.0


def no_tests(found: dict[str, str], known: set[str]) -> list[str]:
    """Mutants that no test runs, less those listed as equivalent (a protocol stub's default, say, never runs)."""
    return sorted(name for name, status in found.items() if status == UNTESTED and name not in known)


def stale_equivalents(module: str, found: dict[str, str], known: set[str]) -> list[str]:
    """Equivalents listed for ``module`` that name none of its mutants: its code changed, and mutmut numbers the
    mutants of a changed function afresh, so the list must be checked again (``mutmut show``)."""
    return sorted(name for name in known if name.rpartition(".")[0] + "." == dotted(module) and name not in found)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("modules", nargs="*", help="module paths from the repository root (default: every module)")
    parser.add_argument("--min-score", type=float, default=90.0, help="percent killed below which to exit 1")
    parser.add_argument("--max-children", type=int, default=2, help="mutants tested in parallel")
    parser.add_argument("--no-diffs", action="store_true", help="list surviving mutants by name only")
    parser.add_argument("--retest", action="store_true",
                        help="test only the last run's survivors again, against the current tests (fast iteration; "
                             "a fresh run is the figure to record)")
    parser.add_argument("--summary", action="store_true", help="run nothing: report the staged results as they are")
    parser.add_argument("--list", action="store_true", help="run nothing: each module and the tests found for it")
    args = parser.parse_args(argv)
    covered = modules()
    for module in args.modules:
        if module in SKIP:
            parser.error(f"{module} is not mutated: {SKIP[module]}")
        if module not in covered:
            parser.error(f"{module}: no such module under {', '.join(FOLDERS)} (a path from the repository root)")
    names = args.modules or covered
    if args.list:
        return list_modules(names)
    rows, failed = [], False
    for module in names:
        tests = tests_for(module)
        if not tests:
            print(f"{module}: no test file found (tests/<path>/test_<module>*.py or EXTRAS)", flush=True)
            failed = True
            continue
        if args.summary:
            found = statuses(module)
            if not found:
                continue
        else:
            found = (retest_module if args.retest else run_module)(module, tests, args.max_children)
        known = equivalent()  # read after the run: equivalents listed while it ran count too
        killed, same, percent = score(found, known)
        untested, stale = no_tests(found, known), stale_equivalents(module, found, known)
        failed |= percent < args.min_score or bool(untested) or bool(stale)
        rows.append((module, killed, len(found), same, percent))
        print(f"{module}: {killed}/{len(found)} killed, {same} equivalent: {percent:.1f}%"
              + (f"; {len(untested)} mutants no test runs" if untested else "")
              + (f"; {len(stale)} listed equivalents name no mutant" if stale else ""), flush=True)
        for name, status in sorted(found.items()):
            if status not in KILLED:
                print(f"  {status}{' (equivalent)' if name in known else ''}: {name}")
                if not args.no_diffs and name not in known:
                    print("    " + show(module, name).replace("\n", "\n    "))
        for name in stale:
            print(f"  listed as equivalent in {EQUIVALENT_DOC.name}, but no such mutant: {name}")
    print("\nmodule                              killed / mutants  equivalent   score")
    for module, killed, count, same, percent in rows:
        print(f"{module:<36}{killed:>6} / {count:<8}{same:>10}  {percent:>6.1f}%")
    total_killed, total, total_same = (sum(r[i] for r in rows) for i in (1, 2, 3))
    if total > total_same:
        print(f"{'all':<36}{total_killed:>6} / {total:<8}{total_same:>10}  "
              f"{100.0 * total_killed / (total - total_same):>6.1f}%")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
