"""simpleaudit's ``decision`` module loaded on its own: the same file, without the package's heavy imports."""

import importlib.metadata
import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType, SimpleNamespace

import pytest

from auditpacks.core.simpleaudit_decision import simpleaudit_decision

PROBE = """
import json, sys
from auditpacks.core.simpleaudit_decision import simpleaudit_decision
module = simpleaudit_decision()
alone = {"file": module.__file__, "heavy": "simpleaudit" in sys.modules, "again": simpleaudit_decision() is module,
         "validates": callable(getattr(module, "validate_decision", None))}
import simpleaudit.decision
alone["then_the_package_s"] = simpleaudit_decision() is sys.modules["simpleaudit.decision"]
alone["package_file"] = sys.modules["simpleaudit.decision"].__file__
print(json.dumps(alone))
"""


def test_loaded_alone_until_the_package_is_imported():
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=120, check=True)
    found = json.loads(out.stdout)
    assert found["heavy"] is False          # simpleaudit/__init__.py never ran
    assert found["again"] is True           # loaded once
    assert found["validates"] is True
    assert found["file"] == found["package_file"]  # the package's own decision.py
    assert found["then_the_package_s"] is True


# The same behaviour in this process (a fresh interpreter above shows that the package never ran).

ALONE, PACKAGE_S = "auditpacks._simpleaudit_decision", "simpleaudit.decision"


@pytest.fixture
def fresh():
    """Neither the package's decision module nor the lone copy loaded; both put back afterwards."""
    saved = {name: sys.modules.pop(name) for name in (ALONE, PACKAGE_S) if name in sys.modules}
    yield
    for name in (ALONE, PACKAGE_S):
        sys.modules.pop(name, None)
    sys.modules.update(saved)


def test_the_file_is_loaded_once_under_its_own_name(fresh):
    shipped = Path(importlib.metadata.distribution("simpleaudit").locate_file("simpleaudit/decision.py"))
    module = simpleaudit_decision()
    assert module.__name__ == ALONE and sys.modules[ALONE] is module
    assert Path(module.__file__).resolve() == shipped.resolve()
    assert callable(module.validate_decision)
    module.marker = "first load"
    assert simpleaudit_decision() is module and module.marker == "first load"


def test_the_package_s_module_wins_once_imported(fresh):
    imported = ModuleType(PACKAGE_S)
    sys.modules[PACKAGE_S] = imported
    assert simpleaudit_decision() is imported
    assert ALONE not in sys.modules


@pytest.mark.parametrize("spec", [None, SimpleNamespace(origin=None)])
def test_without_simpleaudit_the_error_says_so(fresh, monkeypatch, spec):
    asked = []
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: asked.append(name) or spec)
    with pytest.raises(ImportError, match="^simpleaudit is not installed$"):
        simpleaudit_decision()
    assert asked == ["simpleaudit"] and ALONE not in sys.modules
