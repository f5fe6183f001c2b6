"""The convert server's contract: what the model reads, and what it gets back for every kind of input."""

from __future__ import annotations

import pytest
from inline_snapshot import snapshot
from mcp import Client
from mcp_types import Tool

from servers.convert.server import mcp
from servers.surface.testing import error_text, stdio_server

TOKEN_BUDGET = 195  # 191 today (cl100k, Anthropic shape); was 249


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
Convert a quantity between units of length, mass, volume, area, speed, temperature, energy, pressure and more.
Use it whenever a user needs an exact conversion instead of estimating one.
Do not use it for currencies, time zones or dates.
Returns the value and unit, e.g. "12 mi = 19.312128 km".\
""",
                "inputSchema": {
                    "type": "object",
                    "additionalProperties": False,
                    "properties": {
                        "value": {"description": "The number to convert.", "type": "number"},
                        "from_unit": {
                            "description": "Unit of value, as a symbol or name: mi, kg, °C, mph, fl oz, km/h, m**2.",
                            "maxLength": 40,
                            "minLength": 1,
                            "type": "string",
                        },
                        "to_unit": {
                            "description": "Unit to convert to.",
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


@pytest.mark.parametrize(
    ("unit", "expected"),
    [
        # Common units first, nearest first; never a constant (mole, molec, m_p) or an internal name.
        ("mlies", "from_unit 'mlies' is not a unit I know. Did you mean miles, mile?"),
        ("mlie", "from_unit 'mlie' is not a unit I know. Did you mean mile?"),
        ("kilomter", "from_unit 'kilomter' is not a unit I know. Did you mean kilometer, kilometre?"),
        ("farenheit", "from_unit 'farenheit' is not a unit I know. Did you mean fahrenheit?"),
        ("celcius", "from_unit 'celcius' is not a unit I know. Did you mean celsius?"),
        ("poound", "from_unit 'poound' is not a unit I know. Did you mean pound, pounds, pond?"),
    ],
)
async def test_unknown_unit_suggests_what_a_person_meant(unit: str, expected: str) -> None:
    assert error_text(await convert(1, unit, "km")) == expected


@pytest.mark.parametrize(
    ("unit", "expected"),
    [
        (
            "mpg",
            "from_unit 'mpg' is a fuel economy, which this tool converts only written as a ratio. "
            "Write mi/gal or km/l instead; litres per 100 km is its inverse, 100 divided by km/l.",
        ),
        (
            "USD",
            "from_unit 'USD' is a currency, and this tool has no exchange rates. "
            "Answer without this tool, or with a currency tool if you have one.",
        ),
        ("EUR", "from_unit 'EUR' is a currency, and this tool has no exchange rates."),
        ("€", "from_unit '€' is a currency, and this tool has no exchange rates."),
    ],
)
async def test_a_known_unit_it_does_not_convert_says_what_it_is(unit: str, expected: str) -> None:
    assert error_text(await convert(1, unit, "km")).startswith(expected)


async def test_fuel_economy_written_as_a_ratio_converts() -> None:
    result = await convert(30, "mi/gal", "km/l")
    assert result.structured_content == {"value": 12.7543112229, "unit": "km/l"}


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


# --- inputs that would make pint compute without bound, and other hostile units ----------------

TOO_LARGE = (
    "is not a unit this tool converts. A power must be a plain number from -9 to 9 (m**2, s^-1), "
    "and any other number belongs in value."
)


@pytest.mark.parametrize(
    "unit",
    [
        "m**9**9**8",  # pint computed 9**(9**8): minutes of CPU, the server frozen for everyone
        "(2**64)**(2**64)*m",  # a growing integer: 794 MB in 25 s
        "meter**1000000",  # converted silently to 0 km**1000000
        "(m**9)**9",
        "m*m*m*m*m*m*m*m*m*m",  # m**10, one factor at a time
        "m**(1+1)",
        "2m",
        "1e999*m",
    ],
)
async def test_a_unit_beyond_the_bounds_is_refused_before_it_is_computed(unit: str) -> None:
    assert error_text(await convert(1, unit, "m")) == f"from_unit {unit!r} {TOO_LARGE}"


async def test_a_result_that_underflows_is_an_error_not_zero() -> None:
    text = error_text(await convert(1, "ym**9", "Ym**9"))
    assert text == "1 ym**9 in Ym**9 is too small to represent. Convert a larger value."


async def test_a_scale_reaching_zero_is_not_an_underflow() -> None:
    result = await convert(32, "degF", "degC")
    assert result.structured_content == {"value": 0.0, "unit": "degC"}


@pytest.mark.parametrize("unit", ["degC*degC", "degC/s", "degF**2"])
async def test_a_temperature_scale_in_a_product_is_refused(unit: str) -> None:
    symbol = "°F" if "F" in unit else "°C"
    assert error_text(await convert(1, unit, "K**2")) == (
        f"from_unit {unit!r} multiplies, divides or raises {symbol}, a scale with its own zero. "
        f"Convert {symbol} alone, or use a difference such as delta_degC or K, as in K/s."
    )


@pytest.mark.parametrize(
    ("char", "name"),
    [("\x00", "NUL"), ("\u202e", "right-to-left override"), ("\u200b", "zero-width space")],
)
async def test_invisible_characters_are_refused_and_never_echoed(char: str, name: str) -> None:
    text = error_text(await convert(1, "k" + char + "m", "m"))
    assert text == (
        f"from_unit has an invisible or control character (U+{ord(char):04X}) at position 2. "
        "Send the unit as plain visible text, such as km/h."
    )
    assert char not in text, name


@pytest.mark.parametrize(
    ("value", "from_unit", "to_unit", "expected"),
    [
        (1, "m²", "ft²", 10.7639104167),
        (1, "m2", "ft**2", 10.7639104167),
        (60, "1/s", "rpm", 572.957795131),
        (1, "kg m^2 s^-2", "J", 1.0),
        (1, "(m/s)**2", "J/kg", 1.0),
        (1, "kg*m**2*s**-3", "W", 1.0),
        (1, "delta_degC/s", "K/min", 60.0),
        (1, "%", "ppm", 10000.0),
        (1, "cu in", "ml", 16.387064),
        (100, "kmph", "mph", 62.1371192237),  # pint alone reads kmph as kilo-mph: 100000
        (1, "fl\u00a0oz", "ml", 29.5735295625),
    ],
)
async def test_unit_expressions_within_the_bounds_convert(value, from_unit, to_unit, expected) -> None:
    result = await convert(value, from_unit, to_unit)
    assert not result.is_error, result.content
    assert result.structured_content == {"value": expected, "unit": to_unit}
