"""How a server is reached: stdio for a host app on this machine, or Streamable HTTP.

Every server's `python -m servers.<name>` goes through `parse_arguments`, then `run_stdio` or
`run_http`. Over stdio, a line that is not a JSON-RPC message gets a JSON-RPC error back instead of
silence, so a client that sent a malformed request learns why rather than waiting forever, and a
client that writes its requests and closes stdin at once still gets every answer.
HTTP is safe by default: it listens on 127.0.0.1, where the SDK turns on its DNS-rebinding
protection (a foreign Host gets 421, a foreign Origin 403), and with MCP_BEARER_TOKEN set every
request must carry that token or gets 401 before anything else runs.
"""

from __future__ import annotations

import argparse
import hmac
import os
import sys
from collections.abc import Sequence
from typing import Any

import anyio
import uvicorn
from mcp.server.mcpserver import MCPServer
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from mcp_types import (
    INVALID_REQUEST,
    PARSE_ERROR,
    ErrorData,
    JSONRPCError,
    JSONRPCRequest,
    JSONRPCResponse,
    RequestId,
)
from pydantic import ValidationError
from starlette.responses import PlainTextResponse
from starlette.types import ASGIApp, Receive, Scope, Send

TOKEN_ENV = "MCP_BEARER_TOKEN"
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000
# The hosts for which the SDK switches DNS-rebinding protection on by itself.
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")
# How long requests already read may still run once stdin has closed.
DRAIN_SECONDS = 10.0


def parse_arguments(server: MCPServer[Any], argv: Sequence[str] | None = None) -> argparse.Namespace:
    """`--transport stdio|http`, `--host`, `--port`, `--stateless`; `--help` explains each."""
    parser = argparse.ArgumentParser(
        prog=_program_name(),
        description=f"The {server.name} MCP server. {server.instructions or ''}".strip(),
        epilog=f"environment: {TOKEN_ENV}=<secret> makes HTTP requests without "
        '"Authorization: Bearer <secret>" get 401. Without it, only bind addresses you trust.',
    )
    parser.add_argument(
        "--transport",
        choices=["stdio", "http"],
        default="stdio",
        help="stdio (default): a host app starts this process and talks over stdin and stdout. "
        "http: serve Streamable HTTP at http://HOST:PORT/mcp.",
    )
    parser.add_argument(
        "--host",
        help=f"HTTP only: the address to listen on (default {DEFAULT_HOST}, reachable from this machine "
        f"only). Any other address should be paired with {TOKEN_ENV}.",
    )
    parser.add_argument(
        "--port", type=int, help=f"HTTP only: the port to listen on (default {DEFAULT_PORT})."
    )
    parser.add_argument(
        "--stateless",
        action="store_true",
        help="HTTP only: keep no session between requests, so replicas can run behind a load balancer.",
    )
    arguments = parser.parse_args(argv)
    if arguments.transport == "stdio" and (
        arguments.host or arguments.port is not None or arguments.stateless
    ):
        parser.error("--host, --port and --stateless apply only with --transport http")
    arguments.host = arguments.host or DEFAULT_HOST
    arguments.port = DEFAULT_PORT if arguments.port is None else arguments.port
    return arguments


def _program_name() -> str:
    """'python -m servers.convert' when run as a module, else the script's name (e.g. mcp-convert)."""
    spec = getattr(sys.modules.get("__main__"), "__spec__", None)
    if spec is not None and spec.name.endswith(".__main__"):
        return f"python -m {spec.name.removesuffix('.__main__')}"
    return os.path.basename(sys.argv[0])


def run_stdio(server: MCPServer[Any]) -> None:
    """Serve over stdin and stdout until stdin closes; what the SDK's run("stdio") does, plus answers."""
    anyio.run(_serve_stdio, server)


