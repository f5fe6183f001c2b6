"""The tutorial's worked example, run for real: `make demo` or `.venv/bin/python -m instruments.demo`.

A person asks about cycling 12 miles in Frederick tomorrow. The (scripted) model asks for the forecast and
the unit conversion in one reply; the host runs both concurrently on the real weather and convert servers
over stdio; the model answers from the results it got. Then the same question with one call per reply, to
show that k sequential calls cost k + 1 requests, and the checker's verdict on both transcripts.

Weather comes from Open-Meteo when it answers within a few seconds. Otherwise the weather server is pointed
at a loopback replay of recorded responses, and the output says so, with the recording's date.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, redirect_stderr
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

import anyio
import httpx
from mcp import StdioServerParameters

from instruments.demo.replay import RECORDINGS, replay_open_meteo
from instruments.host.checker import Verdict
from instruments.host.formats import WIRE_NAMES, result_text
from instruments.host.loop import SYSTEM_PROMPT, Limits, Turn, run_turn
from instruments.host.models import ModelRequest, ScriptedModel, received_results
from instruments.host.report import print_outcome, transcript_printer
from instruments.host.toolbox import HostError, Toolbox, connect, server_log
from instruments.host.transcript import ToolCall, ToolResult
from servers.weather.openmeteo import DEFAULT_GEOCODING_URL

QUESTION = (
    "I'm cycling 12 miles in Frederick, Maryland tomorrow. What's the weather, and how far is that in km?"
)
FORECAST = ToolCall.of("toolu_01", "weather_get_forecast", {"city": "Frederick, Maryland", "days": 2})
CONVERSION = ToolCall.of("toolu_02", "units_convert", {"value": 12, "from_unit": "mi", "to_unit": "km"})
PROBE_SECONDS = 3.0
RECORDING = RECORDINGS / "forecast_frederick_daily.json"
WET = ("rain", "drizzle", "shower", "thunder", "snow")


@dataclass(frozen=True)
class WeatherSource:
    description: str
    environment: dict[str, str]  # tells the weather server where Open-Meteo is


def main(argv: Sequence[str] | None = None) -> int:
    """Run the demo; 0 when the model answered both times and both transcripts are well formed."""
    parser = argparse.ArgumentParser(
        prog="python -m instruments.demo",
        description="The tutorial's worked example through the real servers.",
    )
    parser.add_argument(
        "--replay",
        action="store_true",
        help="use recorded Open-Meteo responses without trying the live service",
    )
    parser.add_argument(
        "--server-log",
        type=Path,
        metavar="FILE",
        help="write the servers' logs to FILE; by default they are dropped at the end",
    )
    arguments = parser.parse_args(argv)
    return run(arguments.replay, arguments.server_log)


def run(replay: bool, log_path: Path | None) -> int:
    # The servers' and the replay's logs go to a file (`log_path`, or one deleted at the end), so the
    # transcript reads cleanly; a server that fails to start is quoted from it.
    with server_log(log_path) as log, redirect_stderr(log), weather_source(replay) as source:
        logging.basicConfig(stream=log, level=logging.INFO, format="%(name)s: %(message)s")
        try:
            ok = anyio.run(run_demo, source, log)
        except HostError as problem:
            print(f"error: {problem}", file=sys.__stderr__)
            return 1
    return 0 if ok else 1


@contextmanager
def weather_source(replay: bool) -> Iterator[WeatherSource]:
    """Live Open-Meteo if it answers (unless a replay was asked for), else the recorded responses."""
    if not replay and open_meteo_answers():
        yield WeatherSource("Weather: LIVE from Open-Meteo, fetched now.", {})
        return
    why = "as asked" if replay else "Open-Meteo could not be reached from here"
    with replay_open_meteo(RECORDINGS) as urls:
        yield WeatherSource(
            f"Weather: REPLAYED, not live ({why}). The weather server reads Open-Meteo responses recorded on "
            f"{recording_date()} from a replay server on 127.0.0.1, so 'tomorrow' is the day after the recording.",
            urls.environment(),
        )


def open_meteo_answers() -> bool:
    try:
        response = httpx.get(
            DEFAULT_GEOCODING_URL, params={"name": "Frederick", "count": 1}, timeout=PROBE_SECONDS
        )
    except httpx.HTTPError:
        return False
    return response.status_code == 200


def recording_date() -> str:
    """The first forecast day of the recording, which is the day it was made."""
    date: str = json.loads(RECORDING.read_text(encoding="utf-8"))["daily"]["time"][0]
    return date


async def run_demo(source: WeatherSource, log: TextIO) -> bool:
    servers = [
        StdioServerParameters(command=sys.executable, args=["-m", "servers.weather"], env=source.environment),
        StdioServerParameters(command=sys.executable, args=["-m", "servers.convert"]),
    ]
    print("The tutorial's worked example, through the real weather and convert servers over stdio.")
    print(source.description)
    async with connect(servers, errlog=log) as toolbox:
        parallel, parallel_verdict = await show_turn(
            "Both calls in one reply", [[FORECAST, CONVERSION]], toolbox
        )
        sequential, sequential_verdict = await show_turn(
            "The same question, one call per reply", [[FORECAST], [CONVERSION]], toolbox
        )
    print("")
    print(
        f"{len(parallel.requests)} requests in one reply, {len(sequential.requests)} one call per reply: k sequential "
        "tool calls cost k + 1 requests, and each re-reads the definitions and everything before it."
    )
    answered = parallel.stop.reason == sequential.stop.reason == "answered"
    return answered and not parallel_verdict.defects and not sequential_verdict.defects


async def show_turn(title: str, batches: list[list[ToolCall]], toolbox: Toolbox) -> tuple[Turn, Verdict]:
    """Run one turn with a scripted model, printing the transcript, the bill and the checker's verdict."""
    model = ScriptedModel(batches, answer)
    print("")
    print(f"== {title} (scripted model; transcript in {WIRE_NAMES[model.wire]} format) ==")
    printer = transcript_printer(model.wire, SYSTEM_PROMPT, toolbox.tools)
    turn = await run_turn(QUESTION, model=model, toolbox=toolbox, limits=Limits(), on_message=printer)
    return turn, print_outcome(turn, model.wire, toolbox.tools)


