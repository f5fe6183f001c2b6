"""What no caller can do to a ToolServer: stall its event loop, flood its log, or get a result past the bound.

Work is asserted by counting it (comparisons made, bytes logged), never by timing it, and time
limits are met by tools that wait on an event the test controls, so no figure depends on the
machine's speed.
"""

from __future__ import annotations

import difflib
import logging
import threading
from collections.abc import Iterator
from typing import Annotated, Any

import anyio
import pytest
from jsonschema import Draft202012Validator
from mcp import Client
from mcp_types import CallToolResult, TextContent
from pydantic import BaseModel, Field

import servers.surface
from servers.surface import LOCAL_READ_ONLY, Reply, ToolServer, Trim, TrimmableReply
from servers.surface.logs import OneLineFormatter
from tests.support import error_text


class Rows(BaseModel):
    rows: list[str] = Field(description="The rows, in order.")
    total: int = Field(description="How many rows there are in all.")


@pytest.fixture
def release() -> Iterator[threading.Event]:
    """Set at the end of each test, so no blocked worker thread outlives it."""
    event = threading.Event()
    yield event
    event.set()


def make_server(release: threading.Event) -> ToolServer:
    server = ToolServer("bounds", namespaces=["bounds"])

    @server.tool(title="Echo", annotations=LOCAL_READ_ONLY)
    def bounds_echo(
        text: Annotated[str, Field(max_length=50, description="What to echo.")],
        to_unit: Annotated[str, Field(max_length=50, description="Any text.")] = "",
    ) -> str:
        """Echo a text. Use it to test."""
        return text

    @server.tool(title="Wait", annotations=LOCAL_READ_ONLY, time_limit=0.2, narrow_hint="ask for less")
    def bounds_wait(forever: Annotated[bool, Field(description="Wait for the test to let go.")]) -> str:
        """Block the worker thread until the test lets go. Use it to test time limits."""
        release.wait()
        return "released"

    @server.tool(title="Block", annotations=LOCAL_READ_ONLY, time_limit=60)
    def bounds_block(seconds: Annotated[float, Field(ge=0, le=60, description="Unused.")]) -> str:
        """Block the worker thread until the test lets go. Use it to test that others are answered."""
        release.wait()
        return "released"

    @server.tool(title="Rows", annotations=LOCAL_READ_ONLY, max_chars=300)
    def bounds_rows(count: Annotated[int, Field(ge=0, le=1000, description="How many rows.")]) -> Reply[Rows]:
        """List numbered rows. Use it to test trimming."""
        rows = [f"row number {n}" for n in range(count)]

        def first(shown: int) -> Reply[Rows]:
            return Reply("\n".join(rows[:shown]), Rows(rows=rows[:shown], total=count))

        whole = first(count)
        return TrimmableReply(whole.text, whole.data, Trim(count, "rows", first, "ask for fewer rows"))

    return server


@pytest.fixture
def server(release: threading.Event) -> ToolServer:
    return make_server(release)


@pytest.fixture
def comparisons(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int]]:
    """Every spelling comparison the surface makes: (the name compared, its length)."""
    made: list[tuple[str, int]] = []
    real = difflib.get_close_matches

    def counted(word: str, possibilities: Any, *args: Any, **kwargs: Any) -> list[str]:
        made.append((word[:20], len(word)))
        return real(word, possibilities, *args, **kwargs)

    monkeypatch.setattr(difflib, "get_close_matches", counted)
    return made


def logged_lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    formatter = OneLineFormatter("%(message)s")
    return [formatter.format(record) for record in caplog.records if record.name == "servers.surface"]


def text_of(result: CallToolResult) -> str:
    return "".join(block.text for block in result.content if isinstance(block, TextContent))


async def call(server: ToolServer, name: str, arguments: dict[str, Any]) -> Any:
    async with Client(server) as client:
        return await client.call_tool(name, arguments)


async def test_a_hundred_thousand_unknown_names_cost_a_few_comparisons_and_one_short_log_line(
    server: ToolServer, comparisons: list[tuple[str, int]], caplog: pytest.LogCaptureFixture
) -> None:
    arguments: dict[str, Any] = {"text": "hi", **{f"k{n}": 1 for n in range(100_000)}}
    with caplog.at_level(logging.INFO, logger="servers.surface"):
        text = error_text(await call(server, "bounds_echo", arguments))
    assert text.startswith("k0 is not an argument of bounds_echo, which takes only text, to_unit.")
    assert text.endswith("more problems not shown; fix these and call again.")
    assert len(comparisons) <= servers.surface.UNKNOWN_NAMES_COMPARED
    (line,) = logged_lines(caplog)
    assert line == (
        "bounds_echo rejected arguments: k0 (unknown), k1 (unknown), k2 (unknown), k3 (unknown), "
        "k4 (unknown) and 99995 more"
    )


