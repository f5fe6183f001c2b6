"""The host's side of MCP: one SDK client per server, their tools in one list, and calls that always end in a result.

Whatever happens to a call (an unknown tool, arguments that are not JSON, a protocol error, a server that
hangs or dies) the model gets an `is_error` result it can read and act on; the loop never crashes on it.
"""

from __future__ import annotations

import logging
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import AsyncExitStack, asynccontextmanager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

import anyio
from mcp import Client, StdioServerParameters, stdio_client
from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS, CallToolResult, TextContent, Tool

from instruments.clients import first_cause, last_error_line, list_all_tools
from instruments.host.formats import Wire, arguments_for_server
from instruments.host.transcript import ToolCall, ToolResult, ToolResults

logger = logging.getLogger(__name__)

# A host must not wait forever on a server; a forecast over a slow network takes a few seconds.
CALL_TIMEOUT_SECONDS = 30.0
NAME_PREVIEW_CHARS = 40

# A server to start over stdio, or (in tests) a server object to reach in memory.
ServerSpec = StdioServerParameters | MCPServer[Any]


class HostError(Exception):
    """A problem for the person running the host (a server that will not start, clashing tools)."""


@dataclass(frozen=True)
class ConnectedServer:
    name: str
    client: Client
    tools: tuple[Tool, ...]


class Toolbox:
    """The tools of every connected server, offered to the model as one list."""

    def __init__(self, servers: Sequence[ConnectedServer]) -> None:
        self._servers: dict[str, ConnectedServer] = {}
        self.tools: list[Tool] = []
        for server in servers:
            for tool in server.tools:
                if tool.name in self._servers:
                    other = self._servers[tool.name].name
                    raise HostError(
                        f"The {other} and {server.name} servers both offer a tool named {tool.name}, "
                        "and a model could not tell them apart; start only one of them."
                    )
                self._servers[tool.name] = server
                self.tools.append(tool)

    async def run_all(self, calls: Sequence[ToolCall], wire: Wire) -> ToolResults:
        """Run every call of one reply concurrently; results come back in the order of the calls."""
        results: list[ToolResult | None] = [None] * len(calls)
        started = time.perf_counter()

        async def run_one(index: int, call: ToolCall) -> None:
            results[index] = await self.run(call, wire)

        async with anyio.create_task_group() as group:
            for index, call in enumerate(calls):
                group.start_soon(run_one, index, call)
        finished = tuple(result for result in results if result is not None)
        return ToolResults(finished, time.perf_counter() - started)

    async def run(self, call: ToolCall, wire: Wire) -> ToolResult:
        started = time.perf_counter()
        result, answered_by = await self._answer(call, wire)
        return ToolResult(call, result, answered_by, time.perf_counter() - started)

    async def _answer(self, call: ToolCall, wire: Wire) -> tuple[CallToolResult, str]:
        """The result for `call`, and who wrote it: the tool's server, or the host when it could not ask one."""
        server = self._servers.get(call.name)
        if server is None:
            names = ", ".join(tool.name for tool in self.tools)
            return refusal(
                f"There is no tool named {call.name[:NAME_PREVIEW_CHARS]!r}. "
                f"The tools are: {names}. Call one of them by its exact name."
            ), "host"
        arguments = call.parsed_arguments()
        if arguments is None:
            return refusal(
                f"The arguments for {call.name} are not a JSON object. "
                "Send them as one object whose keys are the argument names in the tool's schema."
            ), "host"
        tool = next(tool for tool in server.tools if tool.name == call.name)
        try:
            with anyio.fail_after(CALL_TIMEOUT_SECONDS):
                result = await server.client.call_tool(call.name, arguments_for_server(wire, tool, arguments))
            return result, server.name
        except MCPError as error:
            if error.code == INVALID_PARAMS:
                return refusal(
                    f"The {server.name} server refused the call to {call.name}: {error.message[:200]} "
                    "Correct the arguments against the tool's schema and call again."
                ), "host"
            logger.warning("%s failed with protocol error %s: %s", call.name, error.code, error.message)
            return refusal(f"The {server.name} server could not run {call.name}; answer without it."), "host"
        except TimeoutError:
            return refusal(
                f"The {server.name} server did not answer {call.name} within {CALL_TIMEOUT_SECONDS:g} seconds. "
                "Try once more with a smaller request, or answer without it."
            ), "host"
        except Exception:  # a dead or misbehaving server must cost one call, not the whole conversation
            logger.exception("calling %s on the %s server failed", call.name, server.name)
            return refusal(
                f"The {server.name} server stopped answering while running {call.name}; answer without it."
            ), "host"


def refusal(text: str) -> CallToolResult:
    """An error result written by the host itself, in the same shape a server's would have."""
    return CallToolResult(content=[TextContent(type="text", text=text)], is_error=True)


@asynccontextmanager
async def connect(specs: Sequence[ServerSpec], errlog: TextIO = sys.stderr) -> AsyncIterator[Toolbox]:
    """Start (or reach) every server, list its tools, and close them all on the way out.

    A stdio server's stderr (its log) goes to `errlog`, so it does not interleave with the transcript.
    """
    try:
        async with AsyncExitStack() as stack:
            servers = []
            for spec in specs:
                transport = (
                    stdio_client(spec, errlog=errlog) if isinstance(spec, StdioServerParameters) else spec
                )
                try:
                    client = await stack.enter_async_context(Client(transport))
                    tools = await list_all_tools(client)
                except Exception as error:
                    raise HostError(
                        f"Could not connect to the server {describe(spec)}: {reason(error)}.{quoted(errlog)}"
                    ) from error
                name = client.server_info.name if client.server_info else describe(spec)
                servers.append(ConnectedServer(name, client, tuple(tools)))
            yield Toolbox(servers)
    except BaseExceptionGroup as group:
        # The clients' task groups wrap whatever ended the block; one failure is easier to read unwrapped.
        raise first_cause(group) from None


def reason(error: BaseException) -> str:
    """A person-readable cause from a failed start, which often arrives wrapped in exception groups."""
    return str(first_cause(error)) or "it exited before answering"


def describe(spec: ServerSpec) -> str:
    if isinstance(spec, StdioServerParameters):
        return " ".join([spec.command, *spec.args])
    return spec.name


def quoted(errlog: TextIO) -> str:
    """The servers' last line of error output, as a sentence to end a start-up error with."""
    if not (errlog.readable() and errlog.seekable()):
        return ""  # a terminal, where the person has just seen it
    line = last_error_line(errlog)
    kept = f" The servers' whole log is in {errlog.name}." if isinstance(errlog.name, str) else ""
    return (f" Its last error output: {line.rstrip('.')}." if line else "") + kept


@contextmanager
def server_log(path: Path | None = None) -> Iterator[TextIO]:
    """Where the servers' stderr goes: `path` when one was asked for, else a file deleted on closing.

    Either way it can be read back, so a server that fails to start is quoted in the error.
    """
    with (
        open(path, "w+", encoding="utf-8", errors="replace")
        if path
        else tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace")
    ) as log:
        yield log
