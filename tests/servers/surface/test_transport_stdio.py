"""Stdio abuse against the real processes: whatever arrives on stdin, the server answers what it can
with JSON-RPC errors, keeps serving the next valid request, writes nothing but JSON-RPC to stdout,
and exits cleanly at EOF."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import AsyncIterator
from typing import Any

import pytest

from tests.support import INITIALIZED, initialize

SERVERS = ["servers.convert", "servers.basics", "servers.weather"]
# Nothing here reaches a tool body; should anything try, weather finds only a closed loopback port.
NO_UPSTREAM = {
    "OPEN_METEO_GEOCODING_URL": "http://127.0.0.1:9/",
    "OPEN_METEO_FORECAST_URL": "http://127.0.0.1:9/",
}
INITIALIZE = initialize("init")
PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND = -32700, -32600, -32601


class StdioServer:
    """One spawned server: write raw lines, read its answers as parsed JSON, by id."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.by_id: dict[Any, dict[str, Any]] = {}
        self.without_id: list[dict[str, Any]] = []

    async def write(self, raw: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(raw)
        await self.process.stdin.drain()

    async def send(self, message: dict[str, Any]) -> None:
        await self.write(json.dumps(message).encode() + b"\n")

    async def read_one(self) -> None:
        assert self.process.stdout is not None
        line = await self.process.stdout.readline()
        assert line, "the server closed stdout"
        message = json.loads(line)  # stdout carries nothing but JSON-RPC
        assert message["jsonrpc"] == "2.0"
        if message.get("id") is None:
            self.without_id.append(message)
        else:
            self.by_id[message["id"]] = message

    async def answer(self, request_id: Any) -> dict[str, Any]:
        async with asyncio.timeout(20):
            while request_id not in self.by_id:
                await self.read_one()
        return self.by_id.pop(request_id)

    async def anonymous_errors(self, count: int) -> list[int]:
        """The codes of the next `count` errors that could not carry an id."""
        async with asyncio.timeout(20):
            while len(self.without_id) < count:
                await self.read_one()
        answers, self.without_id = self.without_id[:count], self.without_id[count:]
        return [answer["error"]["code"] for answer in answers]


@pytest.fixture(params=SERVERS)
async def server(request: pytest.FixtureRequest) -> AsyncIterator[StdioServer]:
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", request.param,
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        limit=2**20, env={**os.environ, **NO_UPSTREAM},
    )  # fmt: skip
    served = StdioServer(process)
    try:
        await served.send(INITIALIZE)
        assert "result" in await served.answer("init")
        await served.send(INITIALIZED)
        yield served
    finally:
        if process.returncode is None:
            process.kill()
        await process.wait()


async def still_serving(server: StdioServer, request_id: int) -> None:
    await server.send({"jsonrpc": "2.0", "id": request_id, "method": "tools/list"})
    listed = await server.answer(request_id)
    assert listed["result"]["tools"]


async def test_garbage_and_truncated_json_get_parse_errors(server: StdioServer) -> None:
    await server.write(b"hello, server\n")
    await server.write(b'{"jsonrpc": "2.0", "id": 2, "method": "tools/li\n')
    await server.write(b"\x00\xff\xfe binary \x80\n")
    assert await server.anonymous_errors(3) == [PARSE_ERROR] * 3
    await still_serving(server, 3)


async def test_json_that_is_not_a_request_gets_invalid_request_with_its_id(server: StdioServer) -> None:
    await server.write(b'{"jsonrpc": "2.0", "id": 4}\n')
    await server.write(b'{"id": 5, "method": "tools/list"}\n')
    await server.write(b'{"jsonrpc": "2.0", "id": 6, "method": "tools/list", "params": 5}\n')
    for request_id in (4, 5, 6):
        assert (await server.answer(request_id))["error"]["code"] == INVALID_REQUEST
    await server.write(b"[1, 2, 3]\n")
    assert await server.anonymous_errors(1) == [INVALID_REQUEST]
    await still_serving(server, 7)


async def test_unknown_method_gets_method_not_found(server: StdioServer) -> None:
    await server.send({"jsonrpc": "2.0", "id": 8, "method": "tools/destroy_everything"})
    assert (await server.answer(8))["error"]["code"] == METHOD_NOT_FOUND
    await still_serving(server, 9)


async def test_a_huge_line_is_answered_and_serving_continues(server: StdioServer) -> None:
    await server.send({"jsonrpc": "2.0", "id": 10, "method": "tools/list"})
    tool = (await server.answer(10))["result"]["tools"][0]["name"]
    padding = "x" * 8_000_000
    call = {"name": tool, "arguments": {"padding": padding}}
    await server.send({"jsonrpc": "2.0", "id": 11, "method": "tools/call", "params": call})
    result = (await server.answer(11))["result"]
    assert result["isError"] is True
    assert "padding" in result["content"][0]["text"]
    assert len(json.dumps(result)) < 2000
    await server.write(b"[" * 1_000_000 + b"\n")  # valid start, nested beyond any parser's depth
    assert await server.anonymous_errors(1) == [PARSE_ERROR]
    await still_serving(server, 12)


async def test_eof_in_the_middle_of_a_message_exits_cleanly(server: StdioServer) -> None:
    await still_serving(server, 13)
    await server.write(b'{"jsonrpc": "2.0", "id": 14, "method": "tools/')
    assert server.process.stdin is not None
    server.process.stdin.close()
    async with asyncio.timeout(20):
        assert await server.process.wait() == 0
    assert server.process.stderr is not None
    stderr = await server.process.stderr.read()
    assert b"Traceback" not in stderr


async def test_a_request_the_sdk_cannot_read_is_answered_with_its_id(server: StdioServer) -> None:
    huge = "9" * 5000  # over Python's 4,300-digit limit for turning text into an int
    await server.write(
        b'{"jsonrpc": "2.0", "id": 15, "method": "tools/call", "params": {"a": %s}}\n' % huge.encode()
    )
    await server.write(
        b'{"jsonrpc": "2.0", "id": "s-16", "method": "tools/call", "params": {"a": "\\ud800"}}\n'
    )
    too_long = (await server.answer(15))["error"]
    surrogate = (await server.answer("s-16"))["error"]
    assert too_long["code"] == surrogate["code"] == PARSE_ERROR
    assert "more than 4300 digits" in too_long["message"]
    assert "lone surrogate" in surrogate["message"]
    # An id that cannot be sent back as it came gets an anonymous answer, as before.
    await server.write(b'{"jsonrpc": "2.0", "id": %s, "method": "tools/list"}\n' % huge.encode())
    await server.write(b'{"jsonrpc": "2.0", "id": "\\udc00", "method": "tools/list"}\n')
    assert await server.anonymous_errors(2) == [PARSE_ERROR] * 2
    await still_serving(server, 17)
