"""A server with one tool that waits for a file, for tests of what a stop does to a call in flight.

`python -m tests.servers.surface.slow_server [--transport http --port N]`, from the repository root.
The tool touches `<gate>.started` when it begins and answers once the file `<gate>` exists, so a test
decides when the call ends instead of guessing how long it takes.
"""

from __future__ import annotations

from pathlib import Path

import anyio
from mcp.server.mcpserver import MCPServer

from servers.surface import serve

server = MCPServer("slow", version="1.0")


@server.tool()
async def wait_for_gate(gate: str) -> str:
    """Touch `<gate>.started`, then answer "released" once the file `gate` exists."""
    Path(f"{gate}.started").touch()
    while not Path(gate).exists():
        await anyio.sleep(0.01)
    return "released"


if __name__ == "__main__":
    serve(server)
