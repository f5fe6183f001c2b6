"""Opening a session with an MCP server, a command over stdio or a Streamable HTTP URL, and reading its tools.

A server that cannot be started, reached or listed raises `Unreachable`, whose message is one
sentence naming the cause and what to check; the command line turns it into exit code 2.

What a started server gets: the caller's environment, less the variables whose names mark them as
credentials (TOKEN, SECRET, PASSWORD, API_KEY, ...), plus whatever `--env` names. A credential
reaches a server only when the caller names it, and the report lists what was withheld, so
nothing is dropped silently. A started server's TMPDIR (and TMP, TEMP) is a fresh folder of the
audit's, removed once the server has stopped: what it left there is reported, and does not pile up
in the caller's. So is its HOME (unless `--env HOME` gives it the caller's): a tool that says it only
reads may still write settings, logs or telemetry there, and none of that reaches the caller's home.
The XDG folders follow HOME; npm's and uv's caches and npm's settings stay the caller's, so `npx` and
`uvx` start a server as fast, and as offline, as they would for the caller (npm's logs go to the
fresh home). `--timeout` bounds the whole start-up (spawn, handshake and any retry
of it), not each step. A stdio server that ends the connection at `server/discover`, the first
request of the current protocol (servers on early 1.x SDKs exit on a method they do not know), is
started again and read over the initialize handshake, which clients of the earlier protocol use;
the report says so. A process the server started that is still running once the server has
stopped (a daemon it spawned, found by the private TMPDIR in its environment) is stopped too,
and reported. Lines a server prints on stdout that are not JSON-RPC are counted and quoted
as a finding instead of surfacing as the SDK's logged traceback.
"""

from __future__ import annotations

import logging
import math
import os
import re
import shlex
import sys
import tempfile
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field
from typing import IO, Any, Self

import anyio
import httpx2
import psutil
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError
from mcp.shared.message import SessionMessage
from mcp_types import CONNECTION_CLOSED, REQUEST_TIMEOUT, Tool
from pydantic import ValidationError

from instruments.clients import MAX_PAGES, first_cause, list_all_tools

CREDENTIAL_NAME = re.compile(
    r"TOKEN|SECRET|PASSWORD|PASSWD|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|CREDENTIAL|AUTH|COOKIE",
    re.IGNORECASE,
)
STRAY_QUOTE_CHARS = 120


class Unreachable(Exception):
    """The server could not be started, reached or listed; str() says why and what to check."""


@dataclass(frozen=True)
class Target:
    """A server to audit: a command to start (stdio), or the URL of a running one."""

    command: tuple[str, ...] = ()
    url: str | None = None
    env: Mapping[str, str] = field(default_factory=dict)
    """What the server process gets, in full (see `server_environment`)."""
    headers: Mapping[str, str] = field(default_factory=dict)
    """HTTP headers sent with every request to a URL, e.g. Authorization."""
    cwd: str | None = None
    """The directory a command starts in (the corpus runner's throwaway sandbox); None: the audit's own."""
    fresh_home: bool = True
    """A started server's HOME is a fresh folder of the audit's; False: the one in `env`."""

    def __str__(self) -> str:
        return self.url or shlex.join(self.command)


def interpreter_command(command: list[str]) -> tuple[str, ...]:
    """A leading `python`/`python3` means this interpreter, with this project installed (as `host run` does)."""
    if command and command[0] in ("python", "python3"):
        return (sys.executable, *command[1:])
    return tuple(command)


def server_environment(
    caller: Mapping[str, str], given: Mapping[str, str]
) -> tuple[dict[str, str], list[str]]:
    """The caller's environment without credentials, plus what was given; and the names withheld."""
    withheld = sorted(name for name in caller if CREDENTIAL_NAME.search(name) and name not in given)
    passed = {name: value for name, value in caller.items() if name not in withheld}
    return {**passed, **given}, withheld


XDG_FOLDERS = ("XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME")


