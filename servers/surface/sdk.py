"""Every private SDK name the suite uses lives here, so an SDK upgrade breaks this one file, loudly.

Each entry says why it is needed, the SDK versions it was checked against, and which test fails
first when the SDK changes it.

- `MCPServer._lowlevel_server`: the low-level `Server` behind an MCPServer. The stdio transport
  (servers/surface/stdio.py) drives it over its own streams, because the SDK's own stdio loop
  (`MCPServer.run_stdio_async`) cannot be stopped while it waits on stdin: Ctrl-C is ignored until
  stdin closes. Checked against mcp 2.3.0. Fails first: tests/servers/surface/test_transport_stdio.py
  (every server there starts through it).
"""

from __future__ import annotations

from typing import Any

from mcp.server.lowlevel import Server
from mcp.server.mcpserver import MCPServer


def lowlevel_server(server: MCPServer[Any]) -> Server[Any]:
    """The low-level server that answers `server`'s requests over any pair of message streams."""
    return server._lowlevel_server
