"""Open-Meteo's place search and forecast APIs, as a tool needs them: bounded in time, cached, and
failing with messages a model can act on.

One `httpx.AsyncClient` lives as long as the server (the lifespan below) so connections are reused.
Every call carries an absolute deadline; retries happen only where a second try can succeed
(timeouts, 429 with a short Retry-After, 5xx) and never past that deadline. Upstream text is data:
it is cleaned on the way in, before anything else reads it.
"""

from __future__ import annotations

import logging
import math
import os
import unicodedata
from collections.abc import AsyncIterator, Hashable
from contextlib import asynccontextmanager
from datetime import UTC, date, datetime
from email.utils import parsedate_to_datetime
from typing import Annotated, Any, Literal, TypeVar

import anyio
import httpx
from async_lru import alru_cache
from mcp.server.mcpserver import MCPServer
from pydantic import AfterValidator, BaseModel, Field, ValidationError

from servers.surface import ToolFailure

logger = logging.getLogger(__name__)

GEOCODING_URL_ENV = "OPEN_METEO_GEOCODING_URL"
FORECAST_URL_ENV = "OPEN_METEO_FORECAST_URL"
DEFAULT_GEOCODING_URL = "https://geocoding-api.open-meteo.com/v1/search"
DEFAULT_FORECAST_URL = "https://api.open-meteo.com/v1/forecast"
USER_AGENT = "mcp-surface-suite-weather/0.1 (MCP weather forecast tool)"

# A model waits for the whole tool call, so the call as a whole gets a deadline, and the single
# requests inside it get timeouts short enough to leave room for a retry.
CALL_DEADLINE_SECONDS = 6.0
TIMEOUTS = httpx.Timeout(4.0, connect=2.0)
ATTEMPTS = 3
FIRST_BACKOFF_SECONDS = 0.25
MAX_RETRY_AFTER_SECONDS = 2.0

# Forecast models update hourly at best; a few minutes of reuse costs no freshness anyone notices.
FORECAST_TTL_SECONDS = 300.0
FORECAST_DAYS = 7  # One cached week serves every `days` a caller asks for.
GEOCODING_RESULTS = 20  # Enough that a qualifier ("Springfield, Oregon") finds its place among them.

MAX_UPSTREAM_TEXT = 60
MAX_REASON_CHARS = 100

Units = Literal["metric", "imperial"]
UNIT_PARAMETERS: dict[Units, dict[str, str]] = {
    "metric": {"temperature_unit": "celsius", "wind_speed_unit": "kmh", "precipitation_unit": "mm"},
    "imperial": {"temperature_unit": "fahrenheit", "wind_speed_unit": "mph", "precipitation_unit": "inch"},
}

ModelT = TypeVar("ModelT", bound=BaseModel)


def clean_text(text: str, limit: int = MAX_UPSTREAM_TEXT) -> str:
    """Upstream text as safe data: no control or invisible format characters, one line, bounded."""
    words = (
        "".join(char for char in word if not unicodedata.category(char).startswith("C"))
        for word in text.split()
    )
    return " ".join(word for word in words if word)[:limit]


UpstreamText = Annotated[str, AfterValidator(clean_text)]


# --- the response shapes this server reads (everything else in a response is ignored) -----------


class GeoResult(BaseModel):
    name: UpstreamText
    latitude: float = Field(ge=-90, le=90)
    longitude: float = Field(ge=-180, le=180)
    country: UpstreamText | None = None
    country_code: UpstreamText | None = None
    admin1: UpstreamText | None = None
    admin2: UpstreamText | None = None
    population: int | None = None


class GeocodingResponse(BaseModel):
    results: list[GeoResult] = Field(default_factory=list)  # No match is HTTP 200 without `results`.


class DailySeries(BaseModel):
    """Parallel arrays by local date. A variable the response lacks reads as unknown, never as 0."""

    time: list[date]
    weather_code: list[int | None] = Field(default_factory=list)
    temperature_2m_min: list[float | None] = Field(default_factory=list)
    temperature_2m_max: list[float | None] = Field(default_factory=list)
    precipitation_sum: list[float | None] = Field(default_factory=list)
    precipitation_probability_max: list[float | None] = Field(default_factory=list)
    wind_speed_10m_max: list[float | None] = Field(default_factory=list)


