"""A stdio server's stdout belongs to JSON-RPC: one stray print and the host drops the connection."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import INITIALIZED, initialize

CALLS: dict[str, list[tuple[str, dict[str, object]]]] = {
    "servers.convert": [
        ("units_convert", {"value": 12, "from_unit": "mi", "to_unit": "km"}),
        ("units_convert", {}),
    ],
    # Only arguments the tool refuses before any network use, so this stays offline.
    "servers.weather": [("weather_get_forecast", {"city": "Oslo", "days": 9})],
    "servers.basics": [("math_add_numbers", {"numbers": [1, 2]}), ("math_add_numbers", {"numbers": "x"})],
}


def session(calls: list[tuple[str, dict[str, object]]]) -> str:
    messages: list[dict[str, object]] = [
        initialize(0),
        INITIALIZED,
        {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
    ]
    for number, (name, arguments) in enumerate(calls, start=2):
        messages.append(
            {
                "jsonrpc": "2.0",
                "id": number,
                "method": "tools/call",
                "params": {"name": name, "arguments": arguments},
            }
        )
    return "".join(json.dumps(message) + "\n" for message in messages)


def converse(command: list[str], calls: list[tuple[str, dict[str, object]]]) -> tuple[list[str], int]:
    """Write a whole session and close stdin at once, as a script piping requests in would."""
    done = subprocess.run(command, input=session(calls), capture_output=True, text=True, timeout=60)
    return done.stdout.splitlines(), done.returncode


@pytest.mark.parametrize("module", sorted(CALLS))
def test_every_stdout_line_is_a_jsonrpc_message_and_no_answer_is_lost_at_eof(module: str) -> None:
    calls = CALLS[module]
    lines, exit_code = converse([sys.executable, "-m", module], calls)
    answers = [json.loads(line) for line in lines]
    assert all(answer["jsonrpc"] == "2.0" for answer in answers)
    assert sorted(answer["id"] for answer in answers) == list(range(len(calls) + 2))
    assert exit_code == 0


@pytest.mark.parametrize("script", ["mcp-convert", "mcp-basics", "mcp-weather"])
def test_console_scripts_start_the_servers(script: str) -> None:
    lines, _ = converse([str(Path(sys.executable).parent / script)], [])
    assert [json.loads(line)["id"] for line in lines] == [0, 1]
