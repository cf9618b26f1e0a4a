"""Shared file I/O at its edges: strict JSON (keys given twice, NaN), numbers too long, UTF-16 input, temporary
files beside their target, a write that fails half way, and files a run may append to."""

from __future__ import annotations

import errno
import os
import stat
import sys

import pytest

from auditpacks.core import io
from auditpacks.core.errors import FormatError, PackError
from auditpacks.core.io import appendable, atomic_write_text, new_temp, parse_json, read_json, writing


@pytest.mark.parametrize("text, message", [
    ('{"a": 1, "a": 2}', "w: key 'a' appears twice in one object"),
    ('{"a": 1, "b": 2, "b": 3, "a": 4}', "w: key 'b' appears twice in one object"),
    ('[{"x": {"k": 1, "k": 1}}]', "w: key 'k' appears twice in one object"),
    ('{"' + "k" * 100 + '": 1, "' + "k" * 100 + '": 2}', f"w: key {'k' * 80!r} appears twice in one object"),
    ('{"score": NaN}', "w: NaN is not a JSON number"),
    ("[Infinity]", "w: Infinity is not a JSON number"),
    ("[-Infinity]", "w: -Infinity is not a JSON number"),
])
def test_strict_json_refuses_keys_given_twice_and_numbers_json_lacks(text, message):
    with pytest.raises(PackError) as err:
        parse_json(text, "w", PackError, strict=True)
    assert str(err.value) == message


def test_without_strict_the_last_key_wins_and_nan_is_a_float():
    assert parse_json('{"a": 1, "a": 2}', "w") == {"a": 2}
    assert parse_json('{"a": 1, "b": 2}', "w", strict=True) == {"a": 1, "b": 2}
    value = parse_json("[NaN]", "w")[0]
    assert value != value
    with pytest.raises(FormatError, match="^w: key 'a' appears twice"):
        parse_json('{"a": 1, "a": 2}', "w", strict=True)  # FormatError unless told otherwise


def test_a_number_too_long_is_named_with_the_limit():
    digits = sys.get_int_max_str_digits()
    with pytest.raises(FormatError) as err:
        parse_json("[" + "9" * (digits + 1) + "]", "w line 3")
    assert str(err.value) == f"w line 3: a number too long to read (Exceeds the limit ({digits} digits) for integer " \
                             "string conversion)"


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-32"])
def test_json_in_utf16_or_utf32_is_read(encoding):
    # 畜 is U+755C: in UTF-16 its bytes are those of "\u", which the surrogate check must not trip on
    assert parse_json('["畜", "\\u00e9"]'.encode(encoding), "w") == ["畜", "é"]


def test_a_lone_surrogate_in_bytes_is_refused():
    with pytest.raises(PackError, match=r"^w: a lone UTF-16 surrogate \\ud800 at character 2"):
        parse_json(b'["\\ud800"]', "w", PackError)
    assert parse_json(b'["\\ud83d\\ude00"]', "w") == ["\U0001F600"]


def test_read_json_says_what_is_missing(tmp_path):
    with pytest.raises(PackError) as err:
        read_json(tmp_path / "pack.json")
    assert str(err.value) == "pack.json: file not found"


def test_a_temporary_file_is_hidden_beside_its_target_with_plain_permissions(tmp_path):
    mask = os.umask(0o002)
    try:
        fd, tmp = new_temp(tmp_path, "m.json")
    finally:
        os.umask(mask)
    os.close(fd)
    assert os.path.dirname(tmp) == str(tmp_path)
    name = os.path.basename(tmp)
    assert name.startswith(".m.json.") and name.endswith(".tmp") and len(name) > len(".m.json..tmp")
    assert stat.S_IMODE(os.stat(tmp).st_mode) == 0o664


