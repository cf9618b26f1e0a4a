"""Property-based fuzzing of the readers: mutate a valid file, run the command, judge what came out.

:func:`mutated_json` edits one place of a JSON value (replace it with any JSON value or a
nasty one, drop it, wrap it); :func:`mutated_text` damages file text (cut, spliced bytes,
a line doubled or emptied). :func:`outcome` runs ``auditpacks`` in this process and checks
the house rule: exit 0 with a result, or a non-zero exit with one ``auditpacks: error:``
line; never a traceback, never the catch-all's "unexpected" line, never a half-written
output or a temporary file left behind. (``check`` exits 1 listing ERROR findings, ``run`` exits 3
when it finished with ERROR scenarios: both are results.)
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from auditpacks.runner.cli.main import main

ERROR_LINE = re.compile(r"^(?:auditpacks[\w -]*: )?error: ")
#: Bounded and repeatable: the whole fuzz suite takes a minute or two. ``AUDITPACKS_FUZZ_EXAMPLES=N``
#: runs N fresh random examples per property instead (a longer hunt).
HUNT = int(os.environ.get("AUDITPACKS_FUZZ_EXAMPLES") or 0)
FUZZ = settings(max_examples=HUNT or 25, deadline=None, derandomize=not HUNT, database=None,
                suppress_health_check=list(HealthCheck))
FEW = settings(FUZZ, max_examples=max(8, HUNT // 3))

NASTY = st.sampled_from([
    None, "", " ", "\x00", "é" * 3, "1" * 5000, "第" + "9" * 5000 + "条", -1, 0, 10**30, 1e308, -0.0, True,
    [], {}, [None], {"": None}, "oops", "2026-13-45", "../../etc/passwd", "a" * 20_000,
])
SCALARS = st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.floats(allow_nan=False) | st.text(max_size=12)
JSON = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner,
                                                                                        max_size=3), max_leaves=6)


def _paths(value: Any, prefix: tuple = (), depth: int = 5) -> list[tuple]:
    found = [prefix]
    if depth == 0:
        return found
    if isinstance(value, dict):
        for key, item in value.items():
            found += _paths(item, prefix + (key,), depth - 1)
    elif isinstance(value, list):
        for index, item in enumerate(value[:6]):
            found += _paths(item, prefix + (index,), depth - 1)
    return found


def _set(value: Any, path: tuple, new: Any, drop: bool) -> Any:
    if not path:
        return new
    head, rest = path[0], path[1:]
    copy = dict(value) if isinstance(value, dict) else list(value)
    if not rest and drop:
        del copy[head]
    else:
        copy[head] = _set(copy[head], rest, new, drop)
    return copy


@st.composite
def mutated_json(draw, value: Any) -> Any:
    """``value`` with one place replaced, dropped or wrapped."""
    path = draw(st.sampled_from(_paths(value)))
    action = draw(st.sampled_from(["replace", "nasty", "drop", "wrap"]))
    old = value
    for step in path:
        old = old[step]
    if action == "drop" and path:
        return _set(value, path, None, True)
    new = {"replace": lambda: draw(JSON), "nasty": lambda: draw(NASTY), "drop": lambda: None,
           "wrap": lambda: [old]}[action]()
    return _set(value, path, new, False)


@st.composite
def mutated_text(draw, text: str) -> str:
    """``text`` damaged: cut short, bytes spliced in, a line doubled, emptied or replaced by any JSON."""
    lines = text.splitlines()
    action = draw(st.sampled_from(["cut", "splice", "double", "empty", "line"]))
    if action == "cut":
        return text[:draw(st.integers(0, len(text)))]
    if action == "splice":
        at = draw(st.integers(0, len(text)))
        return text[:at] + draw(st.text(max_size=20)) + text[at:]
    if action == "empty":
        return ""
    index = draw(st.integers(0, max(0, len(lines) - 1)))
    if action == "double":
        return "\n".join(lines[:index + 1] + lines[index:]) + "\n"
    return "\n".join(lines[:index] + [json.dumps(draw(JSON))] + lines[index + 1:]) + "\n"


@st.composite
def mutated_jsonl(draw, text: str) -> str:
    """One record of a JSONL text mutated as JSON (most draws), else the text damaged."""
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines or draw(st.integers(0, 3)) == 0:
        return draw(mutated_text(text))
    index = draw(st.integers(0, len(lines) - 1))
    lines[index] = json.dumps(draw(mutated_json(json.loads(lines[index]))), ensure_ascii=False)
    return "\n".join(lines) + "\n"


def outcome(argv: list[str], outputs: list[Path] = ()) -> tuple[int, str]:
    """Run ``auditpacks argv``; assert a result or one clean error line, and no half-written output."""
    before = {p: p.exists() for p in outputs}
    err, out = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
        try:
            code = main([str(a) for a in argv])
        except SystemExit as exc:  # argparse
            code = exc.code if isinstance(exc.code, int) else 2
    text = err.getvalue()
    assert "Traceback" not in text and "unexpected" not in text, text
    errors = [line for line in text.splitlines() if ERROR_LINE.match(line)]
    findings = argv[0] == "check" and code == 1 and not errors  # check's own verdict: ERROR findings listed
    finished = argv[0] == "run" and code == 3 and not errors  # a finished run with ERROR scenarios
    if code != 0 and not findings and not finished:
        assert len(errors) == 1, text
        for path in outputs:
            assert path.exists() == before[path], f"{path.name} written by a failed command"
    for path in outputs:
        leftovers = [p.name for p in path.parent.glob("*.tmp")] if path.parent.exists() else []
        assert not leftovers, leftovers
    return code, text
