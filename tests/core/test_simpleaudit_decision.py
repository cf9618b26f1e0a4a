"""simpleaudit's ``decision`` module loaded on its own: the same file, without the package's heavy imports."""

import json
import subprocess
import sys

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
