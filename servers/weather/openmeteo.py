"""Open-Meteo's place search and forecast APIs, as a tool needs them: bounded in time and in bytes,
cached, and failing with messages a model can act on.

One HTTP client lives as long as the server (the lifespan below) so connections are reused. Every
call carries an absolute deadline; retries happen only where a second try can succeed (timeouts,
429 with a short Retry-After, 5xx) and never past that deadline. Time is read through a `Clock`,
so tests run deadlines and backoff on a virtual one. A response is read up to a few MB of decoded
bytes and no further. Upstream text is data: it is cleaned on the way in, before anything else
reads it, and numbers outside what weather can be read as unknown.
"""

from __future__ import annotations

import logging
import math
import os
import re
import unicodedata
import zlib
from collections.abc import AsyncIterator, Awaitable, Callable, Hashable, Iterator
from contextlib import AbstractContextManager, asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from typing import TYPE_CHECKING, Annotated, Any, Generic, Literal, Protocol, TypeVar

import anyio
from cachetools import Cache, LRUCache, TTLCache
from mcp.server.mcpserver import MCPServer
from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, ValidationError

from servers.surface import ToolFailure

if TYPE_CHECKING:
    import httpx

logger = logging.getLogger(__name__)

GEOCODING_URL_ENV = "OPEN_METEO_GEOCODING_URL"
FORECAST_URL_ENV = "OPEN_METEO_FORECAST_URL"
DEFAULT_GEOCODING_URL = "https://geocoding-api.open-meteo.com/v1/search"
DEFAULT_FORECAST_URL = "https://api.open-meteo.com/v1/forecast"
USER_AGENT = "mcp-surface-suite-weather/0.1 (MCP weather forecast tool)"

# A model waits for the whole tool call, so the call as a whole gets a deadline, and the single
# requests inside it get timeouts short enough to leave room for a retry.
CALL_DEADLINE_SECONDS = 6.0
REQUEST_TIMEOUT_SECONDS = 4.0
CONNECT_TIMEOUT_SECONDS = 2.0
ATTEMPTS = 3
FIRST_BACKOFF_SECONDS = 0.25
MAX_RETRY_AFTER_SECONDS = 2.0  # waited for within a call
MAX_STATED_WAIT_SECONDS = 600  # said as "wait N seconds"; beyond it, "try later"

# A week of daily data is about 2 KB and 20 places about 6 KB: anything past this is not an answer.
MAX_RESPONSE_BYTES = 2_000_000
MAX_CACHE_BYTES = 4_000_000  # per cache, counted in response bytes

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
# Every unit Open-Meteo documents for the variables read here; any other label is not trusted.
KNOWN_UNITS = frozenset({"°C", "°F", "mm", "inch", "km/h", "mph", "mp/h", "m/s", "kn"})
UNIT_VARIABLES = frozenset(
    {"temperature_2m_min", "temperature_2m_max", "precipitation_sum", "wind_speed_10m_max"}
)

ModelT = TypeVar("ModelT", bound=BaseModel)
KeyT = TypeVar("KeyT", bound=Hashable)
ValueT = TypeVar("ValueT")

# Terminal escape sequences (CSI, OSC, and two-character ESC forms, 7- and 8-bit), removed whole:
# dropping only the ESC would leave "[2J[31m" behind.
ESCAPE_SEQUENCE = re.compile(
    r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]|(?:\x1b\]|\x9d)[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?|\x1b[ -~]?"
)


def clean_text(text: str, limit: int = MAX_UPSTREAM_TEXT) -> str:
    """Upstream text as safe data: no escape sequences, control or invisible format characters, no
    quotes or angle brackets that could pass for our own markup; one line, bounded."""
    text = ESCAPE_SEQUENCE.sub("", text).replace('"', "'").replace("<", " ").replace(">", " ")
    words = (
        "".join(char for char in word if not unicodedata.category(char).startswith("C"))
        for word in text.split()
    )
    return " ".join(word for word in words if word)[:limit].rstrip()


def plausible(low: float, high: float) -> AfterValidator:
    """A figure outside what weather can be (NaN, 1e308 °C) is unknown, in the text and the data alike."""

    def check(value: float | None) -> float | None:
        return value if value is not None and math.isfinite(value) and low <= value <= high else None

    return AfterValidator(check)


UpstreamText = Annotated[str, AfterValidator(clean_text)]
Temperature = Annotated[float | None, plausible(-150, 150)]  # °C or °F
Precipitation = Annotated[float | None, plausible(0, 2000)]  # mm or inch in a day
Percent = Annotated[float | None, plausible(0, 100)]
WindSpeed = Annotated[float | None, plausible(0, 1500)]  # km/h, mph, m/s or knots
WeatherCode = Annotated[int | None, plausible(0, 99)]


