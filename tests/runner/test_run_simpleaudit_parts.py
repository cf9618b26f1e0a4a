"""The card runner's parts in process: which local copy of the card's pack it takes, when the hub counts as
unreachable, the card's pack from the cache or the hub (and the one line when neither has it), and the results
file at the card's path."""

from __future__ import annotations

import os
import socket
from pathlib import Path
from types import SimpleNamespace

import huggingface_hub
import pytest

from auditpacks.core.benchmark import Card
from auditpacks.core.errors import PackError
from auditpacks.runner import run_simpleaudit
from auditpacks.runner.run_simpleaudit import card_pack, card_results, hub_unreachable, local_pack

CARD = Card(repo="org/bench", smoke_file="bench_smoke3.json", full_file="bench.json",
            local_smoke=("simpleaudit/bench_smoke3.json", "bench_smoke3.json"), local_built=("bench.json",))


def touch(folder: Path, *names: str) -> None:
    for name in names:
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text("[]", encoding="utf-8")


@pytest.mark.parametrize("files, smoke, found", [
    (["simpleaudit/bench_smoke3.json", "bench_smoke3.json"], True, "simpleaudit/bench_smoke3.json"),
    (["bench_smoke3.json", "bench.json", "bench.manifest.json"], True, "bench_smoke3.json"),
    (["bench.json", "bench.manifest.json"], True, "bench.json"),      # built here: its manifest names the smoke set
    (["bench.json"], True, None),                                     # a plain full file is no smoke set
    (["bench_smoke3.json", "bench.json"], False, "bench.json"),       # the smoke file only with --smoke
    (["bench_smoke3.json"], False, None),
])
def test_the_local_copy_taken(tmp_path, files, smoke, found):
    touch(tmp_path, *files)
    assert local_pack(CARD, smoke, tmp_path) == (tmp_path / found if found else None)


@pytest.mark.parametrize("value", ["1", "TRUE", "yes", "On"])
def test_offline_mode_is_unreachable_without_a_connection(monkeypatch, value):
    monkeypatch.setenv("HF_HUB_OFFLINE", value)
    monkeypatch.setattr(socket, "create_connection", lambda *a, **k: pytest.fail("no connection is tried offline"))
    assert hub_unreachable() == "HF_HUB_OFFLINE is set and the file is not in the Hugging Face cache"


def connections(monkeypatch, error=None):
    """``socket.create_connection`` faked: each (address, timeout) asked; it fails with ``error`` when given."""
    asked = []

    def connect(address, timeout):
        asked.append((address, timeout))
        if error is not None:
            raise error
        return SimpleNamespace(close=lambda: None)

    monkeypatch.setattr(socket, "create_connection", connect)
    return asked


@pytest.mark.parametrize("endpoint, address", [(None, ("huggingface.co", 443)), ("http://mirror.lan", ("mirror.lan", 80)),
                                               ("https://mirror.lan:8443/hf", ("mirror.lan", 8443)),
                                               ("https://:8443", ("huggingface.co", 8443))])  # no host: the hub's
def test_the_hub_or_its_mirror_is_tried_within_seconds(monkeypatch, endpoint, address):
    monkeypatch.setenv("HF_HUB_OFFLINE", "0")
    if endpoint:
        monkeypatch.setenv("HF_ENDPOINT", endpoint)
    else:
        monkeypatch.delenv("HF_ENDPOINT", raising=False)
    asked = connections(monkeypatch)
    assert hub_unreachable() is None and asked == [(address, 3.0)]


def test_no_connection_says_where_and_why(monkeypatch):
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setenv("HF_ENDPOINT", "http://mirror.lan:81")
    connections(monkeypatch, ConnectionRefusedError("refused"))
    assert hub_unreachable() == "cannot reach mirror.lan:81 (ConnectionRefusedError: refused)"


