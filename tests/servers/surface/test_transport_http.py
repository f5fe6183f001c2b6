"""Streamable HTTP, safely: real servers on loopback, checked with an HTTP client and the SDK's client.

Most tests run uvicorn in process on a socket bound to 127.0.0.1:0; the command-line tests spawn the
real `python -m servers.<name> --transport http`. Nothing here sends traffic beyond 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import os
import socket
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from urllib.parse import urlsplit

import httpx
import httpx2
import pytest
import uvicorn
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from starlette.types import ASGIApp

from servers.basics.server import mcp as basics
from servers.surface.http import http_app, http_config
from servers.surface.transport import TOKEN_ENV, parse_arguments
from tests.support import free_port, initialize

TOKEN = "s3cret-token-for-tests"
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
INITIALIZE = initialize(1)
ADD = {
    "jsonrpc": "2.0",
    "id": 2,
    "method": "tools/call",
    "params": {"name": "math_add_numbers", "arguments": {"numbers": [0.1, 0.2]}},
}


@asynccontextmanager
async def serving(app: ASGIApp) -> AsyncIterator[str]:
    """Run `app` under uvicorn on a free loopback port; yield its /mcp URL."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
        server = uvicorn.Server(http_config(app, host="127.0.0.1", port=port, log_level="warning"))
        task = asyncio.create_task(server.serve(sockets=[sock]))
        try:
            async with asyncio.timeout(10):
                while not server.started:
                    await asyncio.sleep(0.01)
            yield f"http://127.0.0.1:{port}/mcp"
        finally:
            server.should_exit = True
            await task


@pytest.fixture
async def url() -> AsyncIterator[str]:
    async with serving(http_app(basics, host="127.0.0.1", stateless=False, token=None)) as address:
        yield address


@pytest.fixture
async def guarded_url() -> AsyncIterator[str]:
    async with serving(http_app(basics, host="127.0.0.1", stateless=False, token=TOKEN)) as address:
        yield address


# --- DNS-rebinding protection ------------------------------------------------------------------


async def test_own_host_and_origin_are_served(url: str) -> None:
    port = urlsplit(url).port
    async with httpx.AsyncClient() as http:
        answer = await http.post(
            url,
            json=INITIALIZE,
            headers={**HEADERS, "Host": f"localhost:{port}", "Origin": f"http://localhost:{port}"},
        )
    assert answer.status_code == 200
    assert answer.headers["mcp-session-id"]


async def test_foreign_host_is_refused_with_421(url: str) -> None:
    async with httpx.AsyncClient() as http:
        answer = await http.post(url, json=INITIALIZE, headers={**HEADERS, "Host": "attacker.example:8000"})
    assert answer.status_code == 421
    assert "mcp-session-id" not in answer.headers


async def test_foreign_origin_is_refused_with_403(url: str) -> None:
    async with httpx.AsyncClient() as http:
        answer = await http.post(
            url, json=INITIALIZE, headers={**HEADERS, "Origin": "http://attacker.example"}
        )
    assert answer.status_code == 403
    assert "mcp-session-id" not in answer.headers


# --- bearer token --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "extra",
    [
        {},
        {"Authorization": "Bearer wrong"},
        {"Authorization": TOKEN},
        {"Authorization": f"Bearer {TOKEN}x"},
        # Refused before anything else runs: the Host check would have answered 421.
        {"Host": "attacker.example:8000"},
    ],
)
async def test_requests_without_the_token_get_401_and_nothing_else(
    guarded_url: str, extra: dict[str, str]
) -> None:
    async with httpx.AsyncClient() as http:
        for method in ("POST", "GET", "DELETE"):
            answer = await http.request(method, guarded_url, json=INITIALIZE, headers={**HEADERS, **extra})
            assert answer.status_code == 401
            assert answer.headers["www-authenticate"] == "Bearer"
            assert "mcp-session-id" not in answer.headers
            assert answer.text == "Missing or wrong bearer token."


async def test_a_request_with_the_token_is_served(guarded_url: str) -> None:
    async with httpx.AsyncClient() as http:
        answer = await http.post(
            guarded_url, json=INITIALIZE, headers={**HEADERS, "Authorization": f"Bearer {TOKEN}"}
        )
    assert answer.status_code == 200
    assert answer.headers["mcp-session-id"]


@pytest.mark.parametrize("scheme", ["bearer", "BEARER", "Bearer "])
async def test_the_scheme_is_read_in_any_case(guarded_url: str, scheme: str) -> None:
    async with httpx.AsyncClient() as http:
        answer = await http.post(
            guarded_url, json=INITIALIZE, headers={**HEADERS, "Authorization": f"{scheme} {TOKEN}"}
        )
    assert answer.status_code == 200


async def test_two_authorization_headers_are_refused(guarded_url: str) -> None:
    twice = [*HEADERS.items(), ("Authorization", f"Bearer {TOKEN}"), ("Authorization", "Bearer other")]
    async with httpx.AsyncClient() as http:
        answer = await http.post(guarded_url, json=INITIALIZE, headers=twice)
    assert answer.status_code == 401


async def test_sdk_client_calls_a_tool_with_the_token(guarded_url: str) -> None:
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {TOKEN}"})
    async with http, Client(streamable_http_client(guarded_url, http_client=http)) as client:
        result = await client.call_tool("math_add_numbers", {"numbers": [0.1, 0.2]})
    assert not result.is_error
    assert result.structured_content == {"sum": "0.3", "count": 2}


# --- sessions ------------------------------------------------------------------------------------


async def test_stateful_mode_needs_the_session_it_issued(url: str) -> None:
    async with httpx.AsyncClient() as http:
        answer = await http.post(url, json=ADD, headers=HEADERS)
    assert answer.status_code == 400


