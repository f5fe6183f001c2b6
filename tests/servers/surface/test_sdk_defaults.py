"""The "before" of docs/design.md: units_convert registered on a bare MCPServer, the SDK's default
way, against the same function served through servers/surface/. Pinned so the docs stay true."""

from __future__ import annotations

import pytest
from mcp import Client
from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS

from instruments.tokens import definition_tokens
from servers.convert.server import mcp as ours
from servers.convert.server import units_convert
from tests.support import error_text

bare = MCPServer("convert")
bare.add_tool(units_convert)

TWELVE_MILES = {"value": 12, "from_unit": "mi", "to_unit": "km"}


async def call(server: MCPServer, arguments: dict[str, object], name: str = "units_convert"):
    async with Client(server) as client:
        return await client.call_tool(name, arguments)


async def test_bare_schema_is_open_and_carries_titles() -> None:
    async with Client(bare) as client, Client(ours) as strict:
        (before,) = (await client.list_tools()).tools
        (after,) = (await strict.list_tools()).tools
    assert "additionalProperties" not in before.input_schema
    assert before.input_schema["title"] == "units_convertArguments"
    assert before.input_schema["properties"]["from_unit"]["title"] == "From Unit"
    assert after.input_schema["additionalProperties"] is False
    assert definition_tokens(before).tokens > definition_tokens(after).tokens


async def test_bare_drops_a_misspelled_argument_silently() -> None:
    before = await call(bare, {**TWELVE_MILES, "precision": 2})
    assert not before.is_error
    assert error_text(await call(ours, {**TWELVE_MILES, "precision": 2})) == (
        "precision is not an argument of units_convert, which takes only value, from_unit, to_unit. "
        "Remove it and call again."
    )


@pytest.mark.parametrize(
    ("value", "converted", "ours_says"),
    [
        (
            "12",
            "12 mi = 19.312128 km",
            'value must be a finite number; got "12". Send value as a bare JSON value',
        ),
        (
            True,
            "1 mi = 1.609344 km",
            "value must be a finite number; got true. Call again with value corrected.",
        ),
    ],
)
async def test_bare_coerces_wrong_json_types(value: object, converted: str, ours_says: str) -> None:
    before = await call(bare, {**TWELVE_MILES, "value": value})
    assert not before.is_error
    assert before.structured_content is not None
    assert before.structured_content["result"]["text"] == converted
    assert error_text(await call(ours, {**TWELVE_MILES, "value": value})).startswith(ours_says)


async def test_bare_reports_a_missing_argument_in_pydantic_terms() -> None:
    before = await call(bare, {"from_unit": "mi", "to_unit": "km"})
    assert before.is_error
    text = before.content[0].text
    assert text.startswith(
        "Error executing tool units_convert: 1 validation error for units_convertArguments\nvalue\n"
        "  Field required [type=missing, input_value={'from_unit': 'mi', 'to_unit': 'km'}, input_type=dict]\n"
        "    For further information visit https://errors.pydantic.dev/"
    )
    assert error_text(await call(ours, {"from_unit": "mi", "to_unit": "km"})) == (
        "value is required: a finite number. Call again with value set."
    )


async def test_bare_hides_why_the_tool_failed() -> None:
    before = await call(bare, {**TWELVE_MILES, "to_unit": "kg"})
    assert before.is_error
    assert before.content[0].text == "Error executing tool units_convert"
    assert error_text(await call(ours, {**TWELVE_MILES, "to_unit": "kg"})).startswith(
        "mi is a length and kg is a mass, so one cannot be converted to the other. Convert mi to"
    )


async def test_bare_answers_an_unknown_tool_as_a_result_the_model_reads() -> None:
    before = await call(bare, TWELVE_MILES, name="convert_unit")
    assert before.is_error
    assert before.content[0].text == "Unknown tool: convert_unit"
    async with Client(ours) as client:
        with pytest.raises(MCPError) as after:
            await client.call_tool("convert_unit", TWELVE_MILES)
    assert after.value.error.code == INVALID_PARAMS
