"""The convert server's contract: what the model reads, and what it gets back for every kind of input."""

from __future__ import annotations

import pytest
from inline_snapshot import snapshot
from mcp import Client
from mcp_types import Tool

from servers.convert.server import mcp
from servers.surface.testing import error_text, stdio_server

TOKEN_BUDGET = 300


def definition_tokens(tool: Tool) -> int:
    """The definition's cl100k tokens, as the suite's instruments count them; skipped where they are absent."""
    tokens = pytest.importorskip(
        "instruments.tokens", reason="token counts come with the suite's instruments"
    )
    count: int = tokens.definition_tokens(tool).tokens
    return count


async def convert(value: object, from_unit: object, to_unit: object):
    async with Client(mcp) as client:
        return await client.call_tool(
            "units_convert", {"value": value, "from_unit": from_unit, "to_unit": to_unit}
        )


async def test_surface_is_pinned() -> None:
    async with Client(mcp) as client:
        tools = (await client.list_tools()).tools
    assert [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in tools] == snapshot(
        [
            {
                "name": "units_convert",
                "title": "Convert units",
                "description": """\
Convert a quantity between units of length, mass, volume, area, speed, temperature, time, energy, pressure or power, e.g. 12 mi to km, 98.6 degF to degC, 1 cup to ml, km/h to m/s.
Use it whenever a user needs an exact conversion instead of estimating one.
Do not use it for currencies, time zones or dates: it has no exchange rates or clocks.
Returns the converted value and unit, e.g. "12 mi = 19.312128 km".\
""",
                "inputSchema": {
                    "type": "object",
                    "additionalProperties": False,
                    "properties": {
                        "value": {"description": "The number to convert, e.g. 12.", "type": "number"},
                        "from_unit": {
                            "description": "Unit of value, as a symbol or name: mi, km, kg, lb, degF, °C, km/h, mph, cup, fl oz.",
                            "maxLength": 40,
                            "minLength": 1,
                            "type": "string",
                        },
                        "to_unit": {
                            "description": "Unit to convert to, written like from_unit.",
                            "maxLength": 40,
                            "minLength": 1,
                            "type": "string",
                        },
                    },
                    "required": ["value", "from_unit", "to_unit"],
                },
                "outputSchema": {
                    "properties": {
                        "value": {"description": "The converted value.", "type": "number"},
                        "unit": {
                            "description": "The unit of value, as the caller spelled it.",
                            "type": "string",
                        },
                    },
                    "required": ["value", "unit"],
                    "type": "object",
                },
                "annotations": {
                    "readOnlyHint": True,
                    "destructiveHint": False,
                    "idempotentHint": True,
                    "openWorldHint": False,
                },
            }
        ]
    )


async def test_definition_fits_its_token_budget() -> None:
    async with Client(mcp) as client:
        (tool,) = (await client.list_tools()).tools
    assert definition_tokens(tool) <= TOKEN_BUDGET


async def test_twelve_miles_is_pints_kilometres() -> None:
    result = await convert(12, "mi", "km")
    assert not result.is_error
    assert result.content[0].text == "12 mi = 19.312128 km"
    assert result.structured_content == {"value": 19.312128, "unit": "km"}


@pytest.mark.parametrize(
    ("value", "from_unit", "to_unit", "expected"),
    [
        (1, "miles", "km", 1.609344),
        (100, "km/h", "mph", 62.1371192237),
        (100, "kph", "m/s", 27.7777777778),
        (36, "km/h", "m/s", 10.0),
        (60, "mph", "km/h", 96.56064),
        (98.6, "°F", "°C", 37.0),
        (98.6, "fahrenheit", "celsius", 37.0),
        (-40, "degC", "degF", -40.0),
        (0, "°C", "K", 273.15),
        (1, "cup", "ml", 236.5882365),
        (1, "fl oz", "ml", 29.5735295625),
        (1, "lb", "kg", 0.45359237),
        (1, "Mile", "KM", 1.609344),
    ],
)
async def test_spellings_people_and_models_write(value, from_unit, to_unit, expected) -> None:
    result = await convert(value, from_unit, to_unit)
    assert not result.is_error, result.content
    assert result.structured_content == {"value": expected, "unit": to_unit}


async def test_unknown_unit_suggests_close_spellings() -> None:
    text = error_text(await convert(1, "mlie", "km"))
    assert text.startswith("from_unit 'mlie' is not a unit I know. Did you mean")
    assert "mile" in text


async def test_garbage_unit_gets_examples_instead() -> None:
    text = error_text(await convert(1, "km", "(("))
    assert text == "to_unit '((' is not a unit I know. Try a symbol or name such as km, lb, degC."


async def test_incompatible_units_name_both_dimensions_and_an_example_each() -> None:
    text = error_text(await convert(1, "mi", "kg"))
    assert text == (
        "mi is a length and kg is a mass, so one cannot be converted to the other. "
        "Convert mi to a length such as m, km, mi, ft, or kg to a mass such as kg, g, lb, oz."
    )


async def test_result_too_large_to_represent_is_an_error_not_inf() -> None:
    text = error_text(await convert(1e308, "mi", "mm"))
    assert text == "1e+308 mi in mm is too large to represent. Convert a smaller value."


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        (
            {"from_unit": "mi", "to_unit": "km"},
            "value is required: a finite number. Call again with value set.",
        ),
        (
            {"value": 1, "from_unit": "mi", "to_unit": "km", "unit": "x"},
            "unit is not an argument of units_convert",
        ),
        (
            {"value": "12", "from_unit": "mi", "to_unit": "km"},
            'value must be a finite number; got "12". Send',
        ),
        ({"value": True, "from_unit": "mi", "to_unit": "km"}, "value must be a finite number; got true."),
        (
            {"value": 1, "from_unit": "", "to_unit": "km"},
            'from_unit must be a text of 1 to 40 characters; got "".',
        ),
        (
            {"value": 1, "from_unit": "m" * 5000, "to_unit": "km"},
            "from_unit must be a text of 1 to 40 characters;",
        ),
        (
            {"value": 1, "from_unit": ["mi"], "to_unit": "km"},
            "from_unit must be a text of 1 to 40 characters;",
        ),
    ],
)
async def test_every_class_of_bad_input_is_named_and_instructive(arguments, expected) -> None:
    async with Client(mcp) as client:
        text = error_text(await client.call_tool("units_convert", arguments))
    assert text.startswith(expected)


@pytest.mark.parametrize("value", [float("inf"), float("-inf"), float("nan")])
async def test_non_finite_values_are_rejected(value: float) -> None:
    # A JSON parser turns 1e400 into inf; the in-memory client would send it as null, so call directly.
    result = await mcp.call_tool("units_convert", {"value": value, "from_unit": "mi", "to_unit": "km"})
    assert error_text(result).startswith(f"value must be a finite number; got {value}.")


async def test_the_command_serves_over_stdio() -> None:
    async with Client(stdio_server("servers.convert")) as client:
        result = await client.call_tool("units_convert", {"value": 12, "from_unit": "mi", "to_unit": "km"})
    assert result.structured_content == {"value": 19.312128, "unit": "km"}
