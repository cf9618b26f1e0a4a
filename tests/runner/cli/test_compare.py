"""``auditpacks compare FOLDER``: the runs of each pack compared with one another, named by what differs."""

from __future__ import annotations

import json
import shutil

from auditpacks.runner.cli.main import main
from tests.support.six_runs import write_six_runs


def test_a_folder_compares_each_packs_runs_and_names_the_lone_ones(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    write_six_runs(tmp_path)
    shutil.rmtree(tmp_path / "results" / "run5")
    shutil.rmtree(tmp_path / "results" / "run6")      # beta keeps one run: nothing to pair it with
    assert main(["compare", "results", "--json"]) == 0
    printed = capsys.readouterr()
    pairs = [(c["a"], c["b"]) for c in json.loads(printed.out)]
    assert pairs == [("alpha.json · temperature 0 · seed 0", "alpha.json · temperature 0.7 · seed 0"),
                     ("alpha.json · temperature 0 · seed 0", "alpha.json · temperature 0 · seed 3")]
    assert "m · beta.json: no other run of its pack and benchmark here; left out" in printed.err
    assert main(["compare", "results"]) == 0
    assert capsys.readouterr().out.startswith("what differs: pack (alpha.json, beta.json); temperature (0, 0.7); "
                                              "seed (0, 3)\n")
