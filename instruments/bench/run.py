"""`python -m instruments.bench`: measure every server beside the floor, print the table, write the page.

A benchmark, not a test: nothing here passes or fails on a time. Ratios to the floor, measured in the
same run on the same machine, are the figures to read; absolute times only say what the machine was.
Weather runs against its replayed Open-Meteo on 127.0.0.1, so its figures are cache hits after the
first call, the state a busy server is in.
"""

from __future__ import annotations

import argparse
import logging
import os
import statistics
import sys
import time
from collections.abc import Mapping, Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.server.mcpserver import MCPServer

from instruments.bench.floor import mcp as floor
from instruments.bench.measure import Latency, SampleCall, cold_start_seconds, concurrent_seconds, latency
from instruments.bench.report import HISTORY, Row, history, machine, table
from instruments.demo.replay import RECORDINGS, replay_open_meteo
from instruments.tokens import definition_tokens
from servers.basics.server import mcp as basics
from servers.convert.server import mcp as convert
from servers.weather.server import mcp as weather

COLD_STARTS = 15  # cheap, and the noisiest figure
ROUNDS = 9
IN_PROCESS_CALLS = 300  # per round
STDIO_CALLS = 100  # per round
CONCURRENT_CALLS = 1000  # one batch per round


@dataclass(frozen=True)
class Target:
    label: str
    module: str  # what `python -m` starts
    server: MCPServer[Any]
    call: SampleCall  # a cheap, representative call: the figures are about the plumbing around it


@dataclass
class Samples:
    """One target's figures, a list per measurement with one entry per round."""

    cold_start: list[float] = field(default_factory=list)
    in_process: list[Latency] = field(default_factory=list)
    stdio: list[Latency] = field(default_factory=list)
    concurrent: list[float] = field(default_factory=list)
    tokens: list[int] = field(default_factory=list)  # one entry per tool

    def row(self, label: str) -> Row:
        return Row(
            label=label,
            cold_start_ms=statistics.median(self.cold_start) * 1000,
            in_process=median_latency(self.in_process),
            stdio=median_latency(self.stdio),
            concurrent_ms=statistics.median(self.concurrent) * 1000,
            tokens_per_tool=statistics.mean(self.tokens),
            tools=len(self.tokens),
        )


TARGETS = [
    Target(
        "floor: bare MCPServer, 1 tool", "instruments.bench.floor", floor, SampleCall("add", {"a": 1, "b": 2})
    ),
    Target(
        "convert",
        "servers.convert",
        convert,
        SampleCall("units_convert", {"value": 12, "from_unit": "mi", "to_unit": "km"}),
    ),
    Target(
        "basics", "servers.basics", basics, SampleCall("math_add_numbers", {"numbers": [0.1, 0.2, "12.5"]})
    ),
    Target(
        "weather",
        "servers.weather",
        weather,
        SampleCall("weather_get_forecast", {"city": "Berlin", "days": 3}),
    ),
]


class Progress:
    """One line per step on stderr, with the time so far: the run takes minutes and says where it is."""

    def __init__(self) -> None:
        self.started = time.monotonic()

    def step(self, text: str) -> None:
        elapsed = int(time.monotonic() - self.started)
        print(f"[{elapsed // 60}:{elapsed % 60:02d}] {text}", file=sys.stderr, flush=True)


