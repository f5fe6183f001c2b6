"""A synchronous call that blocks runs off the event loop: over real HTTP, another session is served
while it is in flight, and the blocked call is answered once it ends."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import anyio
from mcp import Client

from tests.support import free_port

GUARD_SECONDS = 60  # a hang guard for a busy machine; nothing here is timed


async def test_another_session_is_served_while_a_blocking_call_is_in_flight(tmp_path: Path) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tests.servers.surface.blocking_server", "--transport", "http", "--port", str(port),
        cwd=Path(__file__).resolve().parents[3],
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    assert process.stderr is not None
    gate = tmp_path / "gate"
    try:
        with anyio.fail_after(GUARD_SECONDS):
            while "Uvicorn running on" not in (await process.stderr.readline()).decode():
                pass
            async with Client(url) as blocked, Client(url) as other, anyio.create_task_group() as tasks:
                answers: list[str] = []

                async def call_and_keep() -> None:
                    result = await blocked.call_tool("gate_wait", {"gate": str(gate)})
                    answers.append("".join(block.text for block in result.content if block.type == "text"))

                tasks.start_soon(call_and_keep)
                while not Path(f"{gate}.started").exists():
                    await anyio.sleep(0.01)
                served = await other.list_tools()  # answered while the worker thread is still blocked
                assert [tool.name for tool in served.tools] == ["gate_wait"]
                assert answers == []
                gate.touch()
            assert answers == ["released"]
    finally:
        process.terminate()
        await process.wait()
