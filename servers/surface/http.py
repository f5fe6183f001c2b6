"""MCP over Streamable HTTP at http://HOST:PORT/mcp, safe by default.

- It listens on 127.0.0.1, where the SDK turns on its DNS-rebinding protection (a foreign Host gets
  421, a foreign Origin 403).
- With MCP_BEARER_TOKEN set, every request must carry `Authorization: Bearer <token>` (the scheme in
  any case, one such header) or gets 401 before anything else runs; a blank token stops the start.
- Nothing a client holds open piles up: a request's headers and body must arrive within
  `READ_SECONDS`, at most `MAX_CONNECTIONS` requests run at once (the next gets 503), and at most
  `MAX_SESSIONS` sessions live at once, each ending after `SESSION_IDLE_SECONDS` without a request.
- It stops as servers/surface/transport.py describes: calls being answered finish within the grace
  period, then open event streams end cleanly.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import socket
import sys
from collections.abc import Callable, Iterator
from typing import Any

import anyio
import h11
import uvicorn
from mcp.server.mcpserver import MCPServer
from starlette.responses import PlainTextResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn.protocols.http.h11_impl import H11Protocol

from servers.surface.transport import TOKEN_ENV, InFlight, Stop, announce

# The hosts for which the SDK switches DNS-rebinding protection on by itself.
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")
READ_SECONDS = 10.0
MAX_CONNECTIONS = 200
# A session costs about 40 kB; the SDK's defaults (10,000 for 30 minutes) let idle clients hold 400 MB.
MAX_SESSIONS = 100
SESSION_IDLE_SECONDS = 10 * 60


async def serve_http(
    server: MCPServer[Any], stop: Stop, *, host: str, port: int, stateless: bool, token: str | None
) -> None:
    """Serve until `stop` is requested, then let the calls being answered finish and return."""
    if host not in LOOPBACK_HOSTS and token is None:
        print(
            f"WARNING: serving {server.name} on {host}:{port} without a bearer token: anyone who can "
            f"reach this address can call every tool, and DNS-rebinding protection is off for it. "
            f"Set {TOKEN_ENV}, or use --host 127.0.0.1.",
            file=sys.stderr,
            flush=True,
        )
    answering = InFlight[object]()
    responses = set[anyio.CancelScope]()
    app = http_app(server, host=host, stateless=stateless, token=token)
    config = http_config(
        StoppableResponses(app, answering, responses),
        host=host,
        port=port,
        log_level=server.settings.log_level.lower(),
    )
    web = WebServer(config, started=lambda: announce(server, f"HTTP at http://{host}:{port}/mcp"))

    async def stop_when_asked() -> None:
        await stop.requested.wait()
        web.should_exit = True  # uvicorn takes no new connection and closes the idle ones
        await stop.drain(answering)
        for response in list(responses):  # event streams, and calls still running after the grace
            response.cancel()

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(stop_when_asked)
        await web.serve()
        tasks.cancel_scope.cancel()


def bearer_token(value: str | None) -> str | None:
    """The token MCP_BEARER_TOKEN holds, None when unset; one no client could send stops the start."""
    if value is None:
        return None
    if value and value.isascii() and value.isprintable() and " " not in value:
        return value
    print(
        f"{TOKEN_ENV} is set but is not a token a client can send (it is blank, or holds spaces or "
        f'control characters). Set it to a secret such as the output of "openssl rand -hex 32", or unset it.',
        file=sys.stderr,
    )
    raise SystemExit(2)


def http_app(server: MCPServer[Any], *, host: str, stateless: bool, token: str | None) -> ASGIApp:
    """The server's Streamable HTTP app at /mcp, behind the bearer-token check when a token is set."""
    # Passing host (and no transport_security) lets the SDK choose: protection on for loopback hosts.
    app = server.streamable_http_app(
        stateless_http=stateless,
        host=host,
        max_sessions=MAX_SESSIONS,
        session_idle_timeout=SESSION_IDLE_SECONDS,
    )
    if token:
        app.add_middleware(RequireBearerToken, token=token)
    return app


