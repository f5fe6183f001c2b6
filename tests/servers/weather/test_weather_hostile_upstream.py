"""An Open-Meteo that tries to bloat or confuse weather: a gzip bomb, an endless body, 16,000 places,
JSON nested 100,000 deep, absurd Retry-After values. Each gets the right error (never the generic
internal-problem text), within a stated bound of bytes or memory, and the server keeps answering.

In process, with respx where the transport does not matter; over the real stdio transport against a
loopback stand-in on 127.0.0.1 where it does, with a request answered right after. Nothing here asserts
a duration: the bounds are bytes and memory, which a busy machine does not change.
"""

from __future__ import annotations

import asyncio
import json
import os
import tracemalloc
import zlib
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from importlib import resources
from pathlib import Path
from typing import Any

import anyio
import psutil
import pytest
import respx
from mcp import Client

from servers.weather import openmeteo
from servers.weather.server import mcp
from tests.support import error_text, stdio_server

RECORDINGS = Path(str(resources.files("servers.weather") / "recordings"))
GEOCODING = "http://open-meteo.test/v1/search"
FORECAST = "http://open-meteo.test/v1/forecast"
ARGUMENTS = {"city": "Berlin", "days": 3}
TOO_LARGE = (
    "Open-Meteo sent an answer far larger than a forecast (2 MB or more), so this server stopped reading it."
)
UNREADABLE = "Open-Meteo sent an answer this server could not read."
ASKED_TO_WAIT = "The service asked us to wait; try later"
INTERNAL = "internal problem"
BOMB_BYTES = 256 * 2**20  # what the bomb inflates to: 256 MiB from about 250 KB on the wire
MEMORY_BOUND = 32 * 2**20  # what a call may allocate at its peak, bomb or not


def recording(name: str) -> bytes:
    return (RECORDINGS / name).read_bytes()


