"""The basics server's contract: CPU usage and exact addition, for every kind of input."""

from __future__ import annotations

import pytest
from inline_snapshot import snapshot
from mcp import Client
from mcp_types import Tool

from servers.basics.server import mcp
from servers.surface.testing import error_text, stdio_server

TOKEN_BUDGET = 300


def definition_tokens(tool: Tool) -> int:
    """The definition's cl100k tokens, as the suite's instruments count them; skipped where they are absent."""
    tokens = pytest.importorskip(
        "instruments.tokens", reason="token counts come with the suite's instruments"
    )
    count: int = tokens.definition_tokens(tool).tokens
    return count


async def call(name: str, arguments: dict[str, object]):
    async with Client(mcp) as client:
        return await client.call_tool(name, arguments)


async def add(*numbers: object):
    return await call("math_add_numbers", {"numbers": list(numbers)})


async def test_surface_is_pinned() -> None:
    async with Client(mcp) as client:
        tools = (await client.list_tools()).tools
    assert [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in tools] == snapshot(
        [
            {
                "name": "system_get_cpu_usage",
                "title": "CPU usage",
                "description": """\
Measure how busy this computer's processors are: the percentage of CPU time in use across all cores over a short sample (100% means every core fully busy), the number of cores, and the load average (processes waiting to run over 1, 5 and 15 minutes; above the core count means a queue).
Use it when the user asks how loaded or busy this machine is.
Do not use it for memory, disk, network or per-process figures: it does not measure them.
Returns e.g. "CPU 12.5% busy over 0.5 s on 8 cores; load average 0.52, 0.40, 0.33".\
""",
                "inputSchema": {
                    "type": "object",
                    "additionalProperties": False,
                    "properties": {
                        "interval_seconds": {
                            "default": 0.5,
                            "description": "How long to sample, in seconds; longer is steadier.",
                            "maximum": 3.0,
                            "minimum": 0.1,
                            "type": "number",
                        },
                        "per_core": {
                            "default": False,
                            "description": "Also report each core's percentage.",
                            "type": "boolean",
                        },
                    },
                },
                "outputSchema": {
                    "properties": {
                        "percent": {
                            "description": "Share of all CPU time in use over the interval, 0 to 100.",
                            "type": "number",
                        },
                        "per_core_percent": {
                            "anyOf": [{"items": {"type": "number"}, "type": "array"}, {"type": "null"}],
                            "description": "The same per core, when asked for.",
                        },
                        "cores": {"description": "Number of logical cores.", "type": "integer"},
                        "load_average": {
                            "description": "Runnable processes averaged over 1, 5 and 15 minutes.",
                            "items": {"type": "number"},
                            "type": "array",
                        },
                        "interval_seconds": {"description": "How long the sample lasted.", "type": "number"},
                    },
                    "required": ["percent", "per_core_percent", "cores", "load_average", "interval_seconds"],
                    "type": "object",
                },
                "annotations": {
                    "readOnlyHint": True,
                    "destructiveHint": False,
                    "idempotentHint": True,
                    "openWorldHint": False,
                },
            },
            {
                "name": "math_add_numbers",
                "title": "Add numbers exactly",
                "description": """\
Add numbers exactly: integers of any size, and decimals without floating-point error (0.1 + 0.2 gives 0.3, not 0.30000000000000004).
Use it for long numbers, long lists, or amounts where a slip in mental arithmetic matters.
Do not use it for a trivial sum you can do reliably yourself, or for other operations.
Returns the exact sum as decimal text, e.g. "0.3".\
""",
                "inputSchema": {
                    "type": "object",
                    "additionalProperties": False,
                    "properties": {
                        "numbers": {
                            "description": '2 to 100 numbers to add. Write decimals with over 15 significant digits as strings, e.g. "12345678901234567890.25", so no digit is lost.',
                            "items": {
                                "anyOf": [
                                    {"type": "integer"},
                                    {"type": "number"},
                                    {"maxLength": 100, "pattern": "^[+-]?\\d+(\\.\\d+)?$", "type": "string"},
                                ]
                            },
                            "maxItems": 100,
                            "minItems": 2,
                            "type": "array",
                        }
                    },
                    "required": ["numbers"],
                },
                "outputSchema": {
                    "properties": {
                        "sum": {
                            "description": "The exact sum as decimal text, so no digit is lost to floating point.",
                            "type": "string",
                        },
                        "count": {"description": "How many numbers were added.", "type": "integer"},
                    },
                    "required": ["sum", "count"],
                    "type": "object",
                },
                "annotations": {
                    "readOnlyHint": True,
                    "destructiveHint": False,
                    "idempotentHint": True,
                    "openWorldHint": False,
                },
            },
        ]
    )


