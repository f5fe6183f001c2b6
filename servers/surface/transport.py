"""How a server is reached, and how it stops.

Every server's `python -m servers.<name>` goes through `parse_arguments`, then `run_stdio` (a host app
on this machine talks over stdin and stdout: servers/surface/stdio.py) or `run_http` (Streamable HTTP
at http://HOST:PORT/mcp: servers/surface/http.py).

Stopping works the same way for both, and loses nothing: on Ctrl-C (SIGINT), SIGTERM or, over stdio,
stdin closing, the server takes no new requests, lets those already running finish for up to
`GRACE_SECONDS`, answers any still unfinished with an error (stdio) or closes their connection
(HTTP), and exits quietly with 130, 143 or 0. A second Ctrl-C or SIGTERM ends the grace at once.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from collections.abc import Awaitable, Callable, Hashable, Sequence
from typing import Any, Generic, TypeVar

import anyio
import anyio.abc
from mcp.server.mcpserver import MCPServer

TOKEN_ENV = "MCP_BEARER_TOKEN"
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000
# Long enough for a weather call's 6 s upstream deadline; short enough to end before `docker stop`
# kills at 10 s.
GRACE_SECONDS = 8.0
KeyT = TypeVar("KeyT", bound=Hashable)
STOPPED_BY = {signal.SIGINT: 130, signal.SIGTERM: 143}  # 128 + the signal, as a shell reports it


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
    """Serve over stdin and stdout until stdin closes, Ctrl-C or SIGTERM; exit with 0, 130 or 143."""
    from servers.surface.stdio import serve_stdio

    async def serve(stop: Stop) -> None:
        announce(server, "stdio: waiting for a client on stdin")
        await serve_stdio(server, stop)

    _run_until_stopped(serve)


def run_http(server: MCPServer[Any], *, host: str, port: int, stateless: bool) -> None:
    """Serve over Streamable HTTP until Ctrl-C or SIGTERM; exit with 130 or 143."""
    # Imported here, so a stdio server never loads the web server.
    from servers.surface.http import bearer_token, serve_http

    token = bearer_token(os.environ.get(TOKEN_ENV))
    _run_until_stopped(
        lambda stop: serve_http(server, stop, host=host, port=port, stateless=stateless, token=token)
    )


def announce(server: MCPServer[Any], how: str) -> None:
    """One line on stderr that tells a person who started the server by hand that it is alive."""
    version = getattr(server, "version", "") or "(no version)"
    print(f"{server.name} {version} serving MCP over {how} (Ctrl-C to stop)", file=sys.stderr, flush=True)


def _run_until_stopped(serve: Callable[[Stop], Awaitable[None]]) -> None:
    async def main() -> int:
        stop = Stop()
        async with anyio.create_task_group() as tasks:
            await tasks.start(stop.on_signals)
            await serve(stop)
            tasks.cancel_scope.cancel()
        return stop.exit_code

    try:
        code = anyio.run(main)
    except KeyboardInterrupt:  # Ctrl-C before the signal handler is in place, or where it cannot be
        code = STOPPED_BY[signal.SIGINT]
    sys.exit(code)


class Stop:
    """Why and when the server stops; the transports wait on `requested` and call `drain`."""

    def __init__(self) -> None:
        self.requested = anyio.Event()
        self.exit_code = 0
        self._grace = anyio.CancelScope()

    def request(self, exit_code: int) -> None:
        """Stop (again): the first call starts the grace period, a later one ends it."""
        if self.requested.is_set():
            self._grace.cancel()
        self.exit_code = exit_code or self.exit_code
        self.requested.set()

    async def on_signals(
        self, *, task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED
    ) -> None:
        if sys.platform == "win32":  # no signal receiver there: Ctrl-C arrives as KeyboardInterrupt
            task_status.started()
            await anyio.sleep_forever()
        with anyio.open_signal_receiver(*STOPPED_BY) as signals:
            task_status.started()
            async for number in signals:
                self.request(STOPPED_BY[signal.Signals(number)])

    async def drain(self, in_flight: InFlight[Any]) -> None:
        """Return once nothing is in flight, the grace period is over, or a second signal came."""
        if in_flight.keys:
            count = len(in_flight.keys)
            print(
                f"Stopping: waiting up to {GRACE_SECONDS:g} s for {count} request{'s' * (count > 1)} "
                "in progress (press Ctrl-C again to stop now).",
                file=sys.stderr,
                flush=True,
            )
        with self._grace:
            self._grace.deadline = anyio.current_time() + GRACE_SECONDS
            await in_flight.idle()


class InFlight(Generic[KeyT]):
    """The requests being served right now, so a stop can wait until they are done."""

    def __init__(self) -> None:
        self.keys: set[KeyT] = set()
        self._idle = anyio.Event()
        self._idle.set()

    def add(self, key: KeyT) -> None:
        if self._idle.is_set():
            self._idle = anyio.Event()
        self.keys.add(key)

    def discard(self, key: KeyT) -> None:
        self.keys.discard(key)
        if not self.keys:
            self._idle.set()

    async def idle(self) -> None:
        await self._idle.wait()
