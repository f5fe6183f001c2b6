"""Open-Meteo replayed from recorded responses on 127.0.0.1, for demos and tests without a network.

    with replay_open_meteo(RECORDINGS) as urls:
        os.environ.update(urls.environment())  # OPEN_METEO_GEOCODING_URL, OPEN_METEO_FORECAST_URL

or from a shell, printing those two variables as NAME=value lines and serving until interrupted:

    python -m instruments.demo.replay [--recordings DIR] [--port N]

Place search (/v1/search) answers by its `name` parameter with `geocoding_<name>.json`, matched
case-insensitively (frederick, berlin, enschede), or with the recorded no-match body. Forecasts
(/v1/forecast) answer with the `forecast_*.json` recorded nearest to the requested coordinates,
whatever else was asked: variables, days and units are as recorded. The `X-Replay-Recording`
header names the file served. Files starting with `constructed_` are never served.
"""

from __future__ import annotations

import argparse
import logging
import math
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from pathlib import Path
from typing import cast
from urllib.parse import parse_qs, urlsplit

from pydantic import BaseModel

from servers.weather.openmeteo import FORECAST_URL_ENV, GEOCODING_URL_ENV

logger = logging.getLogger(__name__)

# The weather server keeps its recordings beside it (its own tests replay them), so the wheel carries them.
RECORDINGS = Path(str(resources.files("servers.weather") / "recordings"))
NO_RESULTS = "geocoding_no_results.json"
SEARCH_PATH, FORECAST_PATH = "/v1/search", "/v1/forecast"


@dataclass(frozen=True)
class ReplayUrls:
    geocoding: str
    forecast: str

    def environment(self) -> dict[str, str]:
        """The variables that point the weather server at this replay."""
        return {GEOCODING_URL_ENV: self.geocoding, FORECAST_URL_ENV: self.forecast}


@dataclass(frozen=True)
class Recording:
    name: str
    body: bytes


@dataclass(frozen=True)
class ForecastRecording(Recording):
    latitude: float
    longitude: float


class Coordinates(BaseModel):
    latitude: float
    longitude: float


@contextmanager
def replay_open_meteo(recordings: Path, port: int = 0) -> Iterator[ReplayUrls]:
    """Serve the recordings in `recordings` on 127.0.0.1 (`port` 0 picks a free one) while open."""
    server = ReplayServer(("127.0.0.1", port), recordings)
    thread = threading.Thread(target=server.serve_forever, name="open-meteo-replay", daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield ReplayUrls(geocoding=base + SEARCH_PATH, forecast=base + FORECAST_PATH)
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


class ReplayServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address: tuple[str, int], recordings: Path) -> None:
        self.places = {
            path.stem.removeprefix("geocoding_"): Recording(path.name, path.read_bytes())
            for path in sorted(recordings.glob("geocoding_*.json"))
        }
        self.no_results = self.places.pop(NO_RESULTS.removesuffix(".json").removeprefix("geocoding_"))
        self.forecasts = [forecast_recording(path) for path in sorted(recordings.glob("forecast_*.json"))]
        if not self.forecasts:
            raise FileNotFoundError(f"no forecast_*.json recordings in {recordings}")
        super().__init__(address, ReplayHandler)

    def search(self, name: str) -> Recording:
        return self.places.get(name.strip().casefold(), self.no_results)

    def nearest_forecast(self, latitude: float, longitude: float) -> Recording:
        def distance(recording: ForecastRecording) -> float:
            # Equirectangular distance: plenty to tell recordings thousands of kilometres apart.
            east = (recording.longitude - longitude) * math.cos(math.radians(latitude))
            return math.hypot(recording.latitude - latitude, east)

        return min(self.forecasts, key=distance)


def forecast_recording(path: Path) -> ForecastRecording:
    body = path.read_bytes()
    where = Coordinates.model_validate_json(body)
    return ForecastRecording(path.name, body, where.latitude, where.longitude)


class ReplayHandler(BaseHTTPRequestHandler):
    served = ""  # the recording this request was answered with, for the log line

    def do_GET(self) -> None:
        replay = cast(ReplayServer, self.server)
        url = urlsplit(self.path)
        query = {key: values[0] for key, values in parse_qs(url.query).items()}
        if url.path == SEARCH_PATH:
            self.answer(200, replay.search(query.get("name", "")))
        elif url.path == FORECAST_PATH:
            try:
                latitude, longitude = float(query["latitude"]), float(query["longitude"])
            except (KeyError, ValueError):
                self.answer(
                    400, Recording("", b'{"error":true,"reason":"latitude and longitude are required"}')
                )
                return
            self.answer(200, replay.nearest_forecast(latitude, longitude))
        else:
            self.answer(404, Recording("", b'{"error":true,"reason":"Not found"}'))

    def answer(self, status: int, recording: Recording) -> None:
        self.served = recording.name
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(recording.body)))
        if recording.name:
            self.send_header("X-Replay-Recording", recording.name)
        self.end_headers()
        self.wfile.write(recording.body)

    def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
        # Through logging, not straight to stderr, so a demo or benchmark that embeds this stays quiet.
        logger.info('"%s" %s %s', self.requestline, code, self.served)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--recordings", type=Path, default=RECORDINGS, help="folder of recordings")
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1; 0 picks a free one")
    arguments = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    with replay_open_meteo(arguments.recordings, arguments.port) as urls:
        for name, value in urls.environment().items():
            print(f"{name}={value}", flush=True)
        try:
            threading.Event().wait()
        except KeyboardInterrupt:
            print("stopped", file=sys.stderr)


if __name__ == "__main__":
    main()
