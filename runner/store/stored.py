"""What a result looks like on disk: secrets blanked out, very long strings cut (and the cut marked).

Every result passes through :func:`for_storage` before it reaches the journal and the
results file. Strings longer than :data:`MAX_STORED_CHARS` characters (a runaway
reply, say) keep their first ``MAX_STORED_CHARS`` characters followed by
:func:`cut_mark`; a conversation entry that was cut also gets ``"cut_chars"``, the
number of characters left out. Grading has already seen the whole reply.
"""

from __future__ import annotations

from typing import Any, Mapping

from auditpacks.core.numbers import finite, token_count
from auditpacks.core.redact import redact

MAX_STORED_CHARS = 200_000
#: Redaction looks this far past the cut, so a key straddling it is never half kept.
_OVERLAP = 8192


def cut_mark(left_out: int) -> str:
    return f"\n[… {left_out} more characters not stored: replies are kept up to {MAX_STORED_CHARS} characters]"


def bounded(text: str) -> tuple[str, int]:
    """``text`` cut to the limit (with the mark) and how many characters were left out."""
    if len(text) <= MAX_STORED_CHARS:
        return redact(text), 0
    left_out = len(text) - MAX_STORED_CHARS
    return redact(text[:MAX_STORED_CHARS + _OVERLAP])[:MAX_STORED_CHARS] + cut_mark(left_out), left_out


def _bound(value: Any) -> tuple[Any, int]:
    if isinstance(value, str):
        return bounded(value)
    if isinstance(value, Mapping):
        out, total = {}, 0
        for key, item in value.items():
            if isinstance(key, str) and key.endswith("_tokens") and item is not None:
                item = token_count(item)  # a count the server got wrong is unknown, never NaN in the journal
            out[redact(key) if isinstance(key, str) else key], cut = _bound(item)
            total += cut
        if total and ("role" in out or "content" in out):
            out["cut_chars"] = total
        return out, total
    if isinstance(value, (list, tuple)):
        pairs = [_bound(item) for item in value]
        return [p[0] for p in pairs], sum(p[1] for p in pairs)
    return finite(value), 0


def for_storage(result: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of ``result`` fit to be written: long strings cut and marked, secrets blanked out."""
    return _bound(dict(result))[0]
