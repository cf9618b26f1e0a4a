"""Response-cache entries that hold this request's key but no usable reply."""

from __future__ import annotations

import json

from auditpacks.runner.models.cache import ResponseCache


def test_an_entry_of_this_key_without_a_text_reply_is_a_reported_miss(tmp_path, capsys):
    cache = ResponseCache(tmp_path)
    path = cache.path_for({"model": "m"})
    path.parent.mkdir(parents=True)
    for reply in ({"content": None}, "just text"):
        path.write_text(json.dumps({"key": {"v": 1, "model": "m"}, "reply": reply}))
        assert cache.get({"model": "m"}) is None
        assert capsys.readouterr().err == f"auditpacks: cache entry {path.name} holds no reply; asking the model\n"
    assert cache.stats() == {"hits": 0, "misses": 2, "writes": 0}
