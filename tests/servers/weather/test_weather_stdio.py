"""The weather server end to end: the real process over stdio, against Open-Meteo replayed on
127.0.0.1 from recorded responses by instruments.demo.replay (which `make demo` uses too)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from importlib import resources
from pathlib import Path

import httpx
import pytest
from mcp import Client

from instruments.demo.replay import ReplayUrls, replay_open_meteo
from tests.support import stdio_server

RECORDINGS = Path(str(resources.files("servers.weather") / "recordings"))


@pytest.fixture(scope="module")
def replay() -> Iterator[ReplayUrls]:
    with replay_open_meteo(RECORDINGS) as urls:
        yield urls


async def test_a_forecast_through_the_real_transport(replay: ReplayUrls) -> None:
    async with Client(stdio_server("servers.weather", env=replay.environment())) as client:
        result = await client.call_tool("weather_get_forecast", {"city": "Frederick, Maryland", "days": 3})
    assert not result.is_error, result.content
    assert result.content[0].type == "text"
    assert result.content[0].text.splitlines() == [
        'Forecast for "Frederick, Maryland, United States", by local date:',
        "Sun 2026-08-09: overcast; 22.5 to 32.9 °C; precipitation unknown; wind unknown",
        "Mon 2026-08-10: slight rain showers; 20.3 to 34.6 °C; precipitation unknown; wind unknown",
        "Tue 2026-08-11: slight rain showers; 23.8 to 33 °C; precipitation unknown; wind unknown",
    ]
    assert result.structured_content is not None
    assert [day["date"] for day in result.structured_content["days"]] == [
        "2026-08-09",
        "2026-08-10",
        "2026-08-11",
    ]


def test_replay_finds_places_by_name_whatever_the_case(replay: ReplayUrls) -> None:
    response = httpx.get(replay.geocoding, params={"name": "ENSCHEDE", "count": "20"})
    assert response.headers["X-Replay-Recording"] == "geocoding_enschede.json"
    assert response.content == (RECORDINGS / "geocoding_enschede.json").read_bytes()


def test_replay_answers_an_unknown_name_with_the_recorded_no_match(replay: ReplayUrls) -> None:
    response = httpx.get(replay.geocoding, params={"name": "Atlantis"})
    assert response.status_code == 200
    assert response.json() == json.loads((RECORDINGS / "geocoding_no_results.json").read_bytes())


@pytest.mark.parametrize(
    ("latitude", "longitude", "served"),
    [
        ("39.41427", "-77.41054", "forecast_frederick_daily.json"),
        ("40.09915", "-104.9372", "forecast_denver_daily.json"),
        ("25.07725", "55.30927", "forecast_dubai_daily_metric.json"),
    ],
)
def test_replay_serves_the_forecast_recorded_nearest(
    replay: ReplayUrls, latitude: str, longitude: str, served: str
) -> None:
    response = httpx.get(replay.forecast, params={"latitude": latitude, "longitude": longitude, "daily": "x"})
    assert response.headers["X-Replay-Recording"] == served
    assert response.content == (RECORDINGS / served).read_bytes()


def test_replay_never_serves_constructed_files(replay: ReplayUrls) -> None:
    # The derived Frederick file has the recording's coordinates; only the recording may answer.
    response = httpx.get(replay.forecast, params={"latitude": "39.375", "longitude": "-77.375"})
    assert response.headers["X-Replay-Recording"] == "forecast_frederick_daily.json"