def fresh_home_environment(env: Mapping[str, str], home: str) -> dict[str, str]:
    """`env` with HOME at `home` and the XDG folders under it, keeping the launchers' caches where they were."""
    caller = env.get("HOME") or os.path.expanduser("~")
    cache = env.get("XDG_CACHE_HOME") or os.path.join(caller, ".cache")
    data = env.get("XDG_DATA_HOME") or os.path.join(caller, ".local", "share")
    launchers = {
        "npm_config_cache": os.path.join(caller, ".npm"),
        "npm_config_userconfig": os.path.join(caller, ".npmrc"),
        "UV_CACHE_DIR": os.path.join(cache, "uv"),
        "UV_PYTHON_INSTALL_DIR": os.path.join(data, "uv", "python"),
    }
    kept = {name: value for name, value in env.items() if name not in XDG_FOLDERS}
    # npm writes a debug log on every run, the server's own `npm config get` included: into the fresh home.
    return {**launchers, **kept, "HOME": home, "npm_config_logs_dir": os.path.join(home, ".npm", "_logs")}


@dataclass
class Session:
    """An open connection, and what the transport saw besides JSON-RPC."""

    client: Client
    stray_stdout: list[str] = field(default_factory=list)
    scratch_left: list[str] = field(default_factory=list)
    """What a started server left in its temporary folder; known once the session has closed."""
    home: str = ""
    """The fresh home the audit gave it; "" when it has the caller's."""
    home_left: list[str] = field(default_factory=list)
    """The files it wrote in that home; known once the session has closed."""
    handshake_only: bool = False
    """It ended the connection at server/discover and was read over the initialize handshake."""
    left_running: list[str] = field(default_factory=list)
    """Command lines of processes it started that outlived it, which the audit then stopped."""


class _JsonRpcOnly:
    """The stdio read stream with non-JSON-RPC lines taken out and kept, so they become a finding."""

    def __init__(self, inner: Any, stray: list[str]) -> None:
        self.inner = inner
        self.stray = stray

    async def receive(self) -> SessionMessage | Exception:
        while True:
            item = await self.inner.receive()
            if not isinstance(item, Exception):
                return item  # type: ignore[no-any-return]
            self.stray.append(_stray_line(item))

    async def aclose(self) -> None:
        await self.inner.aclose()

    def __aiter__(self) -> Self:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        try:
            return await self.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            raise StopAsyncIteration from None

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


def _stray_line(error: Exception) -> str:
    if isinstance(error, ValidationError) and error.errors():
        found = error.errors()[0].get("input")
        if isinstance(found, str | bytes):
            text = found.decode("utf-8", "replace") if isinstance(found, bytes) else found
            return text.strip()[:STRAY_QUOTE_CHARS]
    return str(error).splitlines()[0][:STRAY_QUOTE_CHARS] if str(error) else type(error).__name__


@asynccontextmanager
async def _stdio(parameters: StdioServerParameters, errlog: IO[str], stray: list[str]) -> AsyncIterator[Any]:
    async with stdio_client(parameters, errlog=errlog) as (read, write):  # type: ignore[arg-type]
        yield _JsonRpcOnly(read, stray), write


