"""Opening a session with an MCP server, a command over stdio or a Streamable HTTP URL, and reading its tools.

A server that cannot be started, reached or listed raises `Unreachable`, whose message is one
sentence naming the cause and what to check; the command line turns it into exit code 2.
"""

from __future__ import annotations

import shlex
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass
from typing import IO

from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp_types import CONNECTION_CLOSED, REQUEST_TIMEOUT, Tool

from instruments.clients import first_cause, list_all_tools


class Unreachable(Exception):
    """The server could not be started, reached or listed; str() says why and what to check."""


@dataclass(frozen=True)
class Target:
    """A server to audit: a command to start (stdio), or the URL of a running one."""

    command: tuple[str, ...] = ()
    url: str | None = None

    def __str__(self) -> str:
        return self.url or shlex.join(self.command)


@asynccontextmanager
async def connect(target: Target, timeout: float) -> AsyncIterator[Client]:
    # The server's stderr goes to a file: kept out of the report, and quoted if start-up fails.
    with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as errlog:
        if target.url:
            transport = streamable_http_client(target.url)
        else:
            command, *args = target.command
            transport = stdio_client(StdioServerParameters(command=command, args=args), errlog=errlog)
        client = Client(transport, read_timeout_seconds=timeout)
        try:
            await client.__aenter__()
        except Exception as exc:  # every transport fails differently; each becomes one readable sentence
            raise Unreachable(_reason(target, exc, timeout, _last_line(errlog))) from None
        try:
            yield client
        finally:
            # A server that died under the probe may fail its own shutdown; what it did is recorded.
            with suppress(Exception):
                await client.__aexit__(None, None, None)


async def list_tools(client: Client, where: str) -> list[Tool]:
    """Every tool, following pagination; `where` names the server in an error."""
    try:
        return await list_all_tools(client)
    except MCPError as exc:
        raise Unreachable(
            f"{where} answered tools/list with an error ({exc.message}). Check that it is an MCP server "
            "that offers tools."
        ) from None


def _last_line(errlog: IO[str]) -> str:
    """The server's last line of error output: for a crash, the exception's message without the traceback."""
    errlog.seek(0)
    lines = [line.strip() for line in errlog.read().splitlines() if line.strip()]
    return lines[-1][:300] if lines else ""


def _reason(target: Target, exc: BaseException, timeout: float, stderr: str) -> str:
    cause = first_cause(exc)
    if isinstance(cause, FileNotFoundError):
        why = "there is no such command"
    elif isinstance(cause, PermissionError):
        why = "the command is not executable"
    elif isinstance(cause, MCPError) and cause.code == CONNECTION_CLOSED:
        why = "it closed the connection before completing the MCP handshake"
    elif isinstance(cause, TimeoutError) or (isinstance(cause, MCPError) and cause.code == REQUEST_TIMEOUT):
        why = f"it did not answer the MCP handshake within {timeout:g} s"
    else:
        why = str(cause) or type(cause).__name__
    if target.url:
        return (
            f"Could not reach {target.url}: {why}. Check that the server is running and that the URL "
            "includes its MCP path (often /mcp)."
        )
    output = f" Its last error output: {stderr}." if stderr else ""
    return (
        f"Could not start {target}: {why}.{output} Check that the command runs on its own "
        "and speaks MCP over stdio (it runs as given, without a shell)."
    )
