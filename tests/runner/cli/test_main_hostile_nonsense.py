"""Tracebacks and accepted nonsense: malformed packs, manifests, registries, datasets and prediction files,
wrong-shaped replies and interrupted builds each end in one line and a non-zero exit, never a traceback."""

from __future__ import annotations

import json

import pytest

from auditpacks.runner.cli.main import main
from tests.support.fake_openai import FakeOpenAI
from tests.support.runs import results, run_here
from tests.support.stub_http import StubHTTP
from tests.support.tiny_pack import write_pack
from tests.support.paths import FIXTURES


def one_line_error(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err and "unexpected" not in err, err
    return err


def test_a_pack_that_check_rejects_is_not_run_unless_asked(tmp_path, capsys):
    pack = write_pack(tmp_path / "tiny.json", 2)
    scenarios = json.loads(pack.read_text())
    scenarios[1]["severity"] = "apocalyptic"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(scenarios))
    with FakeOpenAI() as server:
        assert run_here(bad, tmp_path / "out", server.base_url) == 2
        assert "ERROR finding" in one_line_error(capsys) and server.chat_requests == 0
        assert not (tmp_path / "out").exists()
        assert run_here(bad, tmp_path / "out", server.base_url, "--no-check") == 0
        assert server.chat_requests == 2


@pytest.mark.parametrize("edit, expected", [
    (lambda s: s.__setitem__("metadata", [1]), "metadata"),
    (lambda s: s.__setitem__("documents", "text"), "documents"),
])
def test_a_malformed_scenario_is_one_line_even_with_no_check(tmp_path, capsys, edit, expected):
    pack = write_pack(tmp_path / "tiny.json", 2)
    scenarios = json.loads(pack.read_text())
    edit(scenarios[0])
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(scenarios))
    assert run_here(bad, tmp_path / "out", "http://127.0.0.1:9/v1", "--no-check") == 2
    assert expected in one_line_error(capsys)
    assert not (tmp_path / "out").exists()  # no header-only journal


def test_a_registry_with_a_null_law_is_one_line(tmp_path, capsys):
    fixtures = FIXTURES / "jacite"
    for name in ("questions.json", "registry.json"):
        (tmp_path / name).write_bytes((fixtures / name).read_bytes())
    registry = json.loads((tmp_path / "registry.json").read_text())
    (tmp_path / "registry.json").write_text(json.dumps({**registry, "laws": [None, *registry["laws"]]}))
    assert main(["build", "jacite", "--source", str(tmp_path), "--out", str(tmp_path / "p.json")]) == 2
    assert "law #0 is null" in one_line_error(capsys)
    (tmp_path / "bare.json").write_text('{"laws": [null]}')
    assert main(["rescore", "jacite", str(fixtures / "benchmark.json"), "--registry", str(tmp_path / "bare.json")]) == 2
    assert "laws[0]" in one_line_error(capsys)


@pytest.mark.parametrize("every_row", [False, True])
def test_iustitia_options_given_as_a_string_is_one_line(tmp_path, capsys, every_row):
    import shutil

    source = tmp_path / "src"
    shutil.copytree(FIXTURES / "iustitia", source)
    tasks = next((source / "tasks").glob("*.jsonl"))
    rows = [json.loads(line) for line in tasks.read_text(encoding="utf-8").splitlines()]
    for row in rows if every_row else rows[:1]:
        row["options"] = "guilty, acquitted"
    tasks.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    assert main(["build", "iustitia", "--source", str(source), "--out", str(tmp_path / "p.json")]) == 2
    assert "options" in one_line_error(capsys) and not (tmp_path / "p.json").exists()


def test_a_null_line_in_an_iustitia_file_is_one_line_not_a_crash(tmp_path, capsys):
    import shutil

    source = tmp_path / "src"
    shutil.copytree(FIXTURES / "iustitia", source)
    units = next((source / "units").glob("*.jsonl"))
    units.write_text("null\n" + units.read_text(encoding="utf-8"), encoding="utf-8")  # crashed the Arrow reader
    assert main(["build", "iustitia", "--source", str(source), "--out", str(tmp_path / "p.json")]) == 2
    assert "line 1: a NoneType, not a JSON object" in one_line_error(capsys)