async def benchmark(env: Mapping[str, str], progress: Progress) -> list[Row]:
    """Every measurement runs in rounds that visit each server in turn, and reports the median over
    the rounds, so a burst of load elsewhere on the machine hits all servers alike."""
    samples = [Samples() for _ in TARGETS]
    progress.step(f"warming up: one start of each of {len(TARGETS)} servers, not counted")
    for target in TARGETS:
        await cold_start_seconds(target.module, env)  # warms the file cache and bytecode; not counted
    for round_number in range(1, COLD_STARTS + 1):
        for target, sample in zip(TARGETS, samples, strict=True):
            sample.cold_start.append(await cold_start_seconds(target.module, env))
        progress.step(f"cold start: round {round_number} of {COLD_STARTS} done")
    with open(os.devnull, "w") as devnull:  # the servers' logs are not the benchmark's
        async with AsyncExitStack() as stack:
            sessions = []
            for target in TARGETS:
                in_memory = await stack.enter_async_context(Client(target.server))
                process = StdioServerParameters(
                    command=sys.executable, args=["-m", target.module], env=dict(env)
                )
                over_stdio = await stack.enter_async_context(Client(stdio_client(process, errlog=devnull)))
                sessions.append((in_memory, over_stdio))
            for round_number in range(1, ROUNDS + 1):
                for target, sample, (in_memory, over_stdio) in zip(TARGETS, samples, sessions, strict=True):
                    sample.in_process.append(await latency(in_memory, target.call, IN_PROCESS_CALLS))
                    sample.stdio.append(await latency(over_stdio, target.call, STDIO_CALLS))
                    sample.concurrent.append(
                        await concurrent_seconds(in_memory, target.call, CONCURRENT_CALLS)
                    )
                progress.step(f"per call and concurrent: round {round_number} of {ROUNDS} done")
            for sample, (in_memory, _) in zip(samples, sessions, strict=True):
                sample.tokens = [
                    definition_tokens(tool).tokens for tool in (await in_memory.list_tools()).tools
                ]
    return [sample.row(target.label) for target, sample in zip(TARGETS, samples, strict=True)]


def median_latency(rounds: list[Latency]) -> Latency:
    return Latency(
        p50_ms=statistics.median(latency.p50_ms for latency in rounds),
        p95_ms=statistics.median(latency.p95_ms for latency in rounds),
    )


def page(rows_table: str) -> str:
    return f"""# Benchmarks

Generated by `make bench` (`python -m instruments.bench`); not run in CI. The floor is
`instruments/bench/floor.py`: one tool on a bare `MCPServer`, written the SDK's default way. Read the
ratios to it: they are measured in the same run, so they say what this suite's surface costs.

{rows_table}

{history()}

Every figure is a median over rounds that each visit every server in turn, so a burst of load
elsewhere on the machine hits them all alike: {COLD_STARTS} rounds for cold start, {ROUNDS} for the rest.

- Cold start: spawn `python -m <server>` to its answer to `initialize` on stdout.
- Per call: one representative call repeated in one session, p50 and p95 of {IN_PROCESS_CALLS} calls
  through the SDK's in-memory client, and of {STDIO_CALLS} over stdio to the real process.
- Concurrent: {CONCURRENT_CALLS:,} calls started at once in one in-memory session, every answer
  checked; wall time.
- Definition tokens: each tool's name, description and input schema as a host sends them
  (cl100k_base), averaged over the server's tools. More here is deliberate: descriptions say
  what, when and when not, which the floor's one line does not.
- Weather runs against the replayed Open-Meteo on 127.0.0.1; after the first call it answers from
  its cache.

## Where it ran

{machine()}
"""


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m instruments.bench",
        description="Time each server against a bare SDK server (about 5 minutes on 2 cores); print the "
        "table. Writes nothing unless --output is given.",
    )
    parser.add_argument("--output", type=Path, help="also write the benchmarks page to this file")
    parser.add_argument("--verbose", action="store_true", help="show the servers' and the replay's logs")
    arguments = parser.parse_args(argv)
    if not arguments.verbose:
        logging.disable(logging.INFO)  # in-process servers and the replay log every request at INFO
    progress = Progress()
    with replay_open_meteo(RECORDINGS) as urls:
        env = {**os.environ, **urls.environment()}
        os.environ.update(urls.environment())  # for the in-process weather server's lifespan
        rows = anyio.run(benchmark, env, progress)
    progress.step("done")
    rows_table = table(rows, CONCURRENT_CALLS)
    print(rows_table)
    print(f"Latest change: {HISTORY[0]}")
    if arguments.output is not None:
        arguments.output.write_text(page(rows_table), encoding="utf-8")
        print(f"written to {arguments.output}", file=sys.stderr)
