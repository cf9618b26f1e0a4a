"""No import cycles among the project's modules: every import counts, the ones inside functions too (a lazy
import that closes a cycle still ties two modules into one unit that can only be understood, tested and moved
together)."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.support.paths import ROOT

#: source folder → the import name its modules have
FOLDERS = {"auditpacks": "auditpacks", "packs": "auditpacks.packs", "judges": "auditpacks.judges",
           "runner": "auditpacks.runner"}


def _modules() -> dict[str, Path]:
    found = {}
    for folder, name in FOLDERS.items():
        for path in (ROOT / folder).rglob("*.py"):
            parts = list(path.relative_to(ROOT / folder).with_suffix("").parts)
            if folder == "auditpacks" and parts[0] in ("packs", "judges", "runner"):
                continue
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join([name, *parts])] = path
    return found


def import_graph(modules: dict[str, Path]) -> dict[str, set[str]]:
    """Module → the project modules it imports anywhere in its body. ``from package import name`` points at the
    submodule ``package.name`` when there is one, else at the package; a name inside a module points at it."""

    def owner(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {}
    for module, path in modules.items():
        edges = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [f"{node.module}.{alias.name}" if f"{node.module}.{alias.name}" in modules else node.module
                         for alias in node.names]
            else:
                continue
            edges |= {found for name in names if name.startswith("auditpacks") and (found := owner(name))}
        graph[module] = edges - {module}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_cycles_are_found():
    """The finder itself: a three-module ring and a two-module pair are found, a chain is not."""
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"e"}, "e": {"d", "a"}, "f": {"a"}}
    assert sorted(cycles(graph)) == [["a", "b", "c"], ["d", "e"]]
    assert cycles({"a": {"b"}, "b": {"c"}, "c": set()}) == []


def test_submodule_imports_point_at_the_submodule(tmp_path):
    """``from package import module`` depends on that module, not on the package's ``__init__``."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("def helper():\n    from auditpacks.pkg.sub import thing\n")
    (tmp_path / "pkg" / "sub.py").write_text("from auditpacks.pkg import other\nthing = 1\n")
    (tmp_path / "pkg" / "other.py").write_text("from auditpacks.pkg import helper\n")
    modules = {"auditpacks.pkg": tmp_path / "pkg" / "__init__.py", "auditpacks.pkg.sub": tmp_path / "pkg" / "sub.py",
               "auditpacks.pkg.other": tmp_path / "pkg" / "other.py"}
    graph = import_graph(modules)
    assert graph == {"auditpacks.pkg": {"auditpacks.pkg.sub"}, "auditpacks.pkg.sub": {"auditpacks.pkg.other"},
                     "auditpacks.pkg.other": {"auditpacks.pkg"}}
    assert cycles(graph) == [["auditpacks.pkg", "auditpacks.pkg.other", "auditpacks.pkg.sub"]]


def test_no_import_cycles():
    found = cycles(import_graph(_modules()))
    assert not found, "import cycles (each a set of modules that import one another):\n" + "\n".join(
        " <-> ".join(component) for component in found)
