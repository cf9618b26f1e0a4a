"""A run's selection from its selection settings: smoke, per question with its seed, limit, fewer accepted."""

from __future__ import annotations

import random

import pytest

from auditpacks.core.errors import PackError
from auditpacks.packs.pack import Pack
from auditpacks.runner.scenarios.selection import for_run
from auditpacks.runner.settings.config import SelectionConfig


def _pack(tmp_path, n, manifest=None):
    scenarios = [{"name": f"S{i}", "test_prompt": f"p{i}", "metadata": {"question_id": f"Q{i % 2}"}} for i in range(n)]
    return Pack(path=tmp_path / "p.json", scenarios=scenarios, manifest=manifest, sha256=""), scenarios


def test_the_settings_reach_the_selection(tmp_path):
    pack, scenarios = _pack(tmp_path, 6, {"smoke": ["S3", "S1"]})
    assert for_run(pack, SelectionConfig()) == scenarios
    assert for_run(pack, SelectionConfig(smoke=True)) == [scenarios[3], scenarios[1]]
    assert for_run(pack, SelectionConfig(limit=2)) == scenarios[:2]
    rng = random.Random(9)  # by hand: Q0 holds 0, 2, 4 and Q1 holds 1, 3, 5; each draws one with seed 9
    drawn = sorted([rng.sample([0, 2, 4], 1)[0], rng.sample([1, 3, 5], 1)[0]])
    question = lambda scenario: scenario["metadata"]["question_id"]  # noqa: E731 - the pack's questions
    assert for_run(pack, SelectionConfig(per_question=1, seed=9), question) == [scenarios[i] for i in drawn]


def test_a_limit_over_the_selection_needs_allow_fewer(tmp_path):
    pack, scenarios = _pack(tmp_path, 3)
    with pytest.raises(PackError, match="--limit 5: asked for 5 scenarios, the selection has 3"):
        for_run(pack, SelectionConfig(limit=5))
    assert for_run(pack, SelectionConfig(limit=5, allow_fewer=True)) == scenarios


@pytest.mark.parametrize("seed", [0, 9, 2026])
def test_the_per_question_draw_is_the_settings_seeds(tmp_path, seed):
    """Ten questions of ten scenarios, one drawn each: the draw of ``random.Random(seed)``, group by group in
    the questions' sorted order, and the same on every machine (never a draw from an unseeded generator)."""
    scenarios = [{"name": f"S{i}", "test_prompt": f"p{i}", "metadata": {"question_id": f"Q{i % 10}"}}
                 for i in range(100)]
    pack = Pack(path=tmp_path / "p.json", scenarios=scenarios, manifest=None, sha256="")
    rng = random.Random(seed)
    drawn = sorted(rng.sample(range(q, 100, 10), 1)[0] for q in range(10))   # Q0, Q1, ... Q9 in turn
    question = lambda scenario: scenario["metadata"]["question_id"]  # noqa: E731 - the pack's questions
    assert for_run(pack, SelectionConfig(per_question=1, seed=seed), question) == [scenarios[i] for i in drawn]