def first_results(results: Any) -> Any:
    """Only the count asked for is read, however many arrive."""
    return results[:GEOCODING_RESULTS] if isinstance(results, list) else results


# --- the response shapes this server reads (everything else in a response is ignored) -----------
# Built on first use, not at import: the server starts faster and most processes parse few shapes.


class GeoResult(BaseModel):
    model_config = ConfigDict(defer_build=True)

    name: UpstreamText
    latitude: float = Field(ge=-90, le=90)
    longitude: float = Field(ge=-180, le=180)
    country: UpstreamText | None = None
    country_code: UpstreamText | None = None
    admin1: UpstreamText | None = None
    admin2: UpstreamText | None = None
    population: int | None = None


class GeocodingResponse(BaseModel):
    model_config = ConfigDict(defer_build=True)

    # No match is HTTP 200 without `results`.
    results: Annotated[list[GeoResult], BeforeValidator(first_results)] = Field(default_factory=list)


class DailySeries(BaseModel):
    """Parallel arrays by local date. A variable the response lacks reads as unknown, never as 0."""

    model_config = ConfigDict(defer_build=True)

    time: list[date]
    weather_code: list[WeatherCode] = Field(default_factory=list)
    temperature_2m_min: list[Temperature] = Field(default_factory=list)
    temperature_2m_max: list[Temperature] = Field(default_factory=list)
    precipitation_sum: list[Precipitation] = Field(default_factory=list)
    precipitation_probability_max: list[Percent] = Field(default_factory=list)
    wind_speed_10m_max: list[WindSpeed] = Field(default_factory=list)


def known_units(stated: dict[str, str]) -> dict[str, str]:
    """The units of the variables read here, each one Open-Meteo documents; the rest is dropped."""
    read = {variable: unit for variable, unit in stated.items() if variable in UNIT_VARIABLES}
    unknown = sorted(set(read.values()) - KNOWN_UNITS)
    if unknown:
        raise ValueError(f"unknown units {unknown}")
    return read


class ForecastResponse(BaseModel):
    model_config = ConfigDict(defer_build=True)

    daily: DailySeries
    daily_units: Annotated[dict[str, UpstreamText], AfterValidator(known_units)] = Field(default_factory=dict)


class ErrorBody(BaseModel):
    model_config = ConfigDict(defer_build=True)

    reason: Any = None  # `{"error": true, "reason": "..."}`


DAILY_VARIABLES = ",".join(name for name in DailySeries.model_fields if name != "time")


# --- time ---------------------------------------------------------------------------------------


class Clock(Protocol):
    """What the client reads time through: anyio's clock in a server, a virtual one in tests."""

    def now(self) -> float: ...

    async def sleep(self, seconds: float) -> None: ...

    def deadline(self, at: float) -> AbstractContextManager[anyio.CancelScope]:
        """A scope cancelled when the clock reaches `at`."""
        ...


class AnyioClock:
    def now(self) -> float:
        return anyio.current_time()

    async def sleep(self, seconds: float) -> None:
        await anyio.sleep(seconds)

    @contextmanager
    def deadline(self, at: float) -> Iterator[anyio.CancelScope]:
        with anyio.CancelScope(deadline=at) as scope:
            yield scope


CLOCK: Clock = AnyioClock()  # what the lifespan gives the client; tests put a virtual clock here


# --- the client --------------------------------------------------------------------------------


