"""The HTTP sequence docs/using.md gives, run in a real shell: export a token, start the server in the
background, register it with a host that sends the token. A stand-in for `claude` takes the
registration's arguments as Claude Code would and calls the tool with the header the shell expanded.

Only the interpreter (`.venv/bin/python`, for the one running these tests) and the port (a free one)
are replaced; everything stays on 127.0.0.1.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import free_port

USING = Path(__file__).resolve().parents[3] / "docs" / "using.md"


def documented_sequence() -> str:
    """The shell block of docs/using.md that registers the HTTP server with Claude Code, verbatim."""
    blocks = USING.read_text(encoding="utf-8").split("```sh\n")[1:]
    (block,) = [block.split("```")[0] for block in blocks if "claude mcp add --transport http" in block]
    return block


# Answers `claude mcp add --transport http --header H NAME URL` by connecting as the host would.
STAND_IN = """\
import asyncio, json, sys
import httpx, httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

arguments = sys.argv[1:]
assert arguments[:4] == ["mcp", "add", "--transport", "http"], arguments
name, url = arguments[-2:]
key, _, value = arguments[arguments.index("--header") + 1].partition(": ")


async def main() -> None:
    async with asyncio.timeout(30):  # the server was started in the background a moment ago
        while True:
            try:
                anonymous = httpx.post(url, json={}, headers={"Accept": "application/json, text/event-stream"})
                break
            except httpx.ConnectError:
                await asyncio.sleep(0.05)
        http = httpx2.AsyncClient(headers={key: value})
        async with http, Client(streamable_http_client(url, http_client=http)) as client:
            result = await client.call_tool("units_convert", {"value": 12, "from_unit": "mi", "to_unit": "km"})
    print(json.dumps({"anonymous": anonymous.status_code, "header": value[:7], "text": result.content[0].text}))


asyncio.run(main())
"""


@pytest.mark.skipif(
    shutil.which("openssl") is None, reason="the documented sequence makes its token with openssl"
)
def test_the_documented_http_sequence_connects_with_the_token_and_without_it_gets_401(tmp_path: Path) -> None:
    claude = tmp_path / "claude"
    claude.write_text(f"#!{sys.executable}\n{STAND_IN}")
    claude.chmod(0o755)
    script = (
        documented_sequence().replace(".venv/bin/python", sys.executable).replace("8000", str(free_port()))
    )
    # Stop the background server afterwards, and report how it ended.
    script += 'kill -TERM $!\nwait $! && code=0 || code=$?\necho "server exit $code"\n'
    env = {**os.environ, "PATH": f"{tmp_path}{os.pathsep}{os.environ['PATH']}"}
    env.pop("MCP_BEARER_TOKEN", None)
    repository = Path(__file__).resolve().parents[3]
    done = subprocess.run(
        ["bash", "-e", "-c", script], cwd=repository, env=env, capture_output=True, text=True, timeout=90
    )
    assert done.returncode == 0, done.stderr
    *_, first, last = done.stdout.splitlines()  # the stand-in's report, then ours
    seen = json.loads(first)
    assert seen["anonymous"] == 401
    assert seen["header"] == "Bearer "
    assert "19.312128 km" in seen["text"]
    assert last == "server exit 143"
