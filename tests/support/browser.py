"""Open a local HTML file in headless Chromium (Debian's ``chromium``) through Playwright, offline, or a page
a loopback server serves (``http://127.0.0.1:PORT/...``; then the network is on, for that server only: a request
to any other address is refused, as offline, and recorded).

    with open_page(path) as page:    # page.console_errors, page.dialogs, page.requests, page.page
        page.page.screenshot(path=...)

Network requests other than the page itself are recorded (a self-contained page makes none).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

#: --headless and --user-data-dir=<tmp> are added by Playwright (headless=True, the profile folder).
LOOPBACK = "http://127.0.0.1:"
CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync"]


def chromium_path() -> str | None:
    return os.environ.get("AUDITPACKS_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")


def browser_unavailable() -> str | None:
    """Why the browser test cannot run here, or None."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright is not installed (pip install -e .[dev])"
    if not chromium_path():
        return "no chromium executable (apt-get install chromium)"
    return None


@dataclass
class OpenedPage:
    page: Any
    console_errors: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)


@contextlib.contextmanager
def open_page(path: Path | str, *, width: int = 1280, height: int = 900) -> Iterator[OpenedPage]:
    from playwright.sync_api import sync_playwright

    served = isinstance(path, str) and path.startswith(LOOPBACK)
    url = path if served else Path(path).resolve().as_uri()
    with tempfile.TemporaryDirectory() as profile, sync_playwright() as pw:
        context = pw.chromium.launch_persistent_context(
            profile, executable_path=chromium_path(), headless=True, args=CHROMIUM_FLAGS,
            viewport={"width": width, "height": height}, offline=not served)
        try:
            if served:  # the loopback server only, whatever the page asks for (a CDN's script, an avatar)
                context.route(lambda u: not u.startswith(LOOPBACK), lambda route: route.abort("internetdisconnected"))
            page = context.new_page()
            opened = OpenedPage(page)
            page.on("console", lambda m: opened.console_errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda exc: opened.console_errors.append(str(exc)))
            page.on("dialog", lambda d: (opened.dialogs.append(d.message), d.dismiss()))
            page.on("request", lambda r: opened.requests.append(r.url) if r.url != url else None)
            page.goto(url, wait_until="networkidle" if served else "load")
            yield opened
        finally:
            context.close()
