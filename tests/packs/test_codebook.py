"""The codebook: one section per benchmark, from the shipped file or AUDITPACKS_CODEBOOK, with one-line errors."""

import pytest

from auditpacks.core.errors import PackError
from auditpacks.packs import codebook
from tests.support.paths import ROOT


def test_the_shipped_codebook_is_the_repository_s_and_has_each_benchmark():
    assert codebook.DEFAULT_PATH.read_bytes() == (ROOT / "codebook.yaml").read_bytes()
    for name in ("jacite", "iustitia", "icj"):
        assert isinstance(codebook.section(name), dict)
    assert codebook.section("icj")["undated_decision"] == "its final decision"


def use(monkeypatch, path, text):
    path.write_text(text, encoding="utf-8")
    monkeypatch.setenv("AUDITPACKS_CODEBOOK", str(path))


def test_another_codebook_by_environment(monkeypatch, tmp_path):
    use(monkeypatch, tmp_path / "cb.yaml", "toy:\n  template: 'Q: {q}'\n")
    assert codebook.codebook_path() == tmp_path / "cb.yaml"
    assert codebook.section("toy") == {"template": "Q: {q}"}


@pytest.mark.parametrize("text, name, message", [
    ("toy: 1\n", "toy", "cb1.yaml: no section 'toy'"),
    ("other: {}\n", "toy", "cb2.yaml: no section 'toy'"),
    ("- a\n- b\n", "toy", "cb3.yaml: the codebook must be a mapping of benchmark sections"),
    ("toy: [unclosed\n", "toy", "cb4.yaml: invalid YAML: "),
])
def test_bad_codebooks_are_one_line(monkeypatch, tmp_path, text, name, message):
    number = message[2]
    use(monkeypatch, tmp_path / f"cb{number}.yaml", text)
    with pytest.raises(PackError) as err:
        codebook.section(name)
    assert str(err.value).startswith(message) and "\n" not in str(err.value)


def test_a_missing_codebook_names_its_path(monkeypatch, tmp_path):
    monkeypatch.setenv("AUDITPACKS_CODEBOOK", str(tmp_path / "gone.yaml"))
    with pytest.raises(PackError) as err:
        codebook.section("toy")
    assert str(err.value) == f"{tmp_path / 'gone.yaml'}: codebook not found"
