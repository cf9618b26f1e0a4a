"""One redaction point for every string that reaches disk or the console.

Blanked out: keys registered with :func:`register` (``--api-key`` and the like), the
values of key-like environment variables (``*_API_KEY``, ``*_TOKEN``, ``*_SECRET``,
``*_PASSWORD``, read again whenever the environment has changed), credentials a server echoes
back (``Authorization: Bearer …``, ``x-api-key: …``, ``api_key=…``) and the user and password in URLs
(``http://user:pw@host`` → ``http://[credentials]@host``). :func:`register_url` makes a URL's
credentials secrets (as written, with any of its characters percent-encoded or not, and ``Basic``
base64) the moment the URL is read, and
:func:`without_credentials` is the URL as it may be stored. :func:`redact` works on one
string, :func:`redact_data` on a JSON value (keys and strings, recursively).
"""

from __future__ import annotations

import base64
import os
import re
import threading
from typing import Any
from urllib.parse import unquote, urlsplit, urlunsplit

KEY_MARK = "[api key]"
CREDENTIALS_MARK = "[credentials]"
#: Shorter values are not blanked out (they would hit ordinary words).
MIN_SECRET = 6
#: A URL's password is blanked out from this length on (it is a secret however short).
MIN_URL_PASSWORD = 4

_SECRET_VARIABLE = re.compile(r"(?:^|_)(?:API_?KEY|KEY|TOKEN|SECRET|PASSWORD|PASSWD)$", re.IGNORECASE)
# linear patterns: possessive or bounded repeats, no nested quantifiers
_URL_CREDENTIALS = re.compile(r"(?P<scheme>\b[A-Za-z][A-Za-z0-9+.-]{0,30}://)[^\s/@?#\"']{1,512}@")
_HEADER = re.compile(
    r"(?P<name>\b(?:(?:proxy-)?authorization\b[\"']?\s*[:=]\s*[\"']?(?:bearer|basic|token)\s+"
    r"|(?:x-api-key|api-key|x-goog-api-key)\b[\"']?\s*[:=]\s*[\"']?))[^\s\"',;}]{1,4096}+",
    re.IGNORECASE)
# a bare "Bearer <token>": only tokens that look like keys (16+ characters, a digit among them)
_BEARER = re.compile(r"\b(?P<scheme>bearer|basic)\s+(?P<token>[A-Za-z0-9._~+/=-]{16,4096}+)", re.IGNORECASE)
_QUERY_KEY = re.compile(r"(?P<name>[?&](?:api[_-]?key|key|token|access_token)=)[^&\s\"']{1,4096}+", re.IGNORECASE)

_registered: set[str] = set()
#: URL passwords as patterns: each character as itself or percent-encoded (hex in either case).
_url_passwords: set[re.Pattern[str]] = set()
_lock = threading.Lock()
#: The environment's variables when last read, and the secrets found in them (see environment_secrets).
_environment_read: tuple[dict, frozenset[str]] | None = None


def register(*secrets: str | None) -> None:
    """Blank these values out from now on (``None`` and very short values are ignored)."""
    with _lock:
        _registered.update(s for s in secrets if isinstance(s, str) and len(s) >= MIN_SECRET)


def register_url(url: Any) -> None:
    """Blank out the credentials in ``url`` (``scheme://user:password@host``) from now on, in every form a
    server could echo them in: the password with each character as written, percent-decoded or
    percent-encoded (so every encoder's echo matches), and the ``Basic`` header's base64 of ``user:password``.
    Anything that is not such a URL is ignored."""
    if not isinstance(url, str) or "@" not in url or "://" not in url:
        return
    try:
        userinfo = urlsplit(url.strip()).netloc.rpartition("@")[0]
    except ValueError:
        return
    if not userinfo:
        return
    user, _, password = userinfo.partition(":")
    forms = {userinfo, unquote(userinfo)}
    pairs = {f"{user}:{password}", f"{unquote(user)}:{unquote(password)}"}
    forms |= {base64.b64encode(pair.encode("utf-8")).decode("ascii") for pair in pairs}
    forms |= {base64.b64encode(pair.encode("utf-8")).decode("ascii").rstrip("=") for pair in pairs}
    plain = unquote(password)
    with _lock:
        _registered.update(f for f in forms if len(f) >= MIN_URL_PASSWORD and f not in (user, unquote(user)))
        if len(plain) >= MIN_URL_PASSWORD:
            _url_passwords.add(_any_encoding(plain))
        if password != plain and len(password) >= MIN_URL_PASSWORD:  # written encoded: its own echo as well
            _url_passwords.add(_any_encoding(password))


