"""Weather against an Open-Meteo that misbehaves at the network level, on 127.0.0.1: slow answers,
dropped connections, truncated bodies, 500s alternating with 200s. Every call ends within its
deadline with either the forecast a well-behaved upstream gives or an error a model can act on.

The deadline and request timeout are scaled down (3 s and 1 s) so the suite stays fast; the code
paths are the ones the real 6 s deadline takes. These run on the real clock over real sockets, so
they assert outcomes (the answer, the error, the requests made), never durations: the only time
bound is a generous guard that turns a hang into a failure.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp_types import CallToolResult

from instruments.demo.replay import RECORDINGS
from servers.weather import openmeteo
from servers.weather.server import mcp as weather
from tests.support import error_text

DEADLINE = 3.0
HANG_GUARD = 10 * DEADLINE  # a call still running by then is stuck, however busy the machine
ARGUMENTS = {"city": "Berlin", "days": 3}
BODIES = {
    "/v1/search": (RECORDINGS / "geocoding_berlin.json").read_bytes(),
    "/v1/forecast": (RECORDINGS / "forecast_frederick_daily.json").read_bytes(),
}

Behaviour = Callable[[str, int, asyncio.StreamWriter], Awaitable[None]]


def response(status: int, body: bytes, length: int | None = None) -> bytes:
    head = f"HTTP/1.1 {status} Chaos\r\nContent-Type: application/json\r\nConnection: close\r\n"
    return f"{head}Content-Length: {len(body) if length is None else length}\r\n\r\n".encode() + body


async def well_behaved(path: str, count: int, writer: asyncio.StreamWriter) -> None:
    writer.write(response(200, BODIES[path]))


async def slow(path: str, count: int, writer: asyncio.StreamWriter) -> None:
    await asyncio.sleep(0.2)  # slower than a local service, well within the request timeout
    writer.write(response(200, BODIES[path]))


async def silent(path: str, count: int, writer: asyncio.StreamWriter) -> None:
    await asyncio.sleep(60)  # never answers within any deadline; cancelled when the test ends


async def drops_the_connection(path: str, count: int, writer: asyncio.StreamWriter) -> None:
    return  # the connection is closed without a byte of answer


async def cuts_the_body_short(path: str, count: int, writer: asyncio.StreamWriter) -> None:
    body = BODIES[path]
    writer.write(response(200, body[: len(body) // 2], length=len(body)))  # promises more than it sends


async def sends_truncated_json(path: str, count: int, writer: asyncio.StreamWriter) -> None:
    writer.write(response(200, BODIES[path][:-40]))  # valid HTTP, JSON cut off


async def alternates_500_and_200(path: str, count: int, writer: asyncio.StreamWriter) -> None:
    if count % 2:
        writer.write(response(500, b'{"error":true,"reason":"Internal server error"}'))
    else:
        writer.write(response(200, BODIES[path]))


class Upstream:
    """A loopback stand-in for Open-Meteo that answers every request through `behaviour`."""

    def __init__(self, behaviour: Behaviour) -> None:
        self.behaviour = behaviour
        self.asked: Counter[str] = Counter()
        self.handlers: set[asyncio.Task[Any]] = set()

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self.handlers.add(task)
        try:
            request_line = (await reader.readuntil(b"\r\n\r\n")).split(b" ")[1].decode()
            path = request_line.split("?")[0]
            self.asked[path] += 1
            await self.behaviour(path, self.asked[path], writer)
            await writer.drain()
        finally:
            writer.close()
            self.handlers.discard(task)


@asynccontextmanager
async def upstream(behaviour: Behaviour, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Upstream]:
    """Serve `behaviour` on 127.0.0.1 and point a weather session started inside at it."""
    stand_in = Upstream(behaviour)
    server = await asyncio.start_server(stand_in.handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    monkeypatch.setenv(openmeteo.GEOCODING_URL_ENV, f"http://127.0.0.1:{port}/v1/search")
    monkeypatch.setenv(openmeteo.FORECAST_URL_ENV, f"http://127.0.0.1:{port}/v1/forecast")
    try:
        yield stand_in
    finally:
        for handler in list(stand_in.handlers):
            handler.cancel()
        server.close()
        await server.wait_closed()


@pytest.fixture(autouse=True)
def short_deadline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(openmeteo, "CALL_DEADLINE_SECONDS", DEADLINE)
    monkeypatch.setattr(openmeteo, "REQUEST_TIMEOUT_SECONDS", 1.0)
    monkeypatch.setattr(openmeteo, "CONNECT_TIMEOUT_SECONDS", 1.0)


async def forecast_in_a_fresh_session() -> CallToolResult:
    """One call in a fresh session (fresh caches), which must end."""
    with anyio.fail_after(HANG_GUARD):
        async with Client(weather) as client:
            return await client.call_tool("weather_get_forecast", ARGUMENTS)


@pytest.fixture
async def correct(monkeypatch: pytest.MonkeyPatch) -> CallToolResult:
    """The answer when the same upstream behaves."""
    async with upstream(well_behaved, monkeypatch):
        result = await forecast_in_a_fresh_session()
    assert not result.is_error, result.content
    return result


@pytest.mark.parametrize("behaviour", [slow, alternates_500_and_200], ids=lambda b: b.__name__)
async def test_an_upstream_that_recovers_gives_the_correct_forecast(
    behaviour: Behaviour, correct: CallToolResult, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with upstream(behaviour, monkeypatch) as stand_in:
        result = await forecast_in_a_fresh_session()
    assert not result.is_error, result.content
    assert result.structured_content == correct.structured_content
    assert result.content == correct.content
    if behaviour is alternates_500_and_200:
        assert stand_in.asked == {"/v1/search": 2, "/v1/forecast": 2}  # each 500 was retried once


@pytest.mark.parametrize(
    "behaviour",
    [silent, drops_the_connection, cuts_the_body_short, sends_truncated_json],
    ids=lambda b: b.__name__,
)
async def test_an_upstream_that_fails_gives_an_instructive_error_in_time(
    behaviour: Behaviour, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with upstream(behaviour, monkeypatch) as stand_in:
        result = await forecast_in_a_fresh_session()
    text = error_text(result)  # no noise, short
    assert "Open-Meteo" in text  # names the cause: not the model's arguments
    assert "again" in text or "tell the user" in text  # and what to do next
    assert stand_in.asked["/v1/search"] >= 1


async def drops_the_first_connection(path: str, count: int, writer: asyncio.StreamWriter) -> None:
    if count > 1:  # a stale keep-alive connection: the next, fresh one is answered
        writer.write(response(200, BODIES[path]))


async def test_a_connection_that_breaks_once_is_retried_into_the_correct_forecast(
    correct: CallToolResult, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with upstream(drops_the_first_connection, monkeypatch) as stand_in:
        result = await forecast_in_a_fresh_session()
    assert result.structured_content == correct.structured_content
    assert stand_in.asked == {"/v1/search": 2, "/v1/forecast": 2}


async def test_every_call_of_a_concurrent_batch_ends_in_time_while_upstream_alternates(
    correct: CallToolResult, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with upstream(alternates_500_and_200, monkeypatch):
        with anyio.fail_after(HANG_GUARD):
            async with Client(weather) as client, anyio.create_task_group() as tasks:
                results: list[CallToolResult] = []

                async def one() -> None:
                    results.append(await client.call_tool("weather_get_forecast", ARGUMENTS))

                for _ in range(50):
                    tasks.start_soon(one)
    assert len(results) == 50
    for result in results:
        assert result.structured_content == correct.structured_content
