"""A hostile OpenAI-style server on 127.0.0.1, for fault injection: endless or dripping bodies, echoed
credentials, NaN token counts, redirects to another host.

``HostileServer(mode)`` answers ``GET /v1/models`` like a real server and 404 to every other GET
(so it is not taken for Ollama); each POST is answered by ``mode``:

* ``endless``: a chat completion whose content never ends (64 KiB at a time, as fast as it is read);
* ``drip``: status and headers, then one byte every ``drip_s`` seconds, forever;
* ``echo``: a chat completion whose content repeats the request's ``Authorization`` header, its path
  and the host it was sent to, with the password decoded from a ``Basic`` header;
* ``nan``: a chat completion whose token counts are ``NaN`` and ``-5``;
* ``redirect``: 307 to the same path on ``localhost`` (another host name for the same machine);
* ``big``: a whole chat completion whose content is ``big_bytes`` of text (under the reply cap).

``connections`` counts the connections accepted. The server stops on leaving the ``with`` block, and by itself after ``lifetime_s`` seconds.
"""

from __future__ import annotations

import asyncio
import base64
import json
import threading

CONTENT = "guilty\nThe documents point that way."


def completion(content: str, usage: str = '{"prompt_tokens": 12, "completion_tokens": 3}') -> bytes:
    head = {"id": "c1", "object": "chat.completion", "created": 0, "model": "m",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}]}
    return json.dumps(head)[:-1].encode() + b', "usage": ' + usage.encode() + b"}"


class HostileServer:
    def __init__(self, mode: str, *, drip_s: float = 0.2, lifetime_s: float = 120.0,
                 big_bytes: int = 30_000_000) -> None:
        self.mode, self.drip_s, self.lifetime_s, self.big_bytes = mode, drip_s, lifetime_s, big_bytes
        self.posts = 0
        self.connections = 0   # connections accepted (a pooled client reuses one)
        self.port = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._ready = threading.Event()
        self._thread = threading.Thread(target=lambda: asyncio.run(self._serve()), daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def __enter__(self) -> "HostileServer":
        self._thread.start()
        self._ready.wait(10)
        return self

    def __exit__(self, *exc) -> None:
        if self._loop is not None and self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(10)

    async def _serve(self) -> None:
        self._loop, self._stop = asyncio.get_running_loop(), asyncio.Event()
        server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.port = server.sockets[0].getsockname()[1]
        self._ready.set()
        try:
            await asyncio.wait_for(self._stop.wait(), self.lifetime_s)
        except TimeoutError:
            pass
        server.close()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            while await self._one(reader, writer):
                pass
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            pass
        finally:
            writer.close()

    async def _one(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool:
        head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
        method, path = head[0].split(" ")[:2]
        pairs = [line.split(":", 1) for line in head[1:] if ":" in line]
        headers = {name.strip().lower(): value.strip() for name, value in pairs}
        await reader.readexactly(int(headers.get("content-length") or 0))
        if method == "GET":
            found = path.rstrip("/") == "/v1/models"
            body = b'{"object": "list", "data": [{"id": "m", "object": "model"}]}' if found else b'{"error": "no"}'
            return await self._send(writer, 200 if found else 404, body)
        self.posts += 1
        if self.mode == "endless":
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n" + completion("")[:-40])
            while True:
                writer.write(b"x" * 65536)
                await writer.drain()
        if self.mode == "drip":
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n")
            while True:
                writer.write(b" ")
                await writer.drain()
                await asyncio.sleep(self.drip_s)
        if self.mode == "redirect":
            location = f"http://localhost:{self.port}{path}"
            writer.write(f"HTTP/1.1 307 Temporary Redirect\r\nLocation: {location}\r\n"
                         "Content-Length: 0\r\n\r\n".encode())
            await writer.drain()
            return True
        if self.mode == "big":
            return await self._send(writer, 200, completion("pass " * (self.big_bytes // 5)))
        if self.mode == "nan":
            return await self._send(writer, 200, completion(CONTENT, '{"prompt_tokens": NaN, "completion_tokens": -5}'))
        auth = headers.get("authorization", "")
        decoded = ""
        if auth.lower().startswith("basic "):
            decoded = base64.b64decode(auth[6:]).decode("utf-8", "replace")
        echo = f"{CONTENT}\nYou sent: {auth} ({decoded}) to {headers.get('host')}{path}"
        return await self._send(writer, 200, completion(echo))

    async def _send(self, writer: asyncio.StreamWriter, status: int, body: bytes) -> bool:
        writer.write(f"HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
                     .encode() + body)
        await writer.drain()
        return True