@asynccontextmanager
async def connect(target: Target, timeout: float) -> AsyncIterator[Session]:
    # The SDK logs a traceback for each non-JSON stdout line; the audit reports those lines itself.
    logging.getLogger("mcp").setLevel(logging.CRITICAL)
    # The server's stderr goes to a file: kept out of the report, and quoted if start-up fails.
    with (
        tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as errlog,
        tempfile.TemporaryDirectory(prefix="mcp-surface-audit-", ignore_cleanup_errors=True) as scratch,
        tempfile.TemporaryDirectory(prefix="mcp-surface-audit-home-", ignore_cleanup_errors=True) as home,
    ):
        statuses: list[int] = []
        stray: list[str] = []
        session: Session | None = None
        if target.url:
            http = create_mcp_http_client(headers=dict(target.headers))
            http.event_hooks["response"].append(_recorder(statuses))
            transport: Any = streamable_http_client(target.url, http_client=http)
        else:
            command, *args = target.command
            env = {**target.env, "TMPDIR": scratch, "TMP": scratch, "TEMP": scratch}
            if target.fresh_home:
                env = fresh_home_environment(env, home)
            parameters = StdioServerParameters(command=command, args=args, env=env, cwd=target.cwd)
            transport = _stdio(parameters, errlog, stray)
        # The deadline covers the whole start-up, retries included; it is lifted once the session is
        # open. The scope spans the session because the client's task groups are opened inside it.
        started = False
        with anyio.CancelScope(deadline=anyio.current_time() + timeout) as scope:
            # A stdio server that closes at server/discover gets a second start, over initialize.
            for mode in ("auto", "legacy"):
                client = Client(transport, read_timeout_seconds=timeout, mode=mode)
                try:
                    await client.__aenter__()
                    break
                except Exception as exc:  # every transport fails differently; each becomes one sentence
                    if mode == "legacy" or target.url or not _closed(exc):
                        raise Unreachable(
                            _reason(target, exc, timeout, _last_line(errlog), statuses, stray)
                        ) from None
                    stray.clear()  # the same start-up lines again
                    transport = _stdio(parameters, errlog, stray)
            started = True
            scope.deadline = math.inf
            session = Session(
                client, stray, handshake_only=mode == "legacy", home=home if target.fresh_home else ""
            )
            try:
                yield session
            finally:
                # A server that died under the probe may fail its own shutdown; what it did is recorded.
                with suppress(Exception):
                    await client.__aexit__(None, None, None)
                if target.url:
                    await http.aclose()
                else:
                    session.left_running = _stop_left_running(scratch)
                    session.scratch_left = sorted(os.listdir(scratch))
                    session.home_left = files_under(home) if target.fresh_home else []
        if not started:
            raise Unreachable(_reason(target, TimeoutError(), timeout, _last_line(errlog), statuses, stray))


def _stop_left_running(scratch: str) -> list[str]:
    """Stop what still runs with the server's private TMPDIR, which only its descendants have."""
    found: dict[psutil.Process, str] = {}
    for process in psutil.process_iter():
        with suppress(psutil.Error):
            if process.environ().get("TMPDIR") == scratch:
                found[process] = " ".join(process.cmdline())[:200] or f"pid {process.pid}"
    for process in found:
        with suppress(psutil.Error):
            process.terminate()
    _, alive = psutil.wait_procs(list(found), timeout=3)
    for process in alive:
        with suppress(psutil.Error):
            process.kill()
    return list(found.values())


def files_under(folder: str) -> list[str]:
    """Every file below `folder`, as paths relative to it."""
    return sorted(
        os.path.relpath(os.path.join(parent, name), folder)
        for parent, _, names in os.walk(folder)
        for name in names
    )


def _closed(exc: BaseException) -> bool:
    cause = first_cause(exc)
    return isinstance(cause, MCPError) and cause.code == CONNECTION_CLOSED


def _recorder(statuses: list[int]) -> Any:
    async def record(response: httpx2.Response) -> None:
        if response.status_code >= 400:
            statuses.append(response.status_code)

    return record


async def list_tools(client: Client, where: str) -> tuple[list[Tool], dict[str, str]]:
    """Every tool, following pagination, and what is wrong with the definitions that break the spec.

    A definition the SDK refuses (no inputSchema, a schema that is not an object) is read again
    leniently, so it becomes a finding on that tool instead of ending the audit. `where` names the
    server in an error.
    """
    try:
        return await list_all_tools(client), {}
    except MCPError as exc:
        raise Unreachable(
            f"{where} answered tools/list with an error ({exc.message[:200]}). Check that it is an MCP "
            "server that offers tools."
        ) from None
    except ValidationError:
        return await _lenient_tools(client, where)


