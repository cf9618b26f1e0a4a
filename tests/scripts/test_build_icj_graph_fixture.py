"""The committed fixture graph is exactly what scripts/build_icj_graph_fixture.py writes."""

from __future__ import annotations

import subprocess
import sys

from tests.support.icj_graph import GRAPH

SCRIPT = GRAPH.parents[3] / "scripts" / "build_icj_graph_fixture.py"


def test_the_fixture_is_reproduced_by_its_script(tmp_path):
    subprocess.run([sys.executable, str(SCRIPT), "--out", str(tmp_path)], check=True, capture_output=True)
    committed = sorted(p.relative_to(GRAPH) for p in GRAPH.rglob("*") if p.is_file())
    assert committed == sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file())
    assert all((GRAPH / p).read_bytes() == (tmp_path / p).read_bytes() for p in committed)