def test_a_temporary_file_that_cannot_be_set_up_is_removed_and_closed(tmp_path, monkeypatch):
    made = []
    mkstemp = io.tempfile.mkstemp
    monkeypatch.setattr(io.tempfile, "mkstemp", lambda **kw: made.append(mkstemp(**kw)) or made[-1])

    def refuse(path, mode):
        raise PermissionError(errno.EPERM, "not permitted", path)
    monkeypatch.setattr(io.os, "chmod", refuse)
    with pytest.raises(PermissionError):
        new_temp(tmp_path, "m.json")
    [(fd, tmp)] = made
    assert not os.path.exists(tmp) and list(tmp_path.iterdir()) == []
    with pytest.raises(OSError):
        os.fstat(fd)  # closed


def test_an_atomic_write_goes_through_a_temporary_beside_the_target(tmp_path, monkeypatch):
    replaced = []
    replace = io.os.replace
    monkeypatch.setattr(io.os, "replace", lambda src, dst: replaced.append((src, dst)) or replace(src, dst))
    atomic_write_text(tmp_path / "out.json", "é")
    [(src, dst)] = replaced
    assert (os.path.dirname(src), dst) == (str(tmp_path), tmp_path / "out.json")
    assert os.path.basename(src).startswith(".out.json.") and (tmp_path / "out.json").read_bytes() == "é".encode()


class Full:
    """A file whose writes fail as a full disk does: an OSError naming no file."""

    def __init__(self, fh):
        self.fh = fh

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.fh.close()

    def write(self, text):
        raise OSError(errno.ENOSPC, "No space left on device")


def test_a_write_that_fails_half_way_names_the_file_keeps_the_old_one_and_leaves_no_temporary(tmp_path, monkeypatch):
    path = tmp_path / "out.json"
    path.write_text("old", encoding="utf-8")
    fdopen = io.os.fdopen
    monkeypatch.setattr(io.os, "fdopen", lambda fd, *a, **k: Full(fdopen(fd, *a, **k)))
    with pytest.raises(OSError) as err:
        atomic_write_text(path, "new")
    assert (err.value.errno, err.value.filename) == (errno.ENOSPC, str(path))
    assert path.read_text(encoding="utf-8") == "old" and sorted(p.name for p in tmp_path.iterdir()) == ["out.json"]


def test_writing_names_the_file_only_when_the_error_names_none(tmp_path):
    with pytest.raises(OSError) as err, writing(tmp_path / "f"):
        raise OSError(errno.EFBIG, "File too large")
    assert (err.value.errno, err.value.strerror, err.value.filename) == (errno.EFBIG, "File too large",
                                                                         str(tmp_path / "f"))
    with pytest.raises(OSError) as err, writing(tmp_path / "f"):
        raise OSError(errno.ENOENT, "gone", "other")
    assert err.value.filename == "other"
    with pytest.raises(OSError) as err, writing(tmp_path / "f"):
        raise OSError("no errno")
    assert err.value.filename is None


def test_a_file_a_run_appends_to_is_absent_or_a_plain_file(tmp_path):
    assert appendable(tmp_path / "m.journal.jsonl", "journal") == tmp_path / "m.journal.jsonl"
    (tmp_path / "plain.jsonl").write_text("", encoding="utf-8")
    assert appendable(str(tmp_path / "plain.jsonl"), "journal") == tmp_path / "plain.jsonl"


@pytest.mark.parametrize("kind", ["link to a file", "link to nothing", "folder", "pipe"])
def test_a_link_a_folder_or_a_pipe_is_refused_in_one_line(tmp_path, kind):
    path = tmp_path / "m.journal.jsonl"
    if kind == "link to a file":
        (tmp_path / "elsewhere").write_text("", encoding="utf-8")
        path.symlink_to(tmp_path / "elsewhere")
    elif kind == "link to nothing":
        path.symlink_to(tmp_path / "nowhere")
    elif kind == "folder":
        path.mkdir()
    else:
        os.mkfifo(path)
    with pytest.raises(KeyError) as err:
        appendable(path, "journal", KeyError)
    assert err.value.args[0] == ("m.journal.jsonl: the journal is a link or not a regular file; a run writes only "
                                 "plain files in its folder: move it away")
    with pytest.raises(PackError):
        appendable(path, "journal")