async def _lenient_tools(client: Client, where: str) -> tuple[list[Tool], dict[str, str]]:
    tools: list[Tool] = []
    problems: dict[str, str] = {}
    cursor: str | None = None
    for _ in range(MAX_PAGES):
        # The raw reply: the session's own send_request validates it against the spec, which is
        # exactly what this reading must not do.
        raw = await client.session._dispatcher.send_raw_request(
            "tools/list", {"cursor": cursor} if cursor else None, {}
        )
        page = raw if isinstance(raw, dict) else {}
        for entry in page.get("tools") or []:
            tool, problem = _repaired(entry)
            if tool is None:
                raise Unreachable(
                    f"{where} listed a tool without a name ({problem}). Fix the server's tool definitions."
                )
            tools.append(tool)
            if problem:
                problems[tool.name] = problem
        cursor = page.get("nextCursor") if isinstance(page.get("nextCursor"), str) else None
        if cursor is None:
            break
    return tools, problems


def _repaired(entry: Any) -> tuple[Tool | None, str]:
    """The tool with an empty object schema standing in for a missing or malformed one, and why."""
    if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
        return None, "an entry that is not a tool object with a string name"
    schema = entry.get("inputSchema")
    if schema is None:
        problem = "the definition has no inputSchema, which MCP requires"
    elif not isinstance(schema, dict) or schema.get("type") != "object":
        problem = 'the inputSchema is not a JSON Schema object with "type": "object"'
    else:
        problem = ""
    fixed = {**entry, "inputSchema": schema if not problem else {"type": "object"}}
    try:
        return Tool.model_validate(fixed), problem
    except ValidationError as exc:
        bad = exc.errors()[0]
        where = ".".join(str(part) for part in bad["loc"])
        keep = {key: fixed[key] for key in ("name", "inputSchema")}
        return Tool.model_validate(keep), problem or f"the field {where} is not valid MCP ({bad['msg']})"


def _last_line(errlog: IO[str]) -> str:
    """The server's last line of error output: for a crash, the exception's message without the traceback."""
    errlog.seek(0)
    lines = [line.strip() for line in errlog.read().splitlines() if line.strip()]
    return lines[-1][:300] if lines else ""


def _reason(
    target: Target, exc: BaseException, timeout: float, stderr: str, statuses: list[int], stray: list[str]
) -> str:
    cause = first_cause(exc)
    if isinstance(cause, FileNotFoundError):
        why = "there is no such command"
    elif isinstance(cause, PermissionError):
        why = "the command is not executable"
    elif isinstance(cause, TimeoutError | anyio.get_cancelled_exc_class()) or (
        isinstance(cause, MCPError) and cause.code == REQUEST_TIMEOUT
    ):
        why = f"it did not complete the MCP handshake within {timeout:g} s (--timeout)"
    elif _closed(exc):
        why = "it closed the connection before completing the MCP handshake"
    else:
        why = str(cause).splitlines()[0][:200] if str(cause) else type(cause).__name__
    if target.url:
        if 401 in statuses or 403 in statuses:
            code = 401 if 401 in statuses else 403
            return (
                f"Could not reach {target.url}: it answered {code} "
                f"{'Unauthorized' if code == 401 else 'Forbidden'}, so it needs credentials. Pass them with "
                "--bearer-token-env VAR or --header 'Authorization: Bearer ...'."
            )
        return (
            f"Could not reach {target.url}: {why}. Check that the server is running and that the URL "
            "includes its MCP path (often /mcp)."
        )
    output = f" Its last error output: {stderr}." if stderr else ""
    printed = f" It printed on stdout, which is reserved for JSON-RPC: {stray[0]!r}." if stray else ""
    home = (
        " It ran with a fresh home folder of the audit's: if it needs settings or downloads kept in yours, "
        "pass --env HOME."
        if target.fresh_home and not isinstance(cause, FileNotFoundError | PermissionError)
        else ""
    )
    return (
        f"Could not start {target}: {why}.{output}{printed}{home} Check that the command runs on its own "
        "and speaks MCP over stdio (it runs as given, without a shell)."
    )
