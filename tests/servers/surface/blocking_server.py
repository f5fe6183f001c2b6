"""A ToolServer whose one synchronous tool blocks its worker thread until a file appears.

`python -m tests.servers.surface.blocking_server [--transport http --port N]`, from the repository
root. The tool touches `<gate>.started` when it begins and returns once `<gate>` exists, so a test
holds a call in flight for as long as it likes without guessing at times.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated

from pydantic import Field

from servers.surface import LOCAL_READ_ONLY, ToolServer, serve

server = ToolServer("blocking", namespaces=["gate"])


@server.tool(title="Wait for a gate", annotations=LOCAL_READ_ONLY)
def gate_wait(gate: Annotated[str, Field(description="Path of the file to wait for.")]) -> str:
    """Block until the file `gate` exists, then answer "released". For tests only."""
    Path(f"{gate}.started").touch()
    while not Path(gate).exists():
        time.sleep(0.01)  # blocking on purpose: this is the synchronous work the surface moves off the loop
    return "released"


if __name__ == "__main__":
    serve(server)
