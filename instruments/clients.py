"""What the host and the audit both do as MCP clients: read every tool, and name what went wrong."""

from __future__ import annotations

from mcp import Client
from mcp_types import Tool

MAX_PAGES = 100  # a server whose cursor never ends must not keep a client reading forever


async def list_all_tools(client: Client) -> list[Tool]:
    """Every tool the server offers, following tools/list pagination."""
    tools: list[Tool] = []
    cursor: str | None = None
    for _ in range(MAX_PAGES):
        page = await client.list_tools(cursor=cursor)
        tools.extend(page.tools)
        cursor = page.next_cursor
        if cursor is None:
            break
    return tools


def first_cause(error: BaseException) -> BaseException:
    """The real failure inside the exception groups that anyio's task groups wrap around it."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    return error
