"""Where the surface leans on the SDK beyond its documented API: one place to check on an upgrade.

Checked against mcp 2.3.0 (the version pyproject.toml allows and .venv installs), by reading
mcp/server/mcpserver/server.py and mcp/server/mcpserver/utilities/logging.py.

Public behaviour the surface relies on (no private name involved):

- `MCPServer` answers tools/list through its public `list_tools()` and tools/call through its public
  `call_tool(name, arguments, context)`. `ToolServer` overrides both and keeps its own tools, so it
  needs neither the SDK's tool manager (`_tool_manager._tools`, used before) nor its function
  introspection (`func_metadata`, `find_context_parameter`): a strict tool publishes the schema it
  validates against, which the SDK's `Tool.from_function` cannot build. The SDK offers
  `MCPServer(tools=[...])`, but only at construction, before any `@server.tool` decorator has run.
  Fails first when this changes: tests/servers/surface/test_surface.py::test_lists_and_calls_through_the_public_methods.
  One consequence: the SDK's check of `Mcp-Param-*` HTTP headers looks tools up in its own manager,
  finds none of ours and skips the check; our tools declare no such headers, so nothing is lost.
- `MCPServer.__init__` calls `logging.basicConfig` with rich's handler when rich is installed, which
  wraps lines at 80 columns. `serve()` replaces the root handlers with a plain one-line handler
  (`logging.basicConfig(force=True)`, public).
  Fails first when this changes: tests/servers/surface/test_surface_logging.py::test_served_logs_are_plain_single_lines.

Private names still used: none by the tool surface. The transport's use of the low-level server
follows below.
"""

from __future__ import annotations

SDK_VERSIONS_CHECKED = ("2.3.0",)
