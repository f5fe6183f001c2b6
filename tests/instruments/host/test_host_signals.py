"""Ctrl-C and SIGTERM on a real `mcp-host run` whose server is busy: a quiet exit, and no server left running."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import psutil
import pytest

from tests.support import ctrl_c_delivered

# A server whose one tool writes its process id to a file, then waits until it is stopped.
WAITING_SERVER = """
import os, sys
import anyio
from mcp.server.mcpserver import MCPServer

mcp = MCPServer("waiting")

@mcp.tool()
async def wait_forever() -> str:
    with open(sys.argv[1], "w") as mark:
        mark.write(str(os.getpid()))
    await anyio.sleep_forever()
    return "never"

mcp.run()
"""
PATIENCE_SECONDS = 120  # how long to wait for a step on a loaded machine; never a bound on speed


def wait_for(condition: Callable[[], object], what: str) -> None:
    deadline = time.monotonic() + PATIENCE_SECONDS
    while not condition():
        assert time.monotonic() < deadline, f"gave up waiting for {what}"
        time.sleep(0.05)


def is_gone(pid: int) -> bool:
    try:
        status: str = psutil.Process(pid).status()
    except psutil.NoSuchProcess:
        return True
    return bool(status == psutil.STATUS_ZOMBIE)


@pytest.mark.parametrize(("sent", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_ends_the_host_quietly_and_stops_its_server(
    tmp_path: Path, sent: signal.Signals, code: int
) -> None:
    server, mark = tmp_path / "waiting_server.py", tmp_path / "server.pid"
    server.write_text(WAITING_SERVER)
    command = [
        *(sys.executable, "-m", "instruments.host", "run"),
        *("--server", f"python {server} {mark}", "--call", "wait_forever {}", "Wait, please."),
    ]
    with subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=ctrl_c_delivered
    ) as host:
        wait_for(lambda: mark.exists() and mark.read_text(), "the server to start the call")
        server_pid = int(mark.read_text())
        host.send_signal(sent)
        out, err = host.communicate(timeout=PATIENCE_SECONDS)
    assert host.returncode == code, out + err
    assert "Traceback" not in err, err
    assert err == ""
    # The host waits for its servers to exit before it does: gone now, not some time later.
    assert is_gone(server_pid)
