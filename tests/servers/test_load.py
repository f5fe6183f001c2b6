"""Load: 1,000 concurrent calls in one session to each server, every one answered, and answered right.

Each call carries its own arguments and is checked against a result worked out independently (or,
for weather, against the same call made alone), so a crossed or lost answer cannot hide. Weather runs
against the replayed Open-Meteo on 127.0.0.1 and, while its cache is fresh, asks upstream once per
distinct place however many calls name it.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterator
from decimal import Decimal
from typing import Any
from urllib.parse import parse_qs, urlsplit

import anyio
import pytest
from mcp import Client
from mcp_types import CallToolResult

from instruments.demo.replay import RECORDINGS, ReplayHandler, replay_open_meteo
from servers.basics.server import mcp as basics
from servers.convert.server import mcp as convert
from servers.weather.server import mcp as weather

CALLS = 1000


@pytest.fixture(autouse=True)
def no_time_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    """A thousand calls share one machine, so how long each waits depends on its speed: this test is
    about every answer arriving right, and time limits are tested where a test controls the wait
    (tests/servers/surface/test_surface_bounds.py)."""
    for server in (basics, convert, weather):
        for tool in server._strict_tools.values():
            monkeypatch.setattr(tool, "time_limit", 3600.0)


async def call_all(client: Client, calls: list[tuple[str, dict[str, Any]]]) -> list[CallToolResult | None]:
    """Start every call at once; return the results in the order of `calls`."""
    results: list[CallToolResult | None] = [None] * len(calls)

    async def one(index: int, name: str, arguments: dict[str, Any]) -> None:
        results[index] = await client.call_tool(name, arguments)

    # Only a guard against a lost answer hanging the run, far past any machine's time for the calls.
    with anyio.fail_after(600):
        async with anyio.create_task_group() as tasks:
            for index, (name, arguments) in enumerate(calls):
                tasks.start_soon(one, index, name, arguments)
    return results


async def test_convert_answers_a_thousand_concurrent_calls_each_correctly() -> None:
    calls = [("units_convert", {"value": n, "from_unit": "mi", "to_unit": "km"}) for n in range(CALLS)]
    async with Client(convert) as client:
        results = await call_all(client, calls)
    for n, result in enumerate(results):
        assert result is not None
        assert not result.is_error
        assert result.structured_content is not None
        assert math.isclose(result.structured_content["value"], n * 1.609344, rel_tol=1e-11)


async def test_basics_answers_a_thousand_concurrent_calls_each_correctly() -> None:
    calls = [("math_add_numbers", {"numbers": [n, 0.1, "0.2"]}) for n in range(CALLS)]
    async with Client(basics) as client:
        results = await call_all(client, calls)
    for n, result in enumerate(results):
        assert result is not None
        assert not result.is_error
        assert result.structured_content == {"sum": str(n + Decimal("0.3")), "count": 3}


class UpstreamLog:
    """What the replay server was asked, read from the request log it keeps anyway."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, dict[str, str]]] = []

    def record(self, path: str) -> None:
        url = urlsplit(path)
        self.requests.append((url.path, {key: values[0] for key, values in parse_qs(url.query).items()}))

    def count(self, path: str, key: str) -> Counter[str]:
        return Counter(query[key] for asked, query in self.requests if asked == path)


@pytest.fixture
def upstream(monkeypatch: pytest.MonkeyPatch) -> Iterator[UpstreamLog]:
    log = UpstreamLog()

    def log_request(handler: ReplayHandler, code: int | str = "-", size: int | str = "-") -> None:
        log.record(handler.path)

    monkeypatch.setattr(ReplayHandler, "log_request", log_request)
    with replay_open_meteo(RECORDINGS) as urls:
        for name, value in urls.environment().items():
            monkeypatch.setenv(name, value)
        yield log


# Two names share one search ("frederick"); each of the four resolves to its own place.
CITIES = ["Berlin", "Enschede", "Frederick, Maryland", "Frederick, Colorado"]


async def test_weather_answers_a_thousand_concurrent_calls_asking_upstream_once_per_place(
    upstream: UpstreamLog,
) -> None:
    calls = [("weather_get_forecast", {"city": CITIES[n % 4], "days": 1 + n % 7}) for n in range(CALLS)]
    alone = {}
    for name, arguments in calls[:28]:  # every (city, days) once, each in a session of its own
        async with Client(weather) as client:
            alone[str(arguments)] = await client.call_tool(name, arguments)
    upstream.requests.clear()

    async with Client(weather) as client:
        results = await call_all(client, calls)

    for (_, arguments), result in zip(calls, results, strict=True):
        assert result is not None
        expected = alone[str(arguments)]
        assert not result.is_error, result.content
        assert result.structured_content == expected.structured_content
        assert result.content == expected.content
    assert upstream.count("/v1/search", "name") == {"berlin": 1, "enschede": 1, "frederick": 1}
    forecasts = upstream.count("/v1/forecast", "latitude")
    assert len(forecasts) == len(CITIES)
    assert set(forecasts.values()) == {1}
