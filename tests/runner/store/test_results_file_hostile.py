"""A results file's header is data: the parts and documents it names are never deleted unless they are the names
this writer gives, whatever the header says."""

import json

from auditpacks.core.runs.run_files import journal_name, results_name
from tests.support.fake_openai import FakeOpenAI
from tests.support.runs import run_here
from tests.support.tiny_pack import write_pack


def forge_header(path, **fields):
    data = json.loads(path.read_text(encoding="utf-8"))
    path.write_text(json.dumps({**{k: v for k, v in data.items() if k != "results"}, **fields,
                                "results": data["results"]}, indent=2), encoding="utf-8")


def test_a_header_naming_another_models_results_and_the_journal_deletes_neither(tmp_path):
    pack, out = write_pack(tmp_path / "tiny.json", 3), tmp_path / "out"
    other = out / results_name("other")
    with FakeOpenAI() as server:
        assert run_here(pack, out, server.base_url) == 0
        other.write_text('{"results": []}', encoding="utf-8")
        forge_header(out / results_name("m"), parts=[other.name, "m.part2.json"], documents=journal_name("m"))
        (out / "m.part2.json").write_text("{}", encoding="utf-8")   # a file the header names, this run did not write
        assert run_here(pack, out, server.base_url) == 0              # resumed: the results file is written again
    assert other.read_text(encoding="utf-8") == '{"results": []}'
    assert (out / journal_name("m")).is_file() and len((out / journal_name("m")).read_text().splitlines()) == 4
    assert len(json.loads((out / results_name("m")).read_text(encoding="utf-8"))["results"]) == 3
    assert "parts" not in json.loads((out / results_name("m")).read_text(encoding="utf-8"))
