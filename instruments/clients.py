"""What the host and the audit both do as MCP clients: read every tool, and name what went wrong."""

from __future__ import annotations

import os
from typing import IO

from mcp import Client
from mcp_types import Tool

from instruments.console import printable

MAX_PAGES = 100  # a server whose cursor never ends must not keep a client reading forever
ERROR_TAIL_CHARS = 8_192


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


def last_error_line(errlog: IO[str]) -> str:
    """The last line a server wrote to `errlog` (opened for reading too), shown safely: for a crash,
    the exception's message without its traceback; "" when it wrote nothing."""
    errlog.flush()
    end = errlog.seek(0, os.SEEK_END)
    errlog.seek(max(0, end - ERROR_TAIL_CHARS))  # a server that logged megabytes is read from its tail only
    lines = [line.strip() for line in errlog.read().splitlines() if line.strip()]
    return printable(lines[-1][:300]) if lines else ""