def _any_encoding(text: str) -> re.Pattern[str]:
    """A pattern for ``text`` with each character as itself or percent-encoded (any hex case; ``+`` for a
    space), so every encoder's echo of it matches: ``quote``, ``encodeURIComponent``, httpx's userinfo."""
    parts = []
    for char in text:
        encoded = "".join(f"%{byte:02X}" for byte in char.encode("utf-8"))
        forms = [re.escape(char), f"(?i:{re.escape(encoded)})"] + (["\\+"] if char == " " else [])
        parts.append(f"(?:{'|'.join(forms)})")
    return re.compile("".join(parts))


def without_credentials(url: Any) -> Any:
    """``url`` with any user name and password left out (other values unchanged)."""
    if not isinstance(url, str) or "@" not in url or "://" not in url:
        return url
    try:
        parts = urlsplit(url)
    except ValueError:
        return redact(url)
    if "@" not in parts.netloc:
        return url
    return urlunsplit(parts._replace(netloc=parts.netloc.rpartition("@")[2]))


def forget_all() -> None:
    """Drop every registered value (for tests)."""
    with _lock:
        _registered.clear()
        _url_passwords.clear()


def environment_secrets() -> frozenset[str]:
    """The values of the key-like environment variables. Reading them decodes every variable, and a run
    redacts each string it stores (dozens per scenario), so the environment is read again only when it
    has changed since the last call: its encoded variables are compared with a copy, which is cheap."""
    global _environment_read
    raw = getattr(os.environ, "_data", None)
    if not isinstance(raw, dict):   # not CPython's os.environ: compare a decoded copy instead
        raw = dict(os.environ)
    last = _environment_read
    if last is not None and last[0] == raw:
        return last[1]
    found = frozenset(value for name, value in os.environ.items()
                      if len(value) >= MIN_SECRET and _SECRET_VARIABLE.search(name))
    _environment_read = (dict(raw), found)
    return found


def secrets() -> list[str]:
    """Registered and environment secrets, longest first (so a key containing another is blanked whole)."""
    with _lock:
        found = set(_registered)
    return sorted(found | environment_secrets(), key=len, reverse=True)


def redact(text: str) -> str:
    """``text`` with every known secret and credential pattern blanked out."""
    if not isinstance(text, str) or not text:
        return text
    for secret in secrets():
        if secret in text:
            text = text.replace(secret, KEY_MARK)
    for pattern in sorted(_url_passwords, key=lambda p: len(p.pattern), reverse=True):
        text = pattern.sub(KEY_MARK, text)
    if "@" in text:
        text = _URL_CREDENTIALS.sub(lambda m: f"{m['scheme']}{CREDENTIALS_MARK}@", text)
    text = _HEADER.sub(lambda m: m["name"] + KEY_MARK, text)
    text = _BEARER.sub(lambda m: f"{m['scheme']} {KEY_MARK}" if any(c.isdigit() for c in m["token"]) else m[0], text)
    return _QUERY_KEY.sub(lambda m: m["name"] + KEY_MARK, text)


def redact_data(value: Any) -> Any:
    """A copy of a JSON value with :func:`redact` applied to every string (mapping keys too)."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {redact(k) if isinstance(k, str) else k: redact_data(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [redact_data(v) for v in value]
    return value


def public_url(url: str | None) -> str | None:
    """``url`` without any user name or password in it (for the run file and messages)."""
    if not url:
        return url
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url
    return urlunsplit(parts._replace(netloc=parts.netloc.rsplit("@", 1)[1]))
