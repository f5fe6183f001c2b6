"""Helpers the suite's own tests share; a server's contract test uses servers/surface/testing.py instead."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from servers.surface.testing import error_text, stdio_server

__all__ = [
    "INITIALIZED",
    "error_text",
    "free_port",
    "initialize",
    "run_audit",
    "serving_over_http",
    "stdio_server",
]

ROOT = Path(__file__).resolve().parent.parent
PATIENCE_SECONDS = 30


def initialize(request_id: int | str) -> dict[str, object]:
    """The handshake's first request, for tests that speak raw JSON-RPC to a server."""
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "tests", "version": "1"},
        },
    }


INITIALIZED: dict[str, object] = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def run_audit(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """`python -m instruments.audit ARGS` from the repository root, with `env` added to ours."""
    return subprocess.run(
        [sys.executable, "-m", "instruments.audit", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **(env or {})},
    )


def free_port() -> int:
    """A port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextmanager
def serving_over_http(module: str, env: dict[str, str] | None = None) -> Iterator[str]:
    """`python -m MODULE --transport http` on a free port; yields its /mcp URL once it accepts connections."""
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", module, "--transport", "http", "--port", str(port)],
        cwd=ROOT,
        stderr=subprocess.DEVNULL,
        env={**os.environ, **(env or {})},
    )
    try:
        deadline = time.monotonic() + PATIENCE_SECONDS  # a hang guard for a busy machine, not a speed bound
        while True:
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    break
            assert server.poll() is None, f"{module} exited before it listened"
            assert time.monotonic() < deadline, f"{module} never listened on port {port}"
            time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        server.terminate()
        server.wait(timeout=10)


def ctrl_c_delivered() -> None:
    """For Popen(preexec_fn=...): Ctrl-C reaches the child as a terminal delivers it. A test run as a
    background job starts with SIGINT ignored, and so would every process it starts."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
