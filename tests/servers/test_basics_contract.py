"""The basics server's contract: CPU usage and exact addition, for every kind of input."""

from __future__ import annotations

from decimal import Decimal, localcontext

import psutil
import pytest
from inline_snapshot import snapshot
from mcp import Client
from mcp_types import Tool

from servers.basics.server import mcp
from servers.surface.testing import error_text, stdio_server

TOKEN_BUDGET = 200  # issue 13: 173 and 199 tokens (cl100k, Anthropic shape)


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
Measure how busy this computer's processors are: the share of CPU time in use across all cores over a short sample, the core count, and the load average (processes waiting to run over 1, 5 and 15 minutes; above the core count means a queue).
Use it when the user asks how loaded or busy this machine is.
Do not use it for memory, disk, network or per-process figures.\
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
                            "description": "The same per core in core order, when asked for; cut short, as the text then says, when the result would be too long.",
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
Add numbers exactly: integers and decimals of up to 80 digits, without floating-point error (0.1 + 0.2 gives 0.3).
Use it for long numbers, long lists, or amounts where an arithmetic slip matters.
Do not use it for a trivial sum you can do reliably yourself, or other operations.
Returns the sum as decimal text.\
""",
                "inputSchema": {
                    "type": "object",
                    "additionalProperties": False,
                    "properties": {
                        "numbers": {
                            "description": 'Write a decimal with over 15 significant digits as text, e.g. "12345678901234567890.25", so no digit is lost.',
                            "items": {
                                "anyOf": [
                                    {"type": "integer"},
                                    {"type": "number"},
                                    {
                                        "maxLength": 80,
                                        "pattern": "^[+-]?[0-9]+(\\.[0-9]+)?$",
                                        "type": "string",
                                    },
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
        (
            {"numbers": "1, 2"},
            'numbers must be a list of 2 to 100 items, each a finite number or a decimal number written as text, such as "12.50", at most 80 characters; got "1, 2".',
        ),
        ({"numbers": [1]}, "numbers must be a list of 2 to 100 items"),
        ({"numbers": []}, "numbers must be a list of 2 to 100 items"),
        ({"numbers": list(range(101))}, "numbers must be a list of 2 to 100 items"),
        ({"numbers": [1, True]}, "numbers[1] must be a finite number or a decimal number written as text"),
        (
            {"numbers": [1, "two"]},
            'numbers[1] must be a finite number or a decimal number written as text, such as "12.50", '
            'at most 80 characters; got "two". Call again with numbers[1] corrected.',
        ),
        (
            {"numbers": [1, "9" * 500]},
            "numbers[1] must be a finite number or a decimal number written as text",
        ),
        # JSON Schema's \d is ASCII; Python's regex \d also takes these.
        ({"numbers": [1, "١٢٣"]}, "numbers[1] must be a finite number or a decimal number written as text"),
        (
            {"numbers": [1, "\uff11\uff12\uff13"]},  # fullwidth 123
            "numbers[1] must be a finite number or a decimal number written as text",
        ),
    ],
)
async def test_every_class_of_bad_input_is_named_and_instructive(arguments, expected) -> None:
    text = error_text(await call("math_add_numbers", arguments))
    assert text.startswith(expected)


@pytest.mark.parametrize("value", [float("inf"), float("-inf"), float("nan")])
async def test_non_finite_numbers_are_rejected(value: float) -> None:
    # A JSON parser turns 1e400 into inf; the in-memory client would send it as null, so call directly.
    result = await mcp.call_tool("math_add_numbers", {"numbers": [1, value]})
    assert error_text(result).startswith(
        "numbers[1] must be a finite number or a decimal number written as text"
    )


async def test_errors_never_show_a_regular_expression() -> None:
    text = error_text(await add(1, "1e5"))
    assert not any(mark in text for mark in ("[0-9]", "^", "\\d", "$"))


@pytest.mark.parametrize(
    ("number", "digits"),
    [(10**4000, 4001), (-(10**80), 81), (1e100, 101), (5e-324, 325)],
)
async def test_numbers_over_80_digits_are_refused_before_adding(number: object, digits: int) -> None:
    assert error_text(await add(1, number)) == (
        f"numbers[1] has {digits} digits written out; each number may have at most 80. "
        "Round it and call again, or answer without this tool if every digit matters."
    )


async def test_the_longest_sum_fits_the_smallest_result_bound_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_MAX_RESULT_CHARS", "200")
    # The longest integer part and the longest fraction the bound allows, at the longest list.
    numbers: list[object] = [int("9" * 80)] * 99 + ["0." + "9" * 78]
    result = await add(*numbers)
    assert not result.is_error, result.content
    with localcontext() as context:
        context.prec = 500
        expected = str(sum((Decimal(str(number)) for number in numbers), Decimal(0)))
    assert result.content[0].text == expected
    assert result.structured_content == {"sum": expected, "count": 100}


async def test_per_core_figures_past_the_bound_are_cut_and_the_cut_is_said(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("MCP_MAX_RESULT_CHARS", "300")
    monkeypatch.setattr(psutil, "cpu_percent", lambda interval, percpu: [12.5] * 256)
    result = await call("system_get_cpu_usage", {"interval_seconds": 0.1, "per_core": True})
    assert not result.is_error, result.content
    text = result.content[0].text
    usage = result.structured_content
    assert usage is not None
    shown = len(usage["per_core_percent"])
    assert 0 < shown < 256
    assert usage["cores"] == 256
    assert text.count("12.5%") == shown + 1  # the total, then each core shown
    assert text.endswith(
        f"\n[{256 - shown} of 256 per-core figures cut to fit the 300-character limit; "
        "the totals above cover every core.]"
    )
    assert len(text) <= 300


async def test_the_command_serves_over_stdio() -> None:
    async with Client(stdio_server("servers.basics")) as client:
        result = await client.call_tool("math_add_numbers", {"numbers": [0.1, 0.2]})
    assert result.structured_content == {"sum": "0.3", "count": 2}
