"""Where the surface leans on the SDK beyond plain documented calls: the one place to check on an upgrade.

Checked against mcp 2.3.0 (what pyproject.toml allows and .venv installs), by reading
mcp/server/mcpserver/server.py, tools/tool_manager.py and utilities/logging.py. Any other installed
version fails tests/servers/surface/test_surface.py::test_the_installed_sdk_is_one_sdk_py_was_checked_against
until someone re-reads what follows and adds it to SDK_VERSIONS_CHECKED.

Public behaviour the tool surface relies on (no private name involved):

- MCPServer answers tools/list through its public `list_tools()` and tools/call through its public
  `call_tool(name, arguments, context)`. ToolServer overrides both and keeps its own tools, so it
  needs neither the SDK's tool manager (`_tool_manager._tools`, written to before) nor its function
  introspection (`func_metadata`, `find_context_parameter`, replaced by a look at the type hints
  for `Context`): a strict tool publishes exactly the schema it validates against, which the SDK's
  `Tool.from_function` does not build. `MCPServer(tools=[...])` is public too, but takes tools only
  at construction, before any `@server.tool` decorator has run.
  Fails first: tests/servers/surface/test_surface.py::test_lists_and_calls_through_the_public_methods.
  One consequence: the SDK checks `Mcp-Param-*` HTTP headers against tools found in its own manager;
  it finds none of ours and skips the check. Our tools declare no such headers, so nothing is lost.
- MCPServer's constructor calls `logging.basicConfig` with rich's handler when rich is installed,
  which wraps lines at 80 columns. `serve()` replaces the root handlers with one plain line-per-record
  handler (`logging.basicConfig(force=True)`, public).
  Fails first: tests/servers/surface/test_surface_logging.py::test_served_logs_are_plain_single_lines.
- `MCPServer(version=...)` is what initialize reports as serverInfo.version.
  Fails first: tests/servers/surface/test_surface.py::test_server_info_carries_the_installed_version.

Private names (one):

- `MCPServer._lowlevel_server`: the low-level `Server` behind an MCPServer. The stdio transport
  (servers/surface/stdio.py) drives it over its own streams, because the SDK's own stdio loop
  (`MCPServer.run_stdio_async`) cannot be stopped while it waits on stdin: Ctrl-C is ignored until
  stdin closes. The public alternative, building on the low-level `Server` alone (as mcp-server-time
  does), would mean giving up MCPServer's request handling that ToolServer builds on.
  Fails first: tests/servers/surface/test_transport_stdio.py (every server there starts through it).
"""

from __future__ import annotations

from typing import Any

from mcp.server.lowlevel import Server
from mcp.server.mcpserver import MCPServer

SDK_VERSIONS_CHECKED = ("2.3.0",)


def lowlevel_server(server: MCPServer[Any]) -> Server[Any]:
    """The low-level server that answers `server`'s requests over any pair of message streams."""
    return server._lowlevel_server
