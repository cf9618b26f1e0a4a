"""Inside the runner the model-call path points down: execution → targets → models, never back."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from tests.support.paths import ROOT

RUNNER = ROOT / "runner"
#: subpackage → the runner subpackages it must not import
FORBIDDEN = {"targets": {"execution", "cli", "reporting"}, "models": {"execution", "targets", "cli", "reporting"}}


def runner_imports(path: Path) -> list[tuple[int, str]]:
    """(line, runner subpackage) for every absolute import of ``auditpacks.runner.<subpackage>``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
            [node.module] if isinstance(node, ast.ImportFrom) and node.module and node.level == 0 else []
        for name in names:
            parts = name.split(".")
            if parts[:2] == ["auditpacks", "runner"] and len(parts) > 2:
                found.append((node.lineno, parts[2]))
    return found


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_no_import_points_back_up(package):
    wrong = [f"{path.relative_to(RUNNER)}:{line} imports runner.{target}"
             for path in sorted((RUNNER / package).glob("*.py"))
             for line, target in runner_imports(path) if target in FORBIDDEN[package]]
    assert not wrong, "\n".join(wrong)


def test_the_check_sees_an_import_that_points_back(tmp_path):
    module = tmp_path / "m.py"
    module.write_text("def f():\n    from auditpacks.runner.execution.config import RunConfig\n", encoding="utf-8")
    assert runner_imports(module) == [(2, "execution")]
