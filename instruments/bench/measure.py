"""The benchmark's measurements: cold start, per-call latency, throughput of concurrent calls.

Each takes a plain description of what to call, so the floor and the suite's servers are measured
by exactly the same code.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import anyio
from mcp import Client

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "bench", "version": "1"},
    },
}


@dataclass(frozen=True)
class SampleCall:
    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class Latency:
    p50_ms: float
    p95_ms: float


async def cold_start_seconds(module: str, env: Mapping[str, str]) -> float:
    """From spawning `python -m module` to reading its answer to `initialize` on stdout."""
    started = time.perf_counter()
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", module,
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
        env=dict(env),
    )  # fmt: skip
    assert process.stdin is not None
    assert process.stdout is not None
    process.stdin.write(json.dumps(INITIALIZE).encode() + b"\n")
    await process.stdin.drain()
    answer = await process.stdout.readline()
    elapsed = time.perf_counter() - started
    process.stdin.close()
    await process.wait()
    if b'"result"' not in answer:
        raise RuntimeError(f"{module} did not answer initialize: {answer[:200]!r}")
    return elapsed


async def latency(client: Client, call: SampleCall, calls: int) -> Latency:
    """p50 and p95 of `calls` sequential calls, after a warm-up the figures leave out."""
    for _ in range(calls // 10):
        await checked(client, call)
    samples = []
    for _ in range(calls):
        started = time.perf_counter()
        await checked(client, call)
        samples.append(time.perf_counter() - started)
    cuts = statistics.quantiles(samples, n=20)
    return Latency(p50_ms=statistics.median(samples) * 1000, p95_ms=cuts[18] * 1000)


async def concurrent_seconds(client: Client, call: SampleCall, calls: int) -> float:
    """Wall time for `calls` calls started at once in one session; every one must be answered."""
    answered = 0

    async def one() -> None:
        nonlocal answered
        await checked(client, call)
        answered += 1

    started = time.perf_counter()
    async with anyio.create_task_group() as tasks:
        for _ in range(calls):
            tasks.start_soon(one)
    elapsed = time.perf_counter() - started
    if answered != calls:
        raise RuntimeError(f"{call.name}: {calls - answered} of {calls} concurrent calls went unanswered")
    return elapsed


async def checked(client: Client, call: SampleCall) -> None:
    result = await client.call_tool(call.name, call.arguments)
    if result.is_error:
        raise RuntimeError(f"{call.name} failed during the benchmark: {result.content}")
