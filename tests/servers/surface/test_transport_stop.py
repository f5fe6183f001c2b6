"""Stopping a real server process: Ctrl-C (SIGINT) and SIGTERM end it quietly with 130 / 143, over
stdio and HTTP, and a call in flight is answered first.

The call in flight is tests/servers/surface/slow_server.py's tool, which answers once the test creates
a file, so no test here depends on how long anything takes; timeouts only guard against a hang.
"""

from __future__ import annotations

import asyncio
import json
import signal
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from tests.support import INITIALIZED, free_port, initialize

GUARD_SECONDS = 30
SIGNALS = [(signal.SIGINT, 130), (signal.SIGTERM, 143)]
SERVERS = ["servers.convert", "servers.basics", "servers.weather"]


class Process:
    """A spawned server: raw JSON-RPC lines in, parsed lines out, stderr read line by line."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.stderr: list[str] = []

    async def send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        await self.process.stdin.drain()

    async def answer(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        async with asyncio.timeout(GUARD_SECONDS):
            line = await self.process.stdout.readline()
        assert line, "the server closed stdout without answering"
        answer: dict[str, Any] = json.loads(line)
        return answer

    async def stderr_line(self, containing: str) -> str:
        assert self.process.stderr is not None
        async with asyncio.timeout(GUARD_SECONDS):
            while True:
                line = (await self.process.stderr.readline()).decode()
                assert line, f"stderr ended without {containing!r}: {self.stderr}"
                self.stderr.append(line)
                if containing in line:
                    return line

    async def exit_code(self) -> int:
        async with asyncio.timeout(GUARD_SECONDS):
            code = await self.process.wait()
        assert self.process.stderr is not None
        self.stderr += (await self.process.stderr.read()).decode().splitlines(keepends=True)
        return code


@asynccontextmanager
async def spawned(module: str, *arguments: str) -> AsyncIterator[Process]:
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", module, *arguments,
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    try:
        yield Process(process)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()


async def started(gate: Path) -> None:
    """Wait until the slow tool has begun."""
    async with asyncio.timeout(GUARD_SECONDS):
        while not Path(f"{gate}.started").exists():
            await asyncio.sleep(0.01)


def call(request_id: int, gate: Path) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "tools/call",
        "params": {"name": "wait_for_gate", "arguments": {"gate": str(gate)}},
    }


async def handshake(server: Process) -> None:
    await server.send(initialize(0))
    assert (await server.answer())["id"] == 0
    await server.send(INITIALIZED)


# --- stdio ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("module", SERVERS)
async def test_started_by_hand_a_stdio_server_says_one_line_on_stderr_and_nothing_on_stdout(
    module: str,
) -> None:
    async with spawned(module) as server:
        line = await server.stderr_line("waiting for a client on stdin")
        server.process.send_signal(signal.SIGINT)
        assert await server.exit_code() == 130
        assert server.process.stdout is not None
        assert await server.process.stdout.read() == b""
    name = module.removeprefix("servers.")
    assert line.startswith(f"{name} ")
    assert "stdio" in line
    assert server.stderr == [line]  # and nothing else: no traceback on the way out


@pytest.mark.parametrize(("number", "exit_code"), SIGNALS)
async def test_an_idle_stdio_server_stops_quietly_on_a_signal(number: int, exit_code: int) -> None:
    async with spawned("servers.basics") as server:
        await handshake(server)
        server.process.send_signal(number)
        assert await server.exit_code() == exit_code
    assert len(server.stderr) == 1, server.stderr  # the start-up line alone


@pytest.mark.parametrize(("number", "exit_code"), SIGNALS)
async def test_a_call_in_flight_over_stdio_is_answered_before_the_server_stops(
    tmp_path: Path, number: int, exit_code: int
) -> None:
    gate = tmp_path / "gate"
    async with spawned("tests.servers.surface.slow_server") as server:
        await handshake(server)
        await server.send(call(1, gate))
        await started(gate)
        server.process.send_signal(number)
        await server.stderr_line("Stopping: waiting")
        # While it drains, a new request is refused at once rather than left unanswered.
        await server.send({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
        refused = await server.answer()
        gate.touch()
        answered = await server.answer()
        assert await server.exit_code() == exit_code
    assert refused["id"] == 2
    assert "stopping" in refused["error"]["message"]
    assert answered["id"] == 1
    assert answered["result"]["content"][0]["text"] == "released"
    assert not any("Traceback" in line for line in server.stderr)


async def test_a_second_signal_ends_the_grace_and_the_unfinished_call_gets_an_error(tmp_path: Path) -> None:
    gate = tmp_path / "gate"
    async with spawned("tests.servers.surface.slow_server") as server:
        await handshake(server)
        await server.send(call(1, gate))
        await started(gate)
        server.process.send_signal(signal.SIGTERM)
        await server.stderr_line("Stopping: waiting")
        server.process.send_signal(signal.SIGTERM)
        answered = await server.answer()
        assert await server.exit_code() == 143
    assert answered["id"] == 1
    assert answered["error"]["message"].startswith("The server stopped before it finished this request.")
    assert not any("Traceback" in line for line in server.stderr)


async def test_closing_stdin_still_answers_the_call_in_flight(tmp_path: Path) -> None:
    gate = tmp_path / "gate"
    async with spawned("tests.servers.surface.slow_server") as server:
        await handshake(server)
        await server.send(call(1, gate))
        await started(gate)
        assert server.process.stdin is not None
        server.process.stdin.close()
        await server.stderr_line("Stopping: waiting")
        gate.touch()
        answered = await server.answer()
        assert await server.exit_code() == 0
    assert answered["result"]["content"][0]["text"] == "released"


# A line arrives on stdin in the instant the event loop ends: the loop never runs again, and whatever
# the reading thread handed it is dropped. This holds the loop still at that instant, with no timing:
# the loop is never run, and closes once the handover is scheduled.
LINE_HANDED_OVER_AS_THE_LOOP_ENDS = """
import asyncio, gc, os, threading
import anyio, anyio.lowlevel
from servers.surface.stdio import LINES_AHEAD, _read_lines

