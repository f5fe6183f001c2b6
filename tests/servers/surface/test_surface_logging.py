"""What a served process writes on stderr: plain single lines, whatever is installed, and settings
that cannot work refused at start in one line."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.support import INITIALIZED, initialize


def served(
    arguments: dict[str, object], env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """`python -m servers.basics` given one call and then end of input, as a piping script would."""
    messages = [
        initialize(0),
        INITIALIZED,
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "math_add_numbers", "arguments": arguments},
        },
    ]
    return subprocess.run(
        [sys.executable, "-m", "servers.basics"],
        input="".join(json.dumps(message) + "\n" for message in messages),
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "COLUMNS": "40", **(env or {})},
    )


def test_served_logs_are_plain_single_lines() -> None:
    pytest.importorskip("rich", reason="the SDK logs through rich only when it is installed")
    forged = "days\n2026-01-01 00:00:00 ERROR forged line"
    done = served({"numbers": [1, 2], forged: 1, "to": 2})
    lines = done.stderr.splitlines()
    (rejected,) = [line for line in lines if "rejected arguments" in line]
    # One line however narrow the terminal, without rich's boxes, and the caller's text escaped.
    assert rejected.endswith(
        "INFO servers.surface: math_add_numbers rejected arguments: "
        "days\\n2026-01-01 00:00:00 ERROR forged li... (42 characters) (unknown), to (unknown)"
    )
    assert not any(line.startswith("2026-01-01") for line in lines)
    assert "│" not in done.stderr
    assert done.returncode == 0


@pytest.mark.parametrize("raw", ["abc", "0", "199"])
def test_a_bound_that_cannot_work_stops_the_server_at_start_in_one_line(raw: str) -> None:
    done = served({"numbers": [1, 2]}, env={"MCP_MAX_RESULT_CHARS": raw})
    assert done.stderr == (
        "basics: MCP_MAX_RESULT_CHARS must be a whole number of characters, at least 200 "
        f"(default 4000); got {raw!r}.\n"
    )
    assert done.stdout == ""
    assert done.returncode == 1