async def test_a_two_megabyte_name_is_compared_and_logged_by_its_start_only(
    server: ToolServer, comparisons: list[tuple[str, int]], caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO, logger="servers.surface"):
        text = error_text(await call(server, "bounds_echo", {"text": "hi", "t" * 2_000_000: 1}))
    assert text.startswith(
        "tttttttttttttttttttttttt... (2000000 characters) is not an argument of bounds_echo"
    )
    assert all(length <= 64 for _, length in comparisons)
    (line,) = logged_lines(caplog)
    assert len(line) < 200


async def test_a_name_with_line_breaks_cannot_forge_a_log_line_or_an_error_line(
    server: ToolServer, caplog: pytest.LogCaptureFixture
) -> None:
    forged = "x\n2026-01-01 00:00:00 ERROR root: forged\r\x1b[2J"
    with caplog.at_level(logging.INFO, logger="servers.surface"):
        text = error_text(await call(server, "bounds_echo", {"text": "hi", forged: 1}))
    assert text.splitlines()[0].startswith("x\\n2026-01-01 00:00:00 ER")
    (line,) = logged_lines(caplog)
    assert "\n" not in line
    assert "\x1b" not in line
    assert "x\\n2026-01-01 00:00:00 ERROR root: for" in line


async def test_an_unknown_name_gets_the_real_one_it_abbreviates(server: ToolServer) -> None:
    text = error_text(await call(server, "bounds_echo", {"text": "hi", "to": "m"}))
    assert text == (
        "to is not an argument of bounds_echo, which takes only text, to_unit. Did you mean to_unit? "
        "Remove it and call again."
    )


async def test_a_call_over_its_time_limit_ends_as_an_error_that_says_so(server: ToolServer) -> None:
    text = error_text(await call(server, "bounds_wait", {"forever": True}))
    assert text == (
        "bounds_wait stopped: the call took longer than its 0.2-second limit, so these arguments ask "
        "for more work than it does in one call. To get an answer, ask for less."
    )


async def test_a_blocked_synchronous_tool_leaves_the_server_answering(
    server: ToolServer, release: threading.Event
) -> None:
    async with Client(server) as client, anyio.create_task_group() as tasks:
        answers: list[str] = []

        async def blocked_call() -> None:
            result = await client.call_tool("bounds_block", {"seconds": 1})
            answers.append(text_of(result))

        tasks.start_soon(blocked_call)
        await client.list_tools()  # answered while the tool's thread is still blocked
        echoed = await client.call_tool("bounds_echo", {"text": "meanwhile"})
        answers.append(text_of(echoed))
        release.set()
    assert answers == ["meanwhile", "released"]


async def test_runaway_computations_never_take_more_than_the_worker_pool(
    server: ToolServer, release: threading.Event, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(servers.surface, "worker_slots", threading.BoundedSemaphore(2))
    async with Client(server) as client:
        # One after another: each is abandoned at its time limit with its thread still blocked.
        texts = [error_text(await client.call_tool("bounds_wait", {"forever": True})) for _ in range(4)]
        running = [thread for thread in threading.enumerate() if thread.name == "tool bounds_wait"]
        assert len(running) == 2
        assert all(thread.daemon for thread in running)  # none keeps the process from exiting
        release.set()
    assert [text.split(":")[0] for text in texts] == [
        "bounds_wait stopped",
        "bounds_wait stopped",
        "bounds_wait could not start",
        "bounds_wait could not start",
    ]
    assert texts[2] == (
        "bounds_wait could not start: the server is busy with other long calls. "
        "Try again in a minute, or answer without this tool."
    )


@pytest.mark.parametrize("count", [0, 5, 19, 20, 21, 200, 1000])
async def test_a_result_over_the_bound_keeps_the_items_that_fit_and_says_how_to_get_the_rest(
    server: ToolServer, count: int
) -> None:
    async with Client(server) as client:
        result = await client.call_tool("bounds_rows", {"count": count})
        (tool,) = [tool for tool in (await client.list_tools()).tools if tool.name == "bounds_rows"]
    assert not result.is_error
    text, data = text_of(result), result.structured_content
    assert data is not None
    Draft202012Validator(tool.output_schema).validate(data)
    assert len(text) <= 300
    shown = len(data["rows"])
    assert data["rows"] == [f"row number {n}" for n in range(shown)]
    assert data["total"] == count
    if shown < count:
        assert text.endswith(
            f"\n[{count - shown} of {count} rows cut to fit the 300-character limit; ask for fewer rows.]"
        )
        # The most that fit: one more row would not have.
        assert len(text) + len(f"\nrow number {shown}") > 300 or len(str(data)) > 280
    else:
        assert "cut" not in text
