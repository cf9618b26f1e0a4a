"""Docs that stay true: every module, file and test path that README.md or docs/*.md names exists.

A name counts when it sits in a code span (```runner/run/run.py```, ```auditpacks.judges.statistics.stats```) or
a Markdown link. Paths are read from the repository root (``auditpacks/packs/x.py`` as ``packs/x.py``);
a path without its top folder (``icj/score.py``) must be the end of some file's path; dotted names
must import, and an attribute after the module must exist on it (a mutant's name only needs its module).
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

from tests.support.paths import ROOT

DOCS = sorted([ROOT / "README.md", *(ROOT / "docs").glob("*.md")])
#: Top folders a repository path starts with.
TOPS = ("auditpacks", "packs", "judges", "runner", "tests", "scripts", "docs", "deploy")
#: Import name → folder, as pyproject's package-dir maps them.
FOLDERS = {"auditpacks.packs": "packs", "auditpacks.judges": "judges", "auditpacks.runner": "runner",
           "auditpacks": "auditpacks"}
#: Files and folders the docs name that belong to other projects (simpleaudit's).
ELSEWHERE = {"check_scenario_pack.py", "simpleaudit"}

_SPAN = re.compile(r"`([^`\n]+)`")
_LINK = re.compile(r"\]\(([^)\s#]+)")
_DOTTED = re.compile(r"^auditpacks(\.\w+)+")
_MUTANT = re.compile(r"\.x\w*__mutmut_\d+$|\.xǁ")


def _words(text: str) -> list[str]:
    """The words of every code span (less an option's value: an output path) and every local link."""
    words = []
    for span in _SPAN.findall(text):
        parts = span.split()
        words += [w for i, w in enumerate(parts) if i == 0 or not parts[i - 1].startswith("-")]
    words += [link for link in _LINK.findall(text) if "://" not in link]
    return [w.lstrip("('\"").rstrip(".,;:()'\"") for w in words]


def _repo_files() -> list[str]:
    return [p.relative_to(ROOT).as_posix() for top in TOPS for p in (ROOT / top).rglob("*")
            if "__pycache__" not in p.parts]


def path_problem(word: str, doc: Path, files: list[str]) -> str | None:
    """Why a path-like word names nothing in the repository, or None when it does (or is no path)."""
    if any(c in word for c in "<>*{}$=") or word.startswith(("-", "/", "~")):
        return None
    if word.startswith(".") and not word.startswith(("./", "../")):
        return None  # a hidden file (.venv, .auditpacks.lock)
    path = word.split("::")[0].split(":")[0].rstrip("/")
    if "/" not in path and not path.endswith(".py"):
        return None
    top = path.split("/")[0]
    if top in TOPS:
        found = (ROOT / path).exists() or (top == "auditpacks" and (ROOT / path.removeprefix("auditpacks/")).exists())
        return None if found else f"{path} does not exist"
    if not path.endswith(".py"):
        return None  # an output path or a URL part, not a file of this repository
    if {path.split("/")[0], path.split("/")[-1]} & ELSEWHERE:
        return None
    linked = (doc.parent / path).resolve()
    if linked.exists() or any(f == path or f.endswith("/" + path) for f in files):
        return None
    return f"{path} is the end of no file's path"


def dotted_problem(word: str) -> str | None:
    """Why a dotted ``auditpacks.…`` name names nothing, or None when it does."""
    match = _DOTTED.match(word)
    if not match:
        return None
    name = _MUTANT.split(match.group(0))[0]
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        module = ".".join(parts[:cut])
        prefix = max((p for p in FOLDERS if module == p or module.startswith(p + ".")), key=len)
        rel = FOLDERS[prefix] + module[len(prefix):].replace(".", "/")
        if (ROOT / f"{rel}.py").exists() or (ROOT / rel / "__init__.py").exists():
            break
    else:
        return f"{name}: no such module"
    obj = importlib.import_module(module)
    for attr in parts[cut:]:
        if not hasattr(obj, attr):
            return f"{name}: {module} has no {'.'.join(parts[cut:])}"
        obj = getattr(obj, attr)
    return None


def problems(doc: Path, files: list[str]) -> list[str]:
    found = []
    for word in _words(doc.read_text(encoding="utf-8")):
        why = dotted_problem(word) if word.startswith("auditpacks.") else path_problem(word, doc, files)
        if why:
            found.append(why)
    return sorted(set(found))


@pytest.mark.parametrize("doc", DOCS, ids=[d.name for d in DOCS])
def test_every_path_a_doc_names_exists(doc):
    assert problems(doc, _repo_files()) == []


def test_the_checker_catches_stale_names(tmp_path):
    """The checker itself: hand-written stale names are caught, live ones are not."""
    doc = tmp_path / "page.md"
    doc.write_text("Live: `runner/run/run.py`, `auditpacks.judges.statistics.stats.wilson_interval`, `icj/score.py`,\n"
                   "`tests/repo/test_docs.py::test_x`, `auditpacks.judges.choice.x_key__mutmut_4`, `--out x/y.py`.\n"
                   "Stale: `runner/execution/gone.py`, `auditpacks.runner.targets.gone`, `judges/x/y.py`,\n"
                   "`tests/test_gone.py`, `auditpacks.judges.statistics.stats.no_such_function`, [link](../runner/nope.py).\n",
                   encoding="utf-8")
    assert problems(doc, _repo_files()) == [
        "../runner/nope.py is the end of no file's path",
        "auditpacks.judges.statistics.stats.no_such_function: auditpacks.judges.statistics.stats has no no_such_function",
        "auditpacks.runner.targets.gone: auditpacks.runner.targets has no gone",
        "judges/x/y.py does not exist",
        "runner/execution/gone.py does not exist",
        "tests/test_gone.py does not exist",
    ]