class OpenMeteo:
    """Place search and forecasts over one shared client, with caches in front of both."""

    def __init__(self, geocoding_url: str, forecast_url: str, clock: Clock) -> None:
        self.geocoding_url = geocoding_url
        self.forecast_url = forecast_url
        self.clock = clock
        self._client: httpx.AsyncClient | None = None
        # Place names rarely move, so search results stay until the cache is full; forecasts expire.
        self._places: SharedCache[tuple[str], list[GeoResult]] = SharedCache(LRUCache(MAX_CACHE_BYTES, size))
        self._forecasts: SharedCache[tuple[float, float, Units], ForecastResponse] = SharedCache(
            TTLCache(MAX_CACHE_BYTES, FORECAST_TTL_SECONDS, timer=clock.now, getsizeof=size)
        )

    def call_deadline(self) -> float:
        return self.clock.now() + CALL_DEADLINE_SECONDS

    async def search(self, name: str, *, deadline: float) -> list[GeoResult]:
        params = {"name": name, "count": str(GEOCODING_RESULTS), "language": "en", "format": "json"}

        async def fetch() -> Fetched[list[GeoResult]]:
            answer = await self._get(self.geocoding_url, params, GeocodingResponse, deadline)
            return Fetched(answer.value.results, answer.size)

        return await self._places.get((name,), fetch)

    async def forecast(
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
        return await self._forecasts.get(
            (latitude, longitude, units),
            lambda: self._get(self.forecast_url, params, ForecastResponse, deadline),
        )

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()

    def client(self) -> httpx.AsyncClient:
        # httpx is imported on the first call, not at start: with its command-line extras installed
        # it is a tenth of the server's cold start.
        if self._client is None:
            import httpx

            self._client = httpx.AsyncClient(
                timeout=httpx.Timeout(REQUEST_TIMEOUT_SECONDS, connect=CONNECT_TIMEOUT_SECONDS),
                headers={"User-Agent": USER_AGENT, "Accept-Encoding": "gzip"},
            )
        return self._client

    async def _get(
        self, url: str, params: dict[str, str], shape: type[ModelT], deadline: float
    ) -> Fetched[ModelT]:
        """GET and parse within the caller's deadline, whatever happens upstream."""
        with self.clock.deadline(deadline):
            return await self._get_with_retries(url, params, shape, deadline)
        raise timed_out()  # reached only when the deadline cancelled the scope

    async def _get_with_retries(
        self, url: str, params: dict[str, str], shape: type[ModelT], deadline: float
    ) -> Fetched[ModelT]:
        """Retry what can succeed on a second try, and only while the wait still fits the deadline."""
        import httpx

        failure: ToolFailure
        wait: float | None
        attempt = 0
        while True:
            attempt += 1
            try:
                async with self.client().stream("GET", url, params=params) as response:
                    body = await read_bounded(response)
            except httpx.TimeoutException:
                failure, wait = timed_out(), backoff(attempt)
            except (httpx.ReadError, httpx.WriteError, httpx.RemoteProtocolError) as exc:
                # The connection broke mid-exchange, often a stale keep-alive: a fresh one usually works.
                logger.info("Open-Meteo connection broke off: %r", exc)
                failure, wait = broke_off(), backoff(attempt)
            except httpx.TransportError as exc:  # refused or unresolvable: no retry helps soon
                logger.info("Open-Meteo unreachable: %r", exc)
                raise unreachable() from exc
            else:
                if response.is_success:
                    return Fetched(parse(body, shape), len(body))
                failure, wait = (
                    refusal(response.status_code, response.headers, body),
                    retry_wait(response, attempt),
                )
            if wait is None or attempt == ATTEMPTS or self.clock.now() + wait >= deadline:
                raise failure
            await self.clock.sleep(wait)


async def read_bounded(response: httpx.Response) -> bytes:
    """The decoded body, read no further than MAX_RESPONSE_BYTES: a gzip bomb or an endless body
    costs at most that, never the memory or the time it asks for."""
    encoding = response.headers.get("Content-Encoding", "identity").strip().lower()
    if encoding not in ("identity", "gzip"):  # we ask for gzip or nothing
        raise malformed()
    decoder = zlib.decompressobj(16 + zlib.MAX_WBITS) if encoding == "gzip" else None
    body = bytearray()
    async for chunk in response.aiter_raw():
        if decoder is not None:
            try:
                chunk = decoder.decompress(chunk, MAX_RESPONSE_BYTES + 1 - len(body))
            except zlib.error as exc:
                raise malformed() from exc
            if decoder.unconsumed_tail:
                raise too_large()
        body += chunk
        if len(body) > MAX_RESPONSE_BYTES:
            raise too_large()
    return bytes(body)


@dataclass(frozen=True)
class Fetched(Generic[ValueT]):
    """A parsed answer and the bytes it came from, which is what the caches count."""

    value: ValueT
    size: int


def size(entry: Fetched[Any]) -> int:
    return entry.size


@dataclass
class Pending:
    done: anyio.Event = field(default_factory=anyio.Event)
    failure: ToolFailure | None = None


class SharedCache(Generic[KeyT, ValueT]):
    """Answers kept by key within the cache's bounds; concurrent misses for one key share one fetch.

    Failures are never kept: the callers waiting on a failed fetch get its failure, the next call
    fetches again. If the fetching call is cancelled (its own deadline), a waiter fetches itself.
    """

    def __init__(self, entries: Cache[KeyT, Fetched[ValueT]]) -> None:
        self.entries = entries
        self.pending: dict[KeyT, Pending] = {}

    async def get(self, key: KeyT, fetch: Callable[[], Awaitable[Fetched[ValueT]]]) -> ValueT:
        while True:
            entry = self.entries.get(key)
            if entry is not None:
                return entry.value
            pending = self.pending.get(key)
            if pending is None:
                break
            await pending.done.wait()
            if pending.failure is not None:
                raise pending.failure
        pending = self.pending[key] = Pending()
        try:
            entry = await fetch()
            self.entries[key] = entry
            return entry.value
        except ToolFailure as failure:
            pending.failure = failure
            raise
        finally:
            del self.pending[key]
            pending.done.set()


@asynccontextmanager
async def open_meteo(server: MCPServer[Any]) -> AsyncIterator[OpenMeteo]:
    """The server's lifespan: one client for all calls, base URLs from the environment at start."""
    geocoding_url = os.environ.get(GEOCODING_URL_ENV) or DEFAULT_GEOCODING_URL
    forecast_url = os.environ.get(FORECAST_URL_ENV) or DEFAULT_FORECAST_URL
    service = OpenMeteo(geocoding_url, forecast_url, CLOCK)
    try:
        yield service
    finally:
        await service.aclose()


# --- retries ------------------------------------------------------------------------------------


def backoff(attempt: int) -> float:
    return FIRST_BACKOFF_SECONDS * 2.0 ** (attempt - 1)


def retry_wait(response: httpx.Response, attempt: int) -> float | None:
    """Seconds to wait before trying again, or None when another try cannot help."""
    if response.status_code == 429:
        wait = retry_after(response.headers)
        return wait if wait is not None and wait <= MAX_RETRY_AFTER_SECONDS else None
    return backoff(attempt) if response.status_code >= 500 else None


def retry_after(headers: httpx.Headers) -> float | None:
    """Retry-After in seconds, written either as seconds or as an HTTP date; any size, any year."""
    from email.utils import parsedate_to_datetime

    value = headers.get("Retry-After", "").strip()
    if value.isascii() and value.isdigit():
        return float(value) if len(value) <= 15 else math.inf  # 400 digits overflow a float
    try:
        moment = parsedate_to_datetime(value)
    except (TypeError, ValueError, OverflowError):
        return None
    if moment.tzinfo is None:  # "-0000": UTC by RFC 5322
        moment = moment.replace(tzinfo=UTC)
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


def too_large() -> ToolFailure:
    return ToolFailure(
        f"Open-Meteo sent an answer far larger than a forecast ({MAX_RESPONSE_BYTES // 1_000_000} MB or more), "
        f"so this server stopped reading it. {NOT_YOUR_ARGUMENTS}",
        TRY_LATER,
    )


def refusal(status: int, headers: httpx.Headers, body: bytes) -> ToolFailure:
    """A non-success status as a failure that says whose fault it is and what to do."""
    reason = reason_text(body)
    if status == 429:
        because = f": {reason}" if reason else "."
        limited = f"Open-Meteo is limiting how often this server may ask it{because} {NOT_YOUR_ARGUMENTS}"
        wait = retry_after(headers)
        if wait is None:
            return ToolFailure(limited, "Wait a minute, then make the same call again.")
        if wait > MAX_STATED_WAIT_SECONDS:
            return ToolFailure(
                limited,
                "The service asked us to wait; try later, and tell the user the forecast is unavailable for now.",
            )
        seconds = max(1, math.ceil(wait))
        return ToolFailure(
            limited, f"Wait {seconds} second{'' if seconds == 1 else 's'}, then make the same call again."
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


def reason_text(body: bytes) -> str:
    """Open-Meteo's own explanation (`{"error": true, "reason": ...}`), cleaned and shortened."""
    try:
        reason = ErrorBody.model_validate_json(body).reason
    except ValidationError:  # not JSON, too deep, not an object
        return ""
    if not isinstance(reason, str):
        return ""
    text = clean_text(reason, limit=10 * MAX_REASON_CHARS)
    if len(text) > MAX_REASON_CHARS:
        return text[: MAX_REASON_CHARS - 1].rstrip() + "…"
    return text if text.endswith((".", "!", "?")) or not text else text + "."


def parse(body: bytes, shape: type[ModelT]) -> ModelT:
    try:
        return shape.model_validate_json(body)
    except ValidationError as exc:  # bad JSON and nesting past the parser's limit are ValidationErrors too
        logger.info("Open-Meteo answer not understood: %s", str(exc)[:200])
        raise malformed() from exc