def http_config(app: ASGIApp, *, host: str, port: int, log_level: str) -> uvicorn.Config:
    """uvicorn's settings: bounded reads and a cap on requests running at once."""
    return uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level=log_level,
        # uvicorn's own logging config sends access lines to stdout in its own format; with none, its
        # records go through the surface's plain one-line handler on stderr like every other log.
        log_config=None,
        http=H11WithReadDeadline,
        limit_concurrency=MAX_CONNECTIONS,
    )


class RequireBearerToken:
    """ASGI middleware: a request without `Authorization: Bearer <token>` gets 401 and nothing else."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.token = token.encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and not self.authorized(scope["headers"]):
            refusal = PlainTextResponse(
                "Missing or wrong bearer token.", status_code=401, headers={"WWW-Authenticate": "Bearer"}
            )
            await refusal(scope, receive, send)
            return
        await self.app(scope, receive, send)

    def authorized(self, headers: list[tuple[bytes, bytes]]) -> bool:
        given = [value for name, value in headers if name == b"authorization"]
        if len(given) != 1:  # two credentials are one too many to choose from
            return False
        scheme, _, credentials = given[0].partition(b" ")
        # The scheme is case-insensitive (RFC 7235); compare_digest takes as long for a near miss as
        # for a far one, so timing leaks nothing.
        return scheme.lower() == b"bearer" and hmac.compare_digest(credentials.lstrip(b" "), self.token)


class StoppableResponses:
    """ASGI middleware that lets a stop wait for the calls being answered (POST) and then end every
    response still open: an event stream ends as if complete, a request not yet answered gets 503."""

    def __init__(self, app: ASGIApp, answering: InFlight[object], responses: set[anyio.CancelScope]) -> None:
        self.app = app
        self.answering = answering
        self.responses = responses

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = ended = False

        async def watched_send(message: Message) -> None:
            nonlocal started, ended
            started = started or message["type"] == "http.response.start"
            ended = message["type"] == "http.response.body" and not message.get("more_body", False)
            await send(message)

        call = object()
        if scope["method"] == "POST":
            self.answering.add(call)
        with anyio.CancelScope() as response:
            self.responses.add(response)
            try:
                await self.app(scope, receive, watched_send)
            finally:
                self.responses.discard(response)
                self.answering.discard(call)
        if not response.cancelled_caught or ended:
            return
        if started:
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        else:
            stopped = PlainTextResponse(
                "The server stopped before it finished this request. Send it again once it runs again.",
                status_code=503,
            )
            await stopped(scope, receive, send)


class WebServer(uvicorn.Server):
    """uvicorn without its own signal handling (Stop does it, and uvicorn's would make the SDK's event
    streams end before the calls in them are answered), saying one line once it listens."""

    def __init__(self, config: uvicorn.Config, started: Callable[[], None]) -> None:
        super().__init__(config)
        self.on_started = started

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        if self.started:
            self.on_started()


class H11WithReadDeadline(H11Protocol):
    """uvicorn's HTTP/1.1 protocol, plus a deadline: a client that has not sent a request's headers
    and body within READ_SECONDS (of connecting, or of the previous answer) is disconnected, so slow
    or silent sockets cannot pile up. uvicorn itself only times out idle keep-alive connections."""

    _deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm_deadline()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._arm_deadline()

    def connection_lost(self, exc: Exception | None) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
        super().connection_lost(exc)

    def _arm_deadline(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
        self._deadline = self.loop.call_later(READ_SECONDS, self._drop_if_still_reading)

    def _drop_if_still_reading(self) -> None:
        # IDLE: the headers are not complete yet; SEND_BODY: the body is not.
        if self.conn.their_state in (h11.IDLE, h11.SEND_BODY) and not self.transport.is_closing():
            self.transport.close()
