"""The image definition: the package without dev extras, a non-root user, a build context without local state."""

from __future__ import annotations

from tests.support.paths import ROOT

LINES = [line.strip() for line in (ROOT / "deploy" / "Containerfile").read_text().splitlines()
         if line.strip() and not line.lstrip().startswith("#")]


def instructions(name: str) -> list[str]:
    return [line.split(None, 1)[1] for line in LINES if line.split(None, 1)[0] == name]


def test_it_installs_the_package_without_extras():
    install = " ".join(instructions("RUN"))
    assert "pip install /tmp/auditpacks " in install + " "
    assert "[" not in install  # no extras: neither dev nor the embedded model's engine


def test_it_runs_as_a_numeric_non_root_user_after_installing():
    user = instructions("USER")
    assert user == ["10001:10001"]
    assert LINES.index("USER 10001:10001") > max(i for i, line in enumerate(LINES) if line.startswith("RUN"))


def test_the_kubernetes_pods_run_as_that_user():
    for name in ("k8s-indexed-job.yaml", "k8s-volume.yaml"):
        assert "runAsUser: 10001" in (ROOT / "deploy" / name).read_text()


def test_the_build_context_leaves_out_local_state():
    ignored = set((ROOT / ".dockerignore").read_text().split())
    assert {".git", ".venv", "results", "tests"} <= ignored
    assert "deploy" not in ignored and "pyproject.toml" not in ignored
