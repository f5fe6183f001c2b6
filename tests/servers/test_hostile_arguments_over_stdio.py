"""Hostile argument names sent to the real process over stdio: the answer comes back, stays short, the
server goes on answering, and what it logs stays one bounded line whatever the names hold.

The in-process tests count the work done (tests/servers/surface/test_surface_bounds.py); this one
proves the same through the transport a host uses, where an unbounded log or comparison once stalled
the server for 37 s and wrote 4 MB of forged lines to its stderr.
"""

from __future__ import annotations

import sys
import tempfile

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

from tests.support import error_text

VALID = {"value": 1, "from_unit": "m", "to_unit": "km"}
# A hang guard for a busy machine, not a speed requirement: before the fix the first case took 37 s.
GUARD_SECONDS = 60
MAX_LOG_BYTES = 2_000


@pytest.mark.parametrize(
    ("label", "extra"),
    [
        ("100,000 unknown names", {f"junk{i}": i for i in range(100_000)}),
        ("one name of 2 MB", {"x" * 2_000_000: 1}),
        ("names that forge log lines", {f"a\n2026-01-01 00:00:00 ERROR forged {i}": i for i in range(1_000)}),
    ],
)
async def test_hostile_names_get_a_short_answer_a_bounded_log_and_the_server_goes_on(
    label: str, extra: dict[str, object]
) -> None:
    command = StdioServerParameters(command=sys.executable, args=["-m", "servers.convert"])
    with tempfile.TemporaryFile("w+") as log:
        with anyio.fail_after(GUARD_SECONDS):
            async with Client(stdio_client(command, errlog=log)) as client:
                result = await client.call_tool("units_convert", {**VALID, **extra})
                after = await client.call_tool("units_convert", VALID)
        log.seek(0)
        logged = log.read()
    text = error_text(result)  # short, and free of internals
    assert "is not an argument of units_convert" in text
    assert after.structured_content == {"value": 0.001, "unit": "km"}
    records = [line for line in logged.splitlines() if "rejected arguments" in line]
    assert len(records) == 1, label
    assert len(logged.encode()) < MAX_LOG_BYTES, label
    assert not any(line.startswith("2026-01-01") for line in logged.splitlines())
