"""The streamed client: bodies counted as they are read, a file download at its own cap, the deadline per chunk."""

from __future__ import annotations

import time

import pytest

from auditpacks.core.bounded import http as bounded_http
from auditpacks.core.bounded.http import DeadlineExceeded, RedirectRefused, ReplyTooLarge
from tests.support.hostile import HostileServer

BINARY = {"Accept": "application/binary"}


def test_a_download_stops_at_its_own_cap_and_any_other_body_at_the_reply_cap(monkeypatch):
    monkeypatch.setenv("AUDITPACKS_MAX_REPLY_BYTES", str(2**20))
    with HostileServer("endless") as server, bounded_http.streamed_client(server.base_url, timeout=30,
                                                                          download_bytes=3 * 2**20) as client:
        read = 0
        with pytest.raises(ReplyTooLarge, match=r"download from 127.0.0.1:\d+ over the 3 MiB cap"):
            with client.stream("POST", server.base_url + "/files/f/content", headers=BINARY) as response:
                for chunk in response.iter_bytes():
                    read += len(chunk)
        assert 2 * 2**20 < read <= 3 * 2**20   # handed on as it came, up to the cap
        with pytest.raises(ReplyTooLarge, match="over the 1 MiB cap"):
            client.post(server.base_url + "/batches", json={})


def test_a_dripping_download_is_cut_at_its_total_deadline():
    with HostileServer("drip", drip_s=0.05) as server, bounded_http.streamed_client(server.base_url, timeout=1.0,
                                                                                    download_bytes=2**20) as client:
        started = time.monotonic()
        with pytest.raises(DeadlineExceeded, match="took longer than its deadline"):
            with client.stream("POST", server.base_url + "/x", headers=BINARY) as response:
                for _ in response.iter_bytes():
                    pass
        assert time.monotonic() - started < 4


def test_a_redirect_to_another_host_is_refused():
    with HostileServer("redirect") as server, bounded_http.streamed_client(server.base_url, timeout=5,
                                                                           download_bytes=2**20) as client:
        with pytest.raises(RedirectRefused):
            client.post(server.base_url + "/x", json={})