class Loop(asyncio.SelectorEventLoop):
    handed_over = threading.Event()
    def call_soon_threadsafe(self, *arguments, **options):
        handle = super().call_soon_threadsafe(*arguments, **options)
        self.handed_over.set()
        return handle

async def current_token():
    return anyio.lowlevel.current_token()

loop = Loop()
token = loop.run_until_complete(current_token())
lines_in, lines = anyio.create_memory_object_stream[bytes](LINES_AHEAD)
reading, writing = os.pipe()
os.write(writing, b"a line\\n")
wire = os.fdopen(reading, "rb")
room = threading.Semaphore(LINES_AHEAD)
threading.Thread(target=_read_lines, args=(wire, lines_in, room, token), daemon=True).start()
assert Loop.handed_over.wait(30)
loop.close()
gc.collect()
"""


async def test_a_line_read_just_as_the_server_stops_leaves_nothing_on_stderr() -> None:
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-c", LINE_HANDED_OVER_AS_THE_LOOP_ENDS,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    async with asyncio.timeout(GUARD_SECONDS):
        _, stderr = await process.communicate()
    assert stderr.decode() == ""  # no "coroutine ... was never awaited"
    assert process.returncode == 0


# --- HTTP -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(("number", "exit_code"), SIGNALS)
async def test_an_idle_http_server_stops_quietly_on_a_signal(number: int, exit_code: int) -> None:
    port = free_port()
    async with spawned("servers.basics", "--transport", "http", "--port", str(port)) as server:
        line = await server.stderr_line("serving MCP over HTTP")
        async with Client(f"http://127.0.0.1:{port}/mcp") as client:  # a client that came and went
            await client.list_tools()
        server.process.send_signal(number)
        assert await server.exit_code() == exit_code
    assert f"http://127.0.0.1:{port}/mcp" in line
    assert not any("Traceback" in line or "ERROR" in line for line in server.stderr)


@pytest.mark.parametrize(("number", "exit_code"), SIGNALS)
async def test_a_call_in_flight_over_http_is_answered_before_the_server_stops(
    tmp_path: Path, number: int, exit_code: int
) -> None:
    gate = tmp_path / "gate"
    port = free_port()
    arguments = ("--transport", "http", "--port", str(port))
    async with (
        spawned("tests.servers.surface.slow_server", *arguments) as server,
        asyncio.timeout(GUARD_SECONDS),
    ):
        await server.stderr_line("serving MCP over HTTP")
        # The client stays connected with its event stream open, as a host app's does.
        async with Client(f"http://127.0.0.1:{port}/mcp") as client:
            # Listed first, as a host does: the SDK client checks a result against the listed schema,
            # and would otherwise list the tools once the server has begun to stop.
            await client.list_tools()
            pending = asyncio.create_task(client.call_tool("wait_for_gate", {"gate": str(gate)}))
            await started(gate)
            server.process.send_signal(number)
            await server.stderr_line("Stopping: waiting")
            gate.touch()
            result = await pending
        assert await server.exit_code() == exit_code
    assert not result.is_error
    assert result.structured_content == {"result": "released"}
    assert not any("Traceback" in line or "ERROR" in line for line in server.stderr)