class ForecastResponse(BaseModel):
    daily: DailySeries
    daily_units: dict[str, UpstreamText] = Field(default_factory=dict)


DAILY_VARIABLES = ",".join(name for name in DailySeries.model_fields if name != "time")


# --- the client --------------------------------------------------------------------------------


class OpenMeteo:
    """Place search and forecasts over one shared client, with caches in front of both.

    Concurrent calls for the same key share one upstream request (the cache holds the request while
    it runs); errors are never cached.
    """

    def __init__(self, client: httpx.AsyncClient, geocoding_url: str, forecast_url: str) -> None:
        self.client = client
        self.geocoding_url = geocoding_url
        self.forecast_url = forecast_url
        # Place names rarely move, so search results stay for the life of the process (LRU-bounded).
        self.search = alru_cache(maxsize=1024, key=_cache_key)(self._search)
        self.forecast = alru_cache(maxsize=256, ttl=FORECAST_TTL_SECONDS, key=_cache_key)(self._forecast)

    async def _search(self, name: str, *, deadline: float) -> list[GeoResult]:
        params = {"name": name, "count": str(GEOCODING_RESULTS), "language": "en", "format": "json"}
        response = await self._get(self.geocoding_url, params, GeocodingResponse, deadline)
        return response.results

    async def _forecast(
        self, latitude: float, longitude: float, units: Units, *, deadline: float
    ) -> ForecastResponse:
        params = {
            "latitude": str(latitude),
            "longitude": str(longitude),
            "daily": DAILY_VARIABLES,
            "timezone": "auto",  # daily values by the place's own dates, not GMT's
            "forecast_days": str(FORECAST_DAYS),
            **UNIT_PARAMETERS[units],
        }
        return await self._get(self.forecast_url, params, ForecastResponse, deadline)

    async def _get(self, url: str, params: dict[str, str], shape: type[ModelT], deadline: float) -> ModelT:
        """GET and parse within the caller's deadline, whatever happens upstream."""
        try:
            with anyio.fail_after(max(0.0, deadline - anyio.current_time())):
                return await self._get_with_retries(url, params, shape, deadline)
        except TimeoutError:
            raise timed_out() from None

    async def _get_with_retries(
        self, url: str, params: dict[str, str], shape: type[ModelT], deadline: float
    ) -> ModelT:
        """Retry what can succeed on a second try, and only while the wait still fits the deadline."""
        failure: ToolFailure
        wait: float | None
        attempt = 0
        while True:
            attempt += 1
            try:
                response = await self.client.get(url, params=params)
            except httpx.TimeoutException:
                failure, wait = timed_out(), backoff(attempt)
            except (httpx.ReadError, httpx.WriteError, httpx.RemoteProtocolError) as exc:
                # The connection broke mid-exchange, often a stale keep-alive: a fresh one usually works.
                logger.info("Open-Meteo connection broke off: %r", exc)
                failure, wait = broke_off(), backoff(attempt)
            except httpx.TransportError as exc:  # refused or unresolvable: no retry helps soon
                logger.info("Open-Meteo unreachable: %r", exc)
                raise unreachable() from exc
            except httpx.DecodingError as exc:  # a body its own Content-Encoding cannot undo
                raise malformed() from exc
            else:
                if response.is_success:
                    return parse(response, shape)
                failure, wait = refusal(response), retry_wait(response, attempt)
            if wait is None or attempt == ATTEMPTS or anyio.current_time() + wait >= deadline:
                raise failure
            await anyio.sleep(wait)


def _cache_key(*args: Hashable, deadline: float) -> Hashable:
    """Cache by what was asked, not by when the caller needs it."""
    return args


@asynccontextmanager
async def open_meteo(server: MCPServer[Any]) -> AsyncIterator[OpenMeteo]:
    """The server's lifespan: one client for all calls, base URLs from the environment at start."""
    geocoding_url = os.environ.get(GEOCODING_URL_ENV) or DEFAULT_GEOCODING_URL
    forecast_url = os.environ.get(FORECAST_URL_ENV) or DEFAULT_FORECAST_URL
    async with httpx.AsyncClient(timeout=TIMEOUTS, headers={"User-Agent": USER_AGENT}) as client:
        yield OpenMeteo(client, geocoding_url, forecast_url)


