"""An HTTP server on 127.0.0.1 served from a background thread (local endpoints and test servers)."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class LoopbackServer:
    """``ThreadingHTTPServer`` on loopback; ``attributes`` are set on the server for its handlers.

    Use as a context manager or with ``start()`` / ``stop()``; ``port=0`` picks a free port.
    """

    def __init__(self, handler: type[BaseHTTPRequestHandler], port: int = 0, **attributes: Any) -> None:
        self.handler, self.port, self.attributes = handler, port, attributes
        self._httpd: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        if self._httpd is None:
            raise RuntimeError("the server is not running")
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    def start(self) -> "LoopbackServer":
        httpd = ThreadingHTTPServer(("127.0.0.1", self.port), self.handler)
        httpd.daemon_threads = True
        for name, value in self.attributes.items():
            setattr(httpd, name, value)
        self._httpd = httpd
        threading.Thread(target=httpd.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        httpd, self._httpd = self._httpd, None
        if httpd is not None:
            httpd.shutdown()
            httpd.server_close()

    def __enter__(self) -> "LoopbackServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


def send_json(handler: BaseHTTPRequestHandler, status: int, body: Any) -> None:
    """Answer ``handler``'s request with ``status`` and ``body`` as JSON (bytes are sent as they are)."""
    data = body if isinstance(body, bytes) else json.dumps(body, ensure_ascii=False).encode("utf-8")
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)