def hub(monkeypatch, cached=False, download=None, unreachable=None, bundled=()):
    """The hub faked: the file in the cache or not; ``download`` the file's path or the error raised."""
    calls = []

    def hf_hub_download(repo, filename, *, repo_type, local_files_only=False):
        calls.append((repo, filename, repo_type, local_files_only))
        if local_files_only:
            if cached:
                return f"/cache/{filename}"
            raise FileNotFoundError(filename)
        if isinstance(download, Exception):
            raise download
        return download

    monkeypatch.setattr(huggingface_hub, "hf_hub_download", hf_hub_download)
    monkeypatch.setattr(run_simpleaudit, "hub_unreachable", lambda: unreachable)
    monkeypatch.setattr(run_simpleaudit, "BENCHMARKS", {name: SimpleNamespace(bundled=name in bundled)
                                                        for name in ("bench", "toy")})
    return calls


@pytest.mark.parametrize("smoke, filename", [(True, "bench_smoke3.json"), (False, "bench.json")])
def test_the_cached_file_is_taken_without_asking_the_hub(monkeypatch, smoke, filename):
    calls = hub(monkeypatch, cached=True, unreachable="must not be asked")
    assert card_pack("bench", CARD, smoke) == Path(f"/cache/{filename}")
    assert calls == [("org/bench", filename, "dataset", True)]


def test_a_file_not_cached_is_downloaded(monkeypatch):
    calls = hub(monkeypatch, download="/downloaded/bench.json")
    assert card_pack("bench", CARD, False) == Path("/downloaded/bench.json")
    assert calls[1] == ("org/bench", "bench.json", "dataset", False)


ADVICE = ("accept the dataset's terms on its page and run `hf auth login`, or pass --pack PACK.json (e.g. one built "
          "with `auditpacks build bench`)")


@pytest.mark.parametrize("download, unreachable, reason", [
    (RuntimeError("401 Client Error: gated\nfull response"), None, "401 Client Error: gated"),
    (RuntimeError("  "), None, "RuntimeError"),
    (None, "cannot reach huggingface.co:443 (OSError: down)", "cannot reach huggingface.co:443 (OSError: down)"),
])
def test_no_pack_is_one_line_saying_why_and_what_to_do(monkeypatch, download, unreachable, reason):
    calls = hub(monkeypatch, download=download, unreachable=unreachable)
    with pytest.raises(PackError) as err:
        card_pack("bench", CARD, True)
    assert str(err.value) == f"hf:org/bench/bench_smoke3.json: cannot download ({reason}); {ADVICE}"
    assert len(calls) == (1 if unreachable else 2)


def test_a_bundled_benchmark_is_offered_instead(monkeypatch):
    hub(monkeypatch, unreachable="offline", bundled=("toy",))
    with pytest.raises(PackError) as err:
        card_pack("bench", CARD, False)
    assert str(err.value).endswith(f"{ADVICE}, or run the bundled toy pack: `auditpacks build toy --out toy.json` "
                                   "then --pack toy.json")


def test_the_results_are_linked_at_the_cards_path_and_replace_an_older_file(tmp_path):
    source = tmp_path / "run" / "m.json"
    touch(tmp_path, "run/m.json", "results/qwen3_8b.json")
    source.write_text('{"results": []}', encoding="utf-8")
    made = card_results(SimpleNamespace(model="qwen3:8b"), source, tmp_path / "results")
    assert made == tmp_path / "results" / "qwen3_8b.json" and made.read_text() == '{"results": []}'
    assert os.path.samefile(made, source) and sorted(os.listdir(tmp_path / "results")) == ["qwen3_8b.json"]
    assert card_results(SimpleNamespace(model="qwen3:8b"), made, tmp_path / "results") == made   # already there


def test_without_hard_links_the_results_are_copied(tmp_path, monkeypatch):
    source = tmp_path / "m.json"
    source.write_text("{}", encoding="utf-8")
    touch(tmp_path, "results/.org_model.json.partial")                 # a copy cut short before

    def no_link(src, dst):
        raise OSError("links not supported")

    monkeypatch.setattr(os, "link", no_link)
    made = card_results(SimpleNamespace(model="org/model"), source, tmp_path / "results")
    assert made.read_text() == "{}" and not os.path.samefile(made, source)
    assert sorted(os.listdir(tmp_path / "results")) == ["org_model.json"]
