"""Every kind of folder a run leaves, made on the test doubles in a few seconds, for the test in SimpleAudit Studio.

    results = make_folders(root)    # root/packs/ holds the packs; results (root/results) the folders:

* ``tiny/``: a pack's folder, as ``run`` without ``--out`` writes it: two runs (a plain one, and one with
  ``--temperature 0.7 --repeats 2``, so with a round file), ``runs.jsonl`` and the link ``latest``;
* ``split/``: a run whose results file passed the size limit (lowered to :data:`SPLIT_LIMIT`): its parts and
  its documents stored once;
* ``shard1/``, ``shard2/`` and ``merged/``: two shards and their merge;
* ``tools/``: an ICJ run under a tool condition (traces, tool facts and journal, the response cache) on the
  scripted tool server.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from auditpacks.runner.cli.main import main
from tests.support.export_runs import tool_script
from tests.support.fake_openai import FakeOpenAI
from tests.support.icj_graph import GRAPH
from tests.support.paths import FIXTURES
from tests.support.runs import run_here
from tests.support.tiny_pack import write_pack
from tests.support.tool_server import ScriptedToolServer

#: Scenarios in the tiny pack, each with a document in its transcript, two per judgment.
SCENARIOS = 6
#: The results-file size limit of the split run: about two of these results to a part.
SPLIT_LIMIT = 6000


def make_folders(root: Path) -> Path:
    """The folders above under ``root / "results"`` (returned), the packs under ``root / "packs"``."""
    packs, results = root / "packs", root / "results"
    packs.mkdir(parents=True)
    tiny = write_pack(packs / "tiny.json", SCENARIOS, documents=True, per_document=2)
    icj = packs / "icj.json"
    assert main(["build", "icj", "--source", str(FIXTURES / "icj"), "--out", str(icj)]) == 0
    with FakeOpenAI() as server, pytest.MonkeyPatch.context() as patch:
        patch.chdir(root)  # without --out, runs go to results/<pack>/<run id>/
        command = ["run", "--pack", str(tiny), "--target", "m", "--base-url", server.base_url, "--quiet"]
        assert main(command) == 0
        assert main([*command, "--temperature", "0.7", "--repeats", "2"]) == 0
        for shard in ("1/2", "2/2"):
            assert run_here(tiny, results / f"shard{shard[0]}", server.base_url, "--shard", shard) == 0
        patch.setattr("auditpacks.runner.store.results_file.LIMIT_BYTES", SPLIT_LIMIT)
        assert run_here(tiny, results / "split", server.base_url) == 0
    assert main(["merge", str(results / "shard1"), str(results / "shard2"), "--out", str(results / "merged"),
                 "--pack", str(tiny)]) == 0
    with ScriptedToolServer(tool_script) as server:
        assert main(["tools", "icj", "run", "--graph", str(GRAPH), "--pack", str(icj), "--condition",
                     "Designed Tools Only", "--base-url", server.base_url, "--target", "scripted", "--limit", "2",
                     "--out", str(results / "tools"), "--cache", str(root / "snapshots")]) == 0
    return results
