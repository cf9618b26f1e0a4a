"""simpleaudit's stdlib-only ``decision`` module, loaded without the package's heavy ``__init__``.

``import simpleaudit.decision`` runs ``simpleaudit/__init__.py`` first, which imports the
model clients (any-llm, openai, anthropic: about two seconds). Checking a pack needs only
``validate_decision``, which imports nothing but the standard library, so the same file is
loaded here on its own; once the real package is imported, its module is used instead.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

_NAME = "auditpacks._simpleaudit_decision"


def simpleaudit_decision() -> ModuleType:
    """``simpleaudit.decision`` (the package's when already imported, else the same file loaded alone)."""
    if "simpleaudit.decision" in sys.modules:
        return sys.modules["simpleaudit.decision"]
    if _NAME not in sys.modules:
        package = importlib.util.find_spec("simpleaudit")
        if package is None or package.origin is None:
            raise ImportError("simpleaudit is not installed")
        spec = importlib.util.spec_from_file_location(_NAME, Path(package.origin).with_name("decision.py"))
        module = importlib.util.module_from_spec(spec)
        sys.modules[_NAME] = module
        spec.loader.exec_module(module)
    return sys.modules[_NAME]
