"""The house rules: one import name, layers that only point down (runner → judges → packs → core, and
within the runner cli → reporting → execution → targets → serving), and no module over 300 lines."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.support.paths import ROOT

#: folder → (its layer, the layers it may import)
LAYERS = {
    "auditpacks/core": ("core", {"core"}),
    "packs": ("packs", {"core", "packs"}),
    "judges": ("judges", {"core", "packs", "judges"}),
    "runner": ("runner", {"core", "packs", "judges", "runner"}),
}


def _imports(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
    return found


def _layer_of(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] != "auditpacks" or len(parts) < 2:
        return None
    return parts[1] if parts[1] in ("core", "packs", "judges", "runner") else "api"


@pytest.mark.parametrize("folder", sorted(LAYERS))
def test_imports_point_down(folder):
    layer, allowed = LAYERS[folder]
    wrong = []
    for path in sorted((ROOT / folder).rglob("*.py")):
        for lineno, module in _imports(path):
            target = _layer_of(module)
            if module.split(".")[0] in ("packs", "judges", "runner"):
                wrong.append(f"{path.relative_to(ROOT)}:{lineno} imports {module} outside the auditpacks name")
            elif target is not None and target not in allowed:
                wrong.append(f"{path.relative_to(ROOT)}:{lineno} ({layer}) imports {module} ({target})")
    assert not wrong, "\n".join(wrong)


#: The runner's subpackages, top to bottom: each may import those below it, never those above.
RUNNER_ORDER = ("cli", "reporting", "run", "display", "trust", "hosted", "readiness", "tools", "execute", "scenarios",
                "store", "systemone", "settings", "targets", "models", "serving")
#: Arrows that point up today, each with the reason it is still there.
KNOWN_UPWARD: dict[tuple[str, str], str] = {}


def _runner_arrows() -> list:
    arrows = []
    for low, sub in enumerate(RUNNER_ORDER):
        for high in RUNNER_ORDER[:low]:
            reason = KNOWN_UPWARD.get((sub, high))
            marks = [pytest.mark.xfail(strict=False, reason=reason)] if reason else []
            arrows.append(pytest.param(sub, high, marks=marks, id=f"{sub}-not-{high}"))
    return arrows


def _subpackage(module: str) -> str | None:
    parts = module.split(".")
    return parts[2] if parts[:2] == ["auditpacks", "runner"] and len(parts) > 2 and parts[2] in RUNNER_ORDER else None


@pytest.mark.parametrize("sub, above", _runner_arrows())
def test_runner_subpackages_point_down(sub, above):
    wrong = [f"{path.relative_to(ROOT)}:{lineno} imports {module}"
             for path in sorted((ROOT / "runner" / sub).rglob("*.py"))
             for lineno, module in _imports(path) if _subpackage(module) == above]
    assert not wrong, "\n".join(wrong)


def test_every_runner_subpackage_has_a_place_in_the_order():
    found = {init.parent.name for init in (ROOT / "runner").glob("*/__init__.py")}
    assert found == set(RUNNER_ORDER)

def test_no_module_over_300_lines():
    long = [f"{p.relative_to(ROOT)}: {n}" for folder in ("auditpacks", "packs", "judges", "runner", "scripts")
            for p in (ROOT / folder).rglob("*.py") if (n := len(p.read_text(encoding="utf-8").splitlines())) > 300]
    assert not long, long


def test_every_package_folder_is_shipped():
    """Each folder with an __init__.py is listed in pyproject's packages (else a wheel lacks it)."""
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(config["packages"])
    mapped = {v: k for k, v in config["package-dir"].items()}
    found = set()
    for top, name in mapped.items():
        for init in (ROOT / top).rglob("__init__.py"):
            rel = init.parent.relative_to(ROOT / top).parts
            found.add(".".join((name, *rel)))
    assert found == listed


def test_no_runner_folder_shadows_a_standard_module():
    """The cards' script runs as ``python runner/run_simpleaudit.py``, which puts ``runner/`` first on sys.path:
    a folder there named like a standard module (``select``, ``tokenize``) would replace it for every import."""
    import sys

    clashes = sorted(p.name for p in (ROOT / "runner").iterdir() if p.name in sys.stdlib_module_names
                     or p.stem in sys.stdlib_module_names and p.suffix == ".py")
    assert not clashes, clashes
