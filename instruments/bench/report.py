"""The benchmark's table and page: each figure beside its ratio to the floor, then where it ran."""

from __future__ import annotations

import datetime
import os
import platform
import sys
from dataclasses import dataclass
from importlib.metadata import version

from instruments.bench.measure import Latency

# What changed between runs, newest first: a figure means little without what moved it.
HISTORY = (
    "2026-12-01: weather's outputSchema is inlined, with type lists for nullable fields instead of $ref and "
    "anyOf (the SDK's client validates every result against it, now in half the time); weather imports httpx "
    "on its first call instead of at start; definitions trimmed (convert 191, basics 173 and 199, weather 200 "
    "tokens); the servers' stdio loop is their own (it can stop on Ctrl-C); weather now matches the floor over "
    "stdio while in process it is still 1.68x, so the gain is the transport's, not validation's; synchronous tools (convert, basics) now run in a worker thread under a time limit, "
    "which costs them about 0.4 to 0.8 ms a call in process.",
    "2026-11-29: weather at 1.12x cold start, 1.70x in process and 1.49x over stdio, 294 definition tokens.",
)


def history() -> str:
    return "\n".join(["History, newest first:", "", *(f"- {line}" for line in HISTORY)])


@dataclass(frozen=True)
class Row:
    label: str
    cold_start_ms: float
    in_process: Latency
    stdio: Latency
    concurrent_ms: float  # wall time for the whole batch of concurrent calls
    tokens_per_tool: float
    tools: int


def table(rows: list[Row], concurrent_calls: int) -> str:
    """A Markdown table; the first row is the floor and every other figure carries its ratio to it."""
    floor = rows[0]
    lines = [
        f"| server | cold start | in-process p50 / p95 | stdio p50 / p95 | {concurrent_calls:,} concurrent calls "
        "| definition tokens per tool |",
        "|---|---|---|---|---|---|",
    ]
    for row in rows:
        lines.append(
            f"| {row.label} "
            f"| {row.cold_start_ms:.0f} ms{ratio(row.cold_start_ms, floor.cold_start_ms, row is floor)} "
            f"| {pair(row.in_process)}{ratio(row.in_process.p50_ms, floor.in_process.p50_ms, row is floor)} "
            f"| {pair(row.stdio)}{ratio(row.stdio.p50_ms, floor.stdio.p50_ms, row is floor)} "
            f"| {row.concurrent_ms:.0f} ms{ratio(row.concurrent_ms, floor.concurrent_ms, row is floor)} "
            f"| {row.tokens_per_tool:.0f} ({row.tools} tool{'s' if row.tools > 1 else ''}) |"
        )
    return "\n".join(lines)


def pair(latency: Latency) -> str:
    return f"{latency.p50_ms:.3f} / {latency.p95_ms:.3f} ms"


def ratio(value: float, floor: float, is_floor: bool) -> str:
    return "" if is_floor else f" ({value / floor:.2f}x)"


def machine() -> str:
    """Where the figures came from: they mean little without it."""
    return "\n".join(
        [
            f"- Date: {datetime.date.today().isoformat()}",
            f"- Machine: {cpu_model()}, {os.cpu_count()} logical cores, {platform.system()} {platform.release()}",
            f"- Load average at the end of the run (1, 5, 15 min): {load_average()}",
            f"- Python {platform.python_version()} ({sys.implementation.name})",
            "- Packages: "
            + ", ".join(f"{name} {version(name)}" for name in ("mcp", "pydantic", "anyio", "pint", "httpx")),
        ]
    )


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            return next(line.split(":", 1)[1].strip() for line in cpuinfo if line.startswith("model name"))
    except (OSError, StopIteration):
        return platform.processor() or platform.machine()


def load_average() -> str:
    """Other work on the machine during the run, which ratios absorb better than absolute times."""
    try:
        return ", ".join(f"{load:.1f}" for load in os.getloadavg())
    except OSError:
        return "unknown"