async def test_stateless_mode_answers_each_request_on_its_own() -> None:
    app = http_app(basics, host="127.0.0.1", stateless=True, token=None)
    async with serving(app) as url, httpx.AsyncClient() as http:
        initialized = await http.post(url, json=INITIALIZE, headers=HEADERS)
        # A fresh request with no session, as a load balancer might send to another replica.
        called = await http.post(url, json=ADD, headers={**HEADERS, "MCP-Protocol-Version": "2025-11-25"})
    assert initialized.status_code == 200
    assert "mcp-session-id" not in initialized.headers
    assert called.status_code == 200
    assert '"structuredContent":{"sum":"0.3","count":2}' in called.text


async def test_sdk_client_calls_a_tool_over_http(url: str) -> None:
    async with Client(url) as client:
        result = await client.call_tool("math_add_numbers", {"numbers": ["12345678901234567890.25", 1]})
    assert not result.is_error
    assert result.structured_content == {"sum": "12345678901234567891.25", "count": 2}


# --- the command line ----------------------------------------------------------------------------


@asynccontextmanager
async def spawned(*arguments: str, token: str | None = None) -> AsyncIterator[list[str]]:
    """Start `python -m servers.basics ...`; yield its stderr lines up to uvicorn's ready line."""
    env = {key: value for key, value in os.environ.items() if key != TOKEN_ENV}
    if token:
        env[TOKEN_ENV] = token
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "servers.basics", "--transport", "http", *arguments,
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE,
        env=env,
    )  # fmt: skip
    assert process.stderr is not None
    lines: list[str] = []
    try:
        async with asyncio.timeout(20):
            while not lines or "Uvicorn running on" not in lines[-1]:
                line = await process.stderr.readline()
                assert line, f"server exited before it was ready: {lines}"
                lines.append(line.decode())
        yield lines
    finally:
        process.terminate()
        await process.wait()


async def test_command_line_serves_http_on_loopback_without_warning() -> None:
    port = free_port()
    async with spawned("--port", str(port)) as stderr, Client(f"http://127.0.0.1:{port}/mcp") as client:
        result = await client.call_tool("math_add_numbers", {"numbers": [2, 3]})
    assert result.structured_content == {"sum": "5", "count": 2}
    assert f"http://127.0.0.1:{port}" in stderr[-1]
    assert not any("WARNING" in line for line in stderr)


async def test_command_line_reads_the_token_from_the_environment() -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {TOKEN}"})
    async with spawned("--port", str(port), token=TOKEN), httpx.AsyncClient() as anonymous:
        refused = await anonymous.post(url, json=INITIALIZE, headers=HEADERS)
        async with http, Client(streamable_http_client(url, http_client=http)) as client:
            result = await client.call_tool("math_add_numbers", {"numbers": [2, 3]})
    assert refused.status_code == 401
    assert result.structured_content == {"sum": "5", "count": 2}


async def test_binding_every_address_without_a_token_warns_on_stderr() -> None:
    # Binds 0.0.0.0 but sends no traffic at all: reading the start-up output is the whole test.
    async with spawned("--host", "0.0.0.0", "--port", str(free_port())) as stderr:
        warning = next(line for line in stderr if "WARNING" in line)
    assert "0.0.0.0" in warning
    assert "without a bearer token" in warning
    assert TOKEN_ENV in warning


async def test_binding_every_address_with_a_token_does_not_warn() -> None:
    async with spawned("--host", "0.0.0.0", "--port", str(free_port()), token=TOKEN) as stderr:
        assert not any("WARNING" in line for line in stderr)


@pytest.mark.parametrize("token", ["", "   ", "two words", "tab\there"])
async def test_a_token_no_client_can_send_stops_the_start_with_one_line(token: str) -> None:
    env = {**os.environ, TOKEN_ENV: token}
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "servers.basics", "--transport", "http", "--port", str(free_port()),
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE,
        env=env,
    )  # fmt: skip
    async with asyncio.timeout(20):
        _, stderr = await process.communicate()
    assert process.returncode == 2
    lines = stderr.decode().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"{TOKEN_ENV} is set but is not a token a client can send")


async def test_help_names_the_command_and_every_option() -> None:
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "servers.convert", "--help", stdout=asyncio.subprocess.PIPE
    )
    out, _ = await process.communicate()
    text = out.decode()
    assert process.returncode == 0
    assert text.startswith("usage: python -m servers.convert ")
    for option in ("--transport {stdio,http}", "--host", "--port", "--stateless", TOKEN_ENV):
        assert option in text


def test_http_options_without_http_transport_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        parse_arguments(basics, ["--port", "9000"])
    assert exit_.value.code == 2
    assert "apply only with --transport http" in capsys.readouterr().err


def test_http_defaults_to_loopback() -> None:
    arguments = parse_arguments(basics, ["--transport", "http"])
    assert (arguments.host, arguments.port, arguments.stateless) == ("127.0.0.1", 8000, False)


async def test_over_http_every_log_line_goes_to_stderr_and_stdout_stays_empty() -> None:
    port = free_port()
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "servers.basics", "--transport", "http", "--port", str(port),
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    assert process.stdout is not None
    assert process.stderr is not None
    try:
        async with asyncio.timeout(20):
            while "Uvicorn running on" not in (await process.stderr.readline()).decode():
                pass
        async with Client(f"http://127.0.0.1:{port}/mcp") as client:
            await client.call_tool("math_add_numbers", {"numbers": [2, 3]})
    finally:
        process.terminate()
        stdout, stderr = await process.communicate()
    assert stdout == b""
    assert b'"POST /mcp HTTP/1.1" 200' in stderr  # uvicorn's access line, on stderr, in the plain format
