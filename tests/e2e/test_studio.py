"""Every kind of folder a run leaves, in SimpleAudit Studio's own results browser (``simpleaudit-studio
--visualize-only --results_dir DIR``, from its own environment, on 127.0.0.1), driven in headless Chromium as a
user would: sign in, open every folder of the tree, open every file it offers. Studio must offer exactly the
results files (of each round, each part of a split one; never the run record, the journal, the progress or
tool files, the response cache, the index or the ``latest`` link), and each must open with its scenarios and
without Studio's error. Two Studios: one given the folder of every kind of run folder, one given a pack's
``latest`` (the README's command). The runs are on the test doubles (no model)."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from tests.conftest import model_unusable
from tests.support.browser import browser_unavailable, open_page
from tests.support.studio import Studio, group_alive, studio_unavailable
from tests.support.studio_runs import SCENARIOS, make_folders

#: What a results file is called (docs/results.md): <stem>.json, <stem>.round<N>.json, and the parts of a split
#: one, <stem>[.round<N>].part<K>.json, beside its run record <stem>.run.json.
RESULTS_NAME = re.compile(r"(?P<stem>.+?)(\.round\d+)?(\.part\d+)?\.json")
#: Every scenario of the tiny pack, in order: two per judgment.
TINY = [f"Tiny {i:04d} - Outcome of V{i // 2:04d}" for i in range(SCENARIOS)]
#: The path of every file the tree offers, from its folders' names, in the tree's order.
OFFERED = """() => [...document.querySelectorAll('#file-tree .tree-item')].filter(e => e.querySelector('.file-icon'))
    .map(e => {
        const parts = [e.querySelector('.marquee-wrap').title];
        for (let n = e.parentElement; n && n.id !== 'file-tree'; n = n.parentElement)
            if (n.classList.contains('tree-children'))
                parts.unshift(n.previousElementSibling.querySelector('.marquee-wrap').title);
        return parts.join('/');
    })"""
LOADED = "() => !document.getElementById('file-info').textContent.startsWith('Loading')"


@pytest.fixture(scope="module")
def studios(tmp_path_factory):
    """(Studio given every kind of folder, Studio given the pack folder's ``latest``, the folders); every process of
    both is gone afterwards, whatever the tests did."""
    for what, reason in (("headless browser", browser_unavailable()), ("SimpleAudit Studio", studio_unavailable())):
        if reason:
            model_unusable(f"{what}: {reason}")
    root = tmp_path_factory.mktemp("studio")
    results = root / "results"
    results.mkdir()
    every = Studio(results, root / "studio-every")
    latest = Studio(results / "tiny" / "latest", root / "studio-latest", beside=every)  # its database migrated
    try:
        every.launch()
        assert make_folders(root) == results  # while Studio sets up its database
        every.wait()
        yield every, latest.start(), results
    finally:
        every.stop()
        latest.stop()
    left = [s.process.pid for s in (every, latest) if s.process is not None and group_alive(s.process.pid)]
    assert not left, f"Studio left processes behind (process groups {left})"


def results_files(folder: Path) -> list[str]:
    """Every results file under ``folder`` (links not followed, as ``latest``), by its path from ``folder``."""
    return sorted((Path(top) / name).relative_to(folder).as_posix() for top, _, files in os.walk(folder)
                  for name in files if (found := RESULTS_NAME.fullmatch(name))
                  and found["stem"] + ".run.json" in files)


def names_in(path: Path) -> list[str]:
    return [r["scenario_name"] for r in json.loads(path.read_text(encoding="utf-8"))["results"]]


def open_every_file(studio: Studio, folder: Path) -> tuple[list[str], dict[str, list[str]]]:
    """Sign in, open every folder of the tree and every file it offers: (the files offered, by path in the tree;
    per file, the scenario names its results list), each file checked as it opens."""
    with open_page(studio.url + "/login/?next=/visualizer/", width=1400, height=1000) as opened:
        page, failed = opened.page, []
        page.on("response", lambda r: failed.append(f"{r.status} {r.url}") if r.status >= 400 else None)
        page.fill("input[name=username]", studio.username)
        page.fill("input[name=password]", studio.password)
        page.click("button[type=submit]")
        page.wait_for_url("**/visualizer/")
        page.locator("#file-tree .file-icon").first.wait_for()
        while (closed := page.locator("#file-tree .tree-item:has(.folder-icon:not(.open))")).count():
            closed.first.locator(".marquee-wrap").click()
        offered, shown = page.evaluate(OFFERED), {}
        for i, path in enumerate(offered):
            with page.expect_response(lambda r: "/api/visualizer/api/json/" in r.url) as reply:
                page.locator("#file-tree .tree-item:has(.file-icon)").nth(i).locator(".marquee-wrap").click()
            assert reply.value.status == 200, path
            page.wait_for_function(LOADED)
            names, name = names_in(folder / path), path.rsplit("/", 1)[-1]
            assert page.inner_text("#file-info") == (name if len(names) == 1 else f"{name} • {len(names)} scenarios")
            listed = page.inner_text("#scenario-list")
            assert all(n in listed for n in names), path
            assert names[0] in page.inner_text("#scenario-detail"), path  # the first scenario, opened
            assert "Invalid JSON Format" not in page.inner_text("body") and "Error" not in listed, path
            shown[path] = names
        assert opened.dialogs == [] and failed == []
    return offered, shown


def test_the_folders_hold_every_kind_of_run_file(studios):
    results = studios[-1]
    runs = sorted(p.name for p in (results / "tiny").iterdir() if p.is_dir() and not p.is_symlink())
    assert len(runs) == 2 and (results / "tiny" / "runs.jsonl").is_file()
    assert (results / "tiny" / "latest").resolve() == (results / "tiny" / runs[1]).resolve()  # the --repeats run
    for left in (f"tiny/{runs[1]}/m.run.json", f"tiny/{runs[1]}/m.journal.jsonl", f"tiny/{runs[1]}/m.progress.jsonl",
                 "split/m.documents.jsonl", "tools/scripted.tools.jsonl", "tools/scripted.traces.jsonl",
                 "tools/scripted.tools-journal.jsonl", "merged/m.run.json"):
        assert (results / left).is_file(), left  # there, and never offered below
    assert list((results / "tools" / "responses").rglob("*.json"))  # the response cache: JSON, not results


def test_studio_offers_exactly_the_results_files_and_each_opens_with_its_scenarios(studios):
    every, _, results = studios
    runs = sorted(p.name for p in (results / "tiny").iterdir() if p.is_dir() and not p.is_symlink())
    expected = results_files(results)
    assert expected == ["merged/m.json", "shard1/m.json", "shard2/m.json", "split/m.json", "split/m.part2.json",
                        "split/m.part3.json", f"tiny/{runs[0]}/m.json", f"tiny/{runs[1]}/m.json",
                        f"tiny/{runs[1]}/m.round2.json", "tools/scripted.json"]
    offered, shown = open_every_file(every, results)
    assert sorted(offered) == expected
    assert [n for p in ("split/m.json", "split/m.part2.json", "split/m.part3.json") for n in shown[p]] == TINY
    assert sorted(shown["shard1/m.json"] + shown["shard2/m.json"]) == TINY and shown["merged/m.json"] == TINY
    assert all(shown[p] == TINY for p in expected if p.startswith("tiny/"))  # each run, each round
    assert len(shown["tools/scripted.json"]) == 2 and shown["tools/scripted.json"][0].startswith("ICJ 001 - ")


def test_a_packs_latest_opens_as_the_run_it_names(studios):
    _, latest, results = studios
    offered, shown = open_every_file(latest, results / "tiny" / "latest")
    assert offered == ["m.json", "m.round2.json"] and shown == {"m.json": TINY, "m.round2.json": TINY}