def gzip_bomb(inflated: int = BOMB_BYTES) -> bytes:
    compressor = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    block = b"\0" * 2**20
    return b"".join(compressor.compress(block) for _ in range(inflated // len(block))) + compressor.flush()


def deeply_nested(depth: int = 100_000) -> bytes:
    return b"[" * depth + b"]" * depth


def many_places(count: int = 16_000) -> bytes:
    place = {"name": "Berlin", "latitude": 52.5, "longitude": 13.4, "country_code": "DE", "population": 1000}
    return json.dumps({"results": [{**place, "admin2": f"D{index}"} for index in range(count)]}).encode()


@pytest.fixture
def upstream(monkeypatch: pytest.MonkeyPatch) -> Iterator[respx.MockRouter]:
    monkeypatch.setenv(openmeteo.GEOCODING_URL_ENV, GEOCODING)
    monkeypatch.setenv(openmeteo.FORECAST_URL_ENV, FORECAST)
    with respx.mock(assert_all_called=False) as router:
        router.get(GEOCODING, name="places").respond(200, content=recording("geocoding_berlin.json"))
        router.get(FORECAST, name="days").respond(200, content=recording("forecast_dubai_daily_metric.json"))
        yield router


async def call_measuring_memory() -> tuple[str, int]:
    """The call's text and the peak of what Python allocated during it."""
    async with Client(mcp) as client:
        tracemalloc.start()
        try:
            result = await client.call_tool("weather_get_forecast", ARGUMENTS)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    text = "".join(block.text for block in result.content if block.type == "text")
    return (error_text(result) if result.is_error else text), peak


async def test_an_encoding_not_asked_for_is_unreadable(upstream: respx.MockRouter) -> None:
    upstream.routes["days"].respond(200, content=b"\x28\xb5\x2f\xfd", headers={"Content-Encoding": "zstd"})
    text, _ = await call_measuring_memory()
    assert text.startswith(UNREADABLE)


@pytest.mark.parametrize("route", ["places", "days"])
async def test_json_nested_past_any_parser_is_unreadable_not_an_internal_problem(
    upstream: respx.MockRouter, route: str
) -> None:
    upstream.routes[route].respond(200, content=deeply_nested())
    text, _ = await call_measuring_memory()
    assert text.startswith(UNREADABLE)


async def test_a_deeply_nested_error_body_still_gets_its_status_explained(upstream: respx.MockRouter) -> None:
    upstream.routes["days"].respond(400, content=deeply_nested())
    text, _ = await call_measuring_memory()
    assert text.startswith(
        "Open-Meteo answered with HTTP 400, which points to a problem in this server's setup."
    )


async def test_sixteen_thousand_places_are_read_as_the_twenty_asked_for(upstream: respx.MockRouter) -> None:
    upstream.routes["places"].respond(200, content=many_places())
    text, _ = await call_measuring_memory()
    assert text.startswith(
        f'"Berlin" matches {openmeteo.GEOCODING_RESULTS} places and none is clearly meant.'
    )
    assert text.count('"Berlin, D') == 5  # five candidates, each short, whatever arrived


@pytest.mark.parametrize(
    "retry_after",
    ["9" * 400, "Thu, 01 Jan 2099 00:00:00 GMT", "31536000"],
    ids=["400 digits", "a date in 2099", "a year"],
)
async def test_an_absurd_retry_after_says_the_service_asked_us_to_wait(
    upstream: respx.MockRouter, retry_after: str
) -> None:
    upstream.routes["days"].respond(
        429,
        content=recording("constructed_error_rate_limited_minutely.json"),
        headers={"Retry-After": retry_after},
    )
    text, _ = await call_measuring_memory()
    assert ASKED_TO_WAIT in text
    assert INTERNAL not in text
    assert upstream.routes["days"].call_count == 1  # and nothing was waited for


# --- over the real stdio transport, against a stand-in on 127.0.0.1 ---------------------------------


class StandIn:
    """Answers place searches from the recording and forecasts with `head` then `frames`, counting bytes sent."""

    def __init__(self, head: bytes, frames: Callable[[], Iterator[bytes]]) -> None:
        self.head = head
        self.frames = frames
        self.sent = 0

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            request = await reader.readuntil(b"\r\n\r\n")
            if b"/v1/search" in request.split(b"\r\n")[0]:
                body = recording("geocoding_berlin.json")
                writer.write(
                    b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s"
                    % (len(body), body)
                )
                await writer.drain()
                return
            writer.write(self.head)
            for frame in self.frames():  # afresh for every request
                writer.write(frame)
                await writer.drain()  # blocks while the client is not reading: what it read is what was sent
                self.sent += len(frame)
        except (ConnectionError, asyncio.IncompleteReadError):
            pass  # the client stopped reading and closed: what these tests want
        finally:
            writer.close()


def endless_chunked_body() -> Iterator[bytes]:
    chunk = b" " * 2**16
    frame = b"%x\r\n%s\r\n" % (len(chunk), chunk)
    for _ in range(2**14):  # 1 GiB at most, so a broken client cannot keep the test running forever
        yield frame


def gzip_frames(body: bytes) -> Iterator[bytes]:
    for start in range(0, len(body), 2**16):
        yield body[start : start + 2**16]


@asynccontextmanager
async def serving(stand_in: StandIn) -> AsyncIterator[dict[str, str]]:
    server = await asyncio.start_server(stand_in.handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        yield {
            **os.environ,
            openmeteo.GEOCODING_URL_ENV: f"http://127.0.0.1:{port}/v1/search",
            openmeteo.FORECAST_URL_ENV: f"http://127.0.0.1:{port}/v1/forecast",
        }
    finally:
        server.close()


def weather_process_rss() -> int:
    (child,) = [
        p for p in psutil.Process().children(recursive=True) if "servers.weather" in " ".join(p.cmdline())
    ]
    rss: int = child.memory_info().rss
    return rss


BOMB = gzip_bomb()


def bomb() -> StandIn:
    head = b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: %d\r\n\r\n" % len(BOMB)
    return StandIn(head, lambda: gzip_frames(BOMB))


async def test_a_gzip_bomb_is_read_no_further_than_the_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    async with serving(bomb()) as environment:
        for name in (openmeteo.GEOCODING_URL_ENV, openmeteo.FORECAST_URL_ENV):
            monkeypatch.setenv(name, environment[name])
        text, peak = await call_measuring_memory()
    assert text.startswith(TOO_LARGE)
    assert peak < MEMORY_BOUND, f"{peak / 2**20:.0f} MiB allocated for a {BOMB_BYTES / 2**20:.0f} MiB bomb"


@pytest.mark.parametrize(
    ("stand_in", "expected"),
    [
        (
            lambda: StandIn(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", endless_chunked_body),
            TOO_LARGE,
        ),
        (bomb, TOO_LARGE),
        (
            lambda: StandIn(
                b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: %d\r\n\r\n" % (2 * 100_000),
                lambda: iter([deeply_nested()]),
            ),
            UNREADABLE,
        ),
    ],
    ids=["endless chunked body", "gzip bomb", "JSON 100,000 deep"],
)
async def test_over_stdio_a_hostile_answer_is_bounded_and_the_server_answers_right_after(
    stand_in: Any, expected: str
) -> None:
    hostile: StandIn = stand_in()
    async with serving(hostile) as environment:
        with anyio.fail_after(120):  # a hang detector only
            async with Client(stdio_server("servers.weather", env=environment)) as client:
                result = await client.call_tool("weather_get_forecast", ARGUMENTS)
                rss = weather_process_rss()
                assert (
                    await client.list_tools()
                ).tools  # still answering (ping is gone from this protocol version)
                again = await client.call_tool("weather_get_forecast", {**ARGUMENTS, "days": 1})
    assert error_text(result).startswith(expected)
    assert error_text(again).startswith(expected)  # failures are not cached; the next call asks again
    # The stand-in can get ahead of the client only by the sockets' buffers; before the cap it sent 825 MB.
    assert hostile.sent < 32 * 2**20, f"{hostile.sent / 2**20:.0f} MiB read"
    assert rss < 200 * 2**20, f"weather grew to {rss / 2**20:.0f} MiB"


async def test_over_stdio_an_overflowing_retry_after_is_said_plainly_and_the_server_answers_right_after() -> (
    None
):
    body = recording("constructed_error_rate_limited_minutely.json")
    head = b"HTTP/1.1 429 Too Many Requests\r\nRetry-After: %s\r\nContent-Length: %d\r\n\r\n" % (
        b"9" * 400,
        len(body),
    )
    async with serving(StandIn(head, lambda: iter([body]))) as environment:
        with anyio.fail_after(120):
            async with Client(stdio_server("servers.weather", env=environment)) as client:
                result = await client.call_tool("weather_get_forecast", ARGUMENTS)
                assert (await client.list_tools()).tools
    assert ASKED_TO_WAIT in error_text(result)


def test_the_bomb_is_what_it_claims() -> None:
    # The tests above mean something only if the bomb really inflates that far.
    assert len(zlib.decompress(BOMB, 16 + zlib.MAX_WBITS)) == BOMB_BYTES
    assert len(BOMB) < BOMB_BYTES // 500


@pytest.mark.parametrize("city", ["B" * 100, "Berlin, " + "x" * 92])
async def test_an_ambiguity_among_long_upstream_names_stays_a_short_error(
    upstream: respx.MockRouter, city: str
) -> None:
    where: dict[str, object] = {"latitude": 52.5, "longitude": 13.4, "population": 1000, "country_code": "DE"}
    long_names = {"admin1": "A" * 200, "admin2": "B" * 200}
    places = [{"name": f"Berlin {index:02d}" + "n" * 200, **long_names, **where} for index in range(20)]
    upstream.routes["places"].respond(200, json={"results": places})
    async with Client(mcp) as client:
        result = await client.call_tool("weather_get_forecast", {"city": city, "days": 1})
    # At most 600 characters (error_text checks), five candidates, whatever arrived.
    assert error_text(result).count('"Berlin ') == 5