# --- retries ------------------------------------------------------------------------------------


def backoff(attempt: int) -> float:
    return FIRST_BACKOFF_SECONDS * 2.0 ** (attempt - 1)


def retry_wait(response: httpx.Response, attempt: int) -> float | None:
    """Seconds to wait before trying again, or None when another try cannot help."""
    if response.status_code == 429:
        wait = retry_after(response)
        return wait if wait is not None and wait <= MAX_RETRY_AFTER_SECONDS else None
    return backoff(attempt) if response.status_code >= 500 else None


def retry_after(response: httpx.Response) -> float | None:
    """Retry-After in seconds, written either as seconds or as an HTTP date."""
    value = response.headers.get("Retry-After", "").strip()
    if value.isdigit():
        return float(value)
    try:
        moment = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, (moment - datetime.now(UTC)).total_seconds())


# --- what the model reads when Open-Meteo fails -------------------------------------------------

NOT_YOUR_ARGUMENTS = "This is not a problem with your arguments."
TRY_LATER = (
    "Try the same call again in a minute; if it fails again, tell the user the forecast is unavailable."
)
CANNOT_HELP = "Retrying will not help: tell the user the forecast is unavailable right now."


def timed_out() -> ToolFailure:
    return ToolFailure(
        f"Open-Meteo, the weather service behind this tool, did not answer within "
        f"{CALL_DEADLINE_SECONDS:g} seconds. {NOT_YOUR_ARGUMENTS}",
        TRY_LATER,
    )


def unreachable() -> ToolFailure:
    return ToolFailure(
        f"Open-Meteo, the weather service behind this tool, could not be reached. {NOT_YOUR_ARGUMENTS}",
        TRY_LATER,
    )


def broke_off() -> ToolFailure:
    return ToolFailure(
        f"The connection to Open-Meteo, the weather service behind this tool, broke off before its "
        f"answer arrived. {NOT_YOUR_ARGUMENTS}",
        TRY_LATER,
    )


def malformed() -> ToolFailure:
    return ToolFailure(
        f"Open-Meteo sent an answer this server could not read. {NOT_YOUR_ARGUMENTS}", TRY_LATER
    )


def refusal(response: httpx.Response) -> ToolFailure:
    """A non-success status as a failure that says whose fault it is and what to do."""
    status, reason = response.status_code, reason_text(response)
    if status == 429:
        wait = retry_after(response)
        seconds = max(1, math.ceil(wait or 0))
        when = "Wait a minute" if wait is None else f"Wait {seconds} second{'' if seconds == 1 else 's'}"
        because = f": {reason}" if reason else "."
        return ToolFailure(
            f"Open-Meteo is limiting how often this server may ask it{because} {NOT_YOUR_ARGUMENTS}",
            f"{when}, then make the same call again.",
        )
    if status >= 500:
        return ToolFailure(
            f"Open-Meteo had a problem on its side (HTTP {status}). {NOT_YOUR_ARGUMENTS}", TRY_LATER
        )
    if status == 400 and reason:
        return ToolFailure(
            f"Open-Meteo refused this server's request: {reason} {NOT_YOUR_ARGUMENTS}", CANNOT_HELP
        )
    return ToolFailure(
        f"Open-Meteo answered with HTTP {status}, which points to a problem in this server's setup. "
        f"{NOT_YOUR_ARGUMENTS}",
        CANNOT_HELP,
    )


def reason_text(response: httpx.Response) -> str:
    """Open-Meteo's own explanation (`{"error": true, "reason": ...}`), cleaned and shortened."""
    try:
        reason = response.json().get("reason")
    except (ValueError, AttributeError):
        return ""
    if not isinstance(reason, str):
        return ""
    text = clean_text(reason, limit=10 * MAX_REASON_CHARS)
    if len(text) > MAX_REASON_CHARS:
        return text[: MAX_REASON_CHARS - 1].rstrip() + "…"
    return text if text.endswith((".", "!", "?")) or not text else text + "."


def parse(response: httpx.Response, shape: type[ModelT]) -> ModelT:
    try:
        return shape.model_validate(response.json())
    except (ValueError, ValidationError) as exc:  # JSONDecodeError is a ValueError
        logger.info("Open-Meteo answer not understood: %s", str(exc)[:200])
        raise malformed() from exc
