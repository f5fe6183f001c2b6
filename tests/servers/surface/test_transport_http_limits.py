"""What a client can hold open over HTTP is bounded: slow or silent sockets are dropped, requests
running at once are capped, and so are live sessions. Everything here stays on 127.0.0.1, every loop
is bounded, and timeouts only guard against a hang."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from urllib.parse import urlsplit

import httpx
import pytest

from servers.basics.server import mcp as basics
from servers.surface import http
from servers.surface.http import http_app
from tests.servers.surface.test_transport_http import HEADERS, INITIALIZE, serving

GUARD_SECONDS = 30


@pytest.fixture
async def url() -> AsyncIterator[str]:
    async with serving(http_app(basics, host="127.0.0.1", stateless=False, token=None)) as address:
        yield address


async def open_socket(url: str, first_bytes: bytes) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    parts = urlsplit(url)
    reader, writer = await asyncio.open_connection(parts.hostname, parts.port)
    writer.write(first_bytes)
    await writer.drain()
    return reader, writer


async def test_slow_sockets_are_dropped_and_meanwhile_others_are_served(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(http, "READ_SECONDS", 1.0)
    partial_headers = b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n"
    partial_body = b'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000\r\n\r\n{"jsonrpc"'
    app = http_app(basics, host="127.0.0.1", stateless=False, token=None)
    async with serving(app) as url:
        slow = [await open_socket(url, partial_headers) for _ in range(25)]
        slow += [await open_socket(url, partial_body) for _ in range(25)]
        slow += [await open_socket(url, b"") for _ in range(10)]  # connected, silent
        async with httpx.AsyncClient() as client:
            answer = await client.post(url, json=INITIALIZE, headers=HEADERS)
        assert answer.status_code == 200
        async with asyncio.timeout(GUARD_SECONDS):
            for reader, _ in slow:
                assert await reader.read() == b""  # the server hung up
        for _, writer in slow:
            writer.close()


async def test_requests_over_the_connection_cap_get_503_until_room_frees_up(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(http, "MAX_CONNECTIONS", 5)
    app = http_app(basics, host="127.0.0.1", stateless=False, token=None)
    async with serving(app) as url, httpx.AsyncClient() as client:
        held = [await open_socket(url, b"") for _ in range(5)]
        refused = await client.post(url, json=INITIALIZE, headers=HEADERS)
        for _, writer in held:
            writer.close()
            await writer.wait_closed()
        async with asyncio.timeout(GUARD_SECONDS):
            while (answer := await client.post(url, json=INITIALIZE, headers=HEADERS)).status_code == 503:
                await asyncio.sleep(0.05)
    assert refused.status_code == 503
    assert answer.status_code == 200


async def test_live_sessions_are_capped_and_an_ended_one_makes_room(url: str) -> None:
    async with httpx.AsyncClient(timeout=GUARD_SECONDS) as client:
        answers = [
            await client.post(url, json=INITIALIZE, headers=HEADERS) for _ in range(http.MAX_SESSIONS + 20)
        ]
        opened = [answer.headers["mcp-session-id"] for answer in answers if answer.status_code == 200]
        refused = [answer for answer in answers if answer.status_code != 200]
        ended = await client.delete(url, headers={**HEADERS, "mcp-session-id": opened[0]})
        again = await client.post(url, json=INITIALIZE, headers=HEADERS)
    assert len(opened) == http.MAX_SESSIONS
    assert {answer.status_code for answer in refused} == {503}
    assert "Too many open sessions" in refused[0].text
    assert ended.status_code == 200
    assert again.status_code == 200


async def test_an_idle_session_ends_by_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(http, "SESSION_IDLE_SECONDS", 0.2)
    app = http_app(basics, host="127.0.0.1", stateless=False, token=None)
    async with serving(app) as url, httpx.AsyncClient() as client:
        session = (await client.post(url, json=INITIALIZE, headers=HEADERS)).headers["mcp-session-id"]
        listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
        headers = {**HEADERS, "mcp-session-id": session, "mcp-protocol-version": "2025-11-25"}
        async with asyncio.timeout(GUARD_SECONDS):
            while (answer := await client.post(url, json=listing, headers=headers)).status_code != 404:
                await asyncio.sleep(0.5)  # longer than the idle limit, so the session can lapse
    assert "Session not found" in answer.text