async def _serve_stdio(server: MCPServer[Any]) -> None:
    # The SDK serves stdio through this object too; MCPServer gives it no public name.
    lowlevel = server._lowlevel_server
    async with stdio_server() as (received, replies), anyio.create_task_group() as tasks:
        to_server, messages = anyio.create_memory_object_stream[SessionMessage | Exception]()
        from_server, answers = anyio.create_memory_object_stream[SessionMessage]()
        unanswered: set[RequestId] = set()

        async def answer_malformed_lines() -> None:
            """Pass messages on to the server; answer each line the transport could not read as one."""
            async with to_server:
                async for item in received:
                    if isinstance(item, Exception):
                        await replies.send(SessionMessage(rejection(item)))
                        continue
                    if isinstance(item.message, JSONRPCRequest):
                        unanswered.add(item.message.id)
                    await to_server.send(item)
                # stdin closed. A client that wrote its requests and closed at once still gets every
                # answer: the server stops only once each request was answered (or time ran out).
                with anyio.move_on_after(DRAIN_SECONDS):
                    while unanswered:
                        await anyio.sleep(0.01)

        async def relay_answers() -> None:
            # Ends when the server closes its side; closing stdout's side then lets the process exit.
            async with replies:
                async for message in answers:
                    await replies.send(message)
                    if isinstance(message.message, JSONRPCResponse | JSONRPCError):
                        unanswered.discard(message.message.id)

        tasks.start_soon(answer_malformed_lines)
        tasks.start_soon(relay_answers)
        await lowlevel.run(messages, from_server, lowlevel.create_initialization_options())


def rejection(error: Exception) -> JSONRPCError:
    """The JSON-RPC error for an unreadable line: a parse error, or an invalid request that carries
    the request's id when it has one, so the client can match the answer to what it sent."""
    problems = error.errors() if isinstance(error, ValidationError) else []
    if any(problem["type"] == "json_invalid" for problem in problems):
        parse_error = ErrorData(
            code=PARSE_ERROR, message="Parse error: send one complete JSON object per line."
        )
        return JSONRPCError(jsonrpc="2.0", id=None, error=parse_error)
    # Pydantic reports the whole message as the input of the errors about its missing members.
    sent = next((problem["input"] for problem in problems if isinstance(problem["input"], dict)), {})
    request_id = sent.get("id")
    if isinstance(request_id, bool) or not isinstance(request_id, str | int):
        request_id = None
    invalid = ErrorData(
        code=INVALID_REQUEST,
        message='Invalid request: a JSON-RPC 2.0 message needs "jsonrpc": "2.0" and a "method", '
        'plus an "id" for a request and an object as "params".',
    )
    return JSONRPCError(jsonrpc="2.0", id=request_id, error=invalid)


def http_app(server: MCPServer[Any], *, host: str, stateless: bool, token: str | None) -> ASGIApp:
    """The server's Streamable HTTP app at /mcp, behind the bearer-token check when a token is set."""
    # Passing host (and no transport_security) lets the SDK choose: protection on for loopback hosts.
    app = server.streamable_http_app(stateless_http=stateless, host=host)
    if token:
        app.add_middleware(RequireBearerToken, token=token)
    return app


class RequireBearerToken:
    """ASGI middleware: a request without `Authorization: Bearer <token>` gets 401 and nothing else."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            given = dict(scope["headers"]).get(b"authorization", b"")
            # compare_digest takes as long for a near miss as for a far one, so timing leaks nothing.
            if not hmac.compare_digest(given, self.expected):
                refusal = PlainTextResponse(
                    "Missing or wrong bearer token.", status_code=401, headers={"WWW-Authenticate": "Bearer"}
                )
                await refusal(scope, receive, send)
                return
        await self.app(scope, receive, send)


def run_http(server: MCPServer[Any], *, host: str, port: int, stateless: bool) -> None:
    """Serve over Streamable HTTP until interrupted; warn when the address is open and unguarded."""
    token = os.environ.get(TOKEN_ENV) or None
    if host not in LOOPBACK_HOSTS and token is None:
        print(
            f"WARNING: serving {server.name} on {host}:{port} without a bearer token: anyone who can "
            f"reach this address can call every tool, and DNS-rebinding protection is off for it. "
            f"Set {TOKEN_ENV}, or use --host 127.0.0.1.",
            file=sys.stderr,
            flush=True,
        )
    app = http_app(server, host=host, stateless=stateless, token=token)
    uvicorn.run(app, host=host, port=port, log_level=server.settings.log_level.lower())