# --- the scripted model's answer --------------------------------------------------------------------


def answer(request: ModelRequest) -> str:
    """The answer, written from the results the model received, whatever they say."""
    received = {each.call.name: each for batch in received_results(request) for each in batch.results}
    return (
        f"{weather_sentence(received.get(FORECAST.name))} {distance_sentence(received.get(CONVERSION.name))}"
    )


def weather_sentence(received: ToolResult | None) -> str:
    if received is None or received.result.is_error:
        reason = result_text(received.result) if received else "the forecast never came back."
        return f"I could not get the forecast: {reason}"
    forecast: dict[str, Any] = received.result.structured_content
    if len(forecast["days"]) < 2:
        return "The forecast has no day for tomorrow."
    day, unit = forecast["days"][1], forecast["units"]["temperature"]
    conditions = day["conditions"] or "conditions unknown"
    advice = ", so bring a rain layer" if any(word in conditions for word in WET) else ""
    low, high = day["temperature_min"], day["temperature_max"]
    temperatures = f", {low:g} to {high:g} {unit}" if low is not None and high is not None else ""
    return f"Tomorrow ({day['date']}) in {forecast['place']['name']}: {conditions}{temperatures}{advice}."


def distance_sentence(received: ToolResult | None) -> str:
    if received is None or received.result.is_error:
        return "I could not convert the distance."
    asked = received.call.parsed_arguments() or {}
    converted: dict[str, Any] = received.result.structured_content
    return f"{asked.get('value')} {asked.get('from_unit')} is about {converted['value']:.1f} {converted['unit']}."