async def test_definitions_fit_their_token_budget() -> None:
    async with Client(mcp) as client:
        tools = (await client.list_tools()).tools
    assert {t.name: definition_tokens(t) <= TOKEN_BUDGET for t in tools} == {
        "system_get_cpu_usage": True,
        "math_add_numbers": True,
    }


async def test_cpu_usage_reports_percent_cores_and_load() -> None:
    result = await call("system_get_cpu_usage", {"interval_seconds": 0.1})
    assert not result.is_error
    usage = result.structured_content
    assert usage is not None
    assert 0 <= usage["percent"] <= 100
    assert usage["cores"] >= 1
    assert len(usage["load_average"]) == 3
    assert usage["per_core_percent"] is None
    assert result.content[0].text.startswith(
        f"CPU {usage['percent']}% busy over 0.1 s on {usage['cores']} cores"
    )


async def test_cpu_usage_per_core_gives_one_figure_per_core() -> None:
    result = await call("system_get_cpu_usage", {"interval_seconds": 0.1, "per_core": True})
    usage = result.structured_content
    assert usage is not None
    assert len(usage["per_core_percent"]) == usage["cores"]
    assert "\nper core: " in result.content[0].text


@pytest.mark.parametrize("interval", [0, 0.05, 3.5, 60])
async def test_cpu_sampling_interval_is_bounded(interval: float) -> None:
    text = error_text(await call("system_get_cpu_usage", {"interval_seconds": interval}))
    assert text.startswith(f"interval_seconds must be a finite number from 0.1 to 3.0; got {interval}.")


@pytest.mark.parametrize(
    ("numbers", "expected"),
    [
        ((0.1, 0.2), "0.3"),
        ((1, 2, 3), "6"),
        ((123456789012345678901234567890, 1), "123456789012345678901234567891"),
        (("12345678901234567890.25", "0.75"), "12345678901234567891"),
        ((1.10, "2.20", 3), "6.3"),
        ((-5, 5), "0"),
        ((1e22, 1), "10000000000000000000001"),
        (("0.000000000000000000001", 1), "1.000000000000000000001"),
    ],
)
async def test_sums_are_exact(numbers: tuple[object, ...], expected: str) -> None:
    result = await add(*numbers)
    assert not result.is_error, result.content
    assert result.content[0].text == expected
    assert result.structured_content == {"sum": expected, "count": len(numbers)}


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({}, "numbers is required: a list of 2 to 100 items"),
        ({"numbers": [1, 2], "extra": 1}, "extra is not an argument of math_add_numbers"),
        ({"numbers": "1, 2"}, "numbers must be a list of 2 to 100 items, each a finite number or a text"),
        ({"numbers": [1]}, "numbers must be a list of 2 to 100 items"),
        ({"numbers": []}, "numbers must be a list of 2 to 100 items"),
        ({"numbers": list(range(101))}, "numbers must be a list of 2 to 100 items"),
        ({"numbers": [1, True]}, "numbers[1] must be a finite number or a text"),
        ({"numbers": [1, "two"]}, "numbers[1] must be a finite number or a text"),
        ({"numbers": [1, "9" * 500]}, "numbers[1] must be a finite number or a text"),
    ],
)
async def test_every_class_of_bad_input_is_named_and_instructive(arguments, expected) -> None:
    text = error_text(await call("math_add_numbers", arguments))
    assert text.startswith(expected)


@pytest.mark.parametrize("value", [float("inf"), float("-inf"), float("nan")])
async def test_non_finite_numbers_are_rejected(value: float) -> None:
    # A JSON parser turns 1e400 into inf; the in-memory client would send it as null, so call directly.
    result = await mcp.call_tool("math_add_numbers", {"numbers": [1, value]})
    assert error_text(result).startswith("numbers[1] must be a finite number or a text")


async def test_the_command_serves_over_stdio() -> None:
    async with Client(stdio_server("servers.basics")) as client:
        result = await client.call_tool("math_add_numbers", {"numbers": [0.1, 0.2]})
    assert result.structured_content == {"sum": "0.3", "count": 2}