@pytest.mark.parametrize("manifest", ["[1]", "null", '"x"', '{"sha256": 5}'])
def test_a_manifest_that_is_not_an_object_is_one_line(tmp_path, capsys, manifest):
    pack = write_pack(tmp_path / "tiny.json", 2)
    (tmp_path / "tiny.manifest.json").write_text(manifest)
    assert main(["check", str(pack)]) == 2
    assert "tiny.manifest.json" in one_line_error(capsys)


def test_empty_packs_and_prediction_files_are_refused(tmp_path, capsys):
    empty = tmp_path / "empty.json"
    empty.write_text("[]")
    assert main(["check", str(empty)]) == 1
    capsys.readouterr()
    assert run_here(empty, tmp_path / "out", "http://127.0.0.1:9/v1") == 2
    assert "no scenario" in one_line_error(capsys)
    fixtures = FIXTURES / "icj"
    (tmp_path / "pred.jsonl").write_text("")
    assert main(["score", "icj", "--pred", str(tmp_path / "pred.jsonl"), "--test",
                 str(fixtures / "data" / "test.jsonl"), "--allow-partial", "--out", str(tmp_path / "s.json")]) == 2
    assert "no prediction" in one_line_error(capsys)
    assert not (tmp_path / "s.json").exists()


def test_icj_validation_metadata_of_other_shapes_is_kept_and_every_record_scored(tmp_path):
    fixtures = FIXTURES / "icj"
    lines = (fixtures / "results" / "predictions.jsonl").read_text().splitlines()
    shapes = [{"validation": {"valid": True, "issues": []}}, {"validation": "ok"}, {"status": "partial"}]
    changed = []
    for i, line in enumerate(lines):
        record = {k: v for k, v in json.loads(line).items() if k not in ("validation", "validation_status", "status")}
        changed.append(json.dumps({**record, **shapes[i % 3]}))
    (tmp_path / "pred.jsonl").write_text("\n".join(changed) + "\n")
    test = str(fixtures / "data" / "test.jsonl")
    assert main(["score", "icj", "--pred", str(fixtures / "results" / "predictions.jsonl"), "--test", test,
                 "--out", str(tmp_path / "as_published.json")]) == 0
    assert main(["score", "icj", "--pred", str(tmp_path / "pred.jsonl"), "--test", test,
                 "--out", str(tmp_path / "s.json")]) == 0
    ours, published = (json.loads((tmp_path / n).read_text()) for n in ("s.json", "as_published.json"))
    assert ours["results"] == published["results"] and ours["records"] == len(lines)
    n = len(lines)
    expected = {"valid": -(-n // 3), "ok": -(-(n - 1) // 3), "partial": n // 3}
    assert ours["validation"] == {k: v for k, v in sorted(expected.items()) if v}


def test_a_200_reply_of_the_wrong_shape_is_that_scenario_error(tmp_path, capsys):
    pack = write_pack(tmp_path / "tiny.json", 2)

    def wrong(method, path, headers, body):
        return (200, {"object": "list", "data": []}) if method == "GET" else (200, {"choices": None, "id": 3})

    with StubHTTP(wrong) as server:
        assert run_here(pack, tmp_path / "out", server.url + "/v1", "--max-retries", "0") == 3
    assert [r["severity"] for r in results(tmp_path / "out")] == ["ERROR", "ERROR"]
    capsys.readouterr()
    for reply in ([1], {"answers": [1]}, {"answers": {"answer": "x"}}):
        with StubHTTP(lambda *a, r=reply: (200, r)) as server:
            code = main(["run", "--pack", str(pack), "--decision-url", f"{server.url}/v1/systemone", "--target", "d",
                         "--out", str(tmp_path / f"d{len(str(reply))}"), "--quiet"])
        assert code == 3, capsys.readouterr().err  # finished, every scenario an ERROR
        assert all(r["severity"] == "ERROR" for r in results(tmp_path / f"d{len(str(reply))}", "d"))


def test_an_interrupted_build_leaves_no_temporary_file(tmp_path, monkeypatch, capsys):
    from auditpacks.packs.pack import PackWriter

    def interrupt(self, scenario, **count_by):
        raise KeyboardInterrupt

    monkeypatch.setattr(PackWriter, "add", interrupt)
    assert main(["build", "jacite", "--out", str(tmp_path / "p.json")]) == 130
    assert list(tmp_path.iterdir()) == []
