"""MCP tools and results in Anthropic and OpenAI shapes, and OpenAI strict mode for our real schemas."""

from __future__ import annotations

from typing import Any

import pytest
from mcp import Client
from mcp_types import CallToolResult, ImageContent, TextContent, Tool

from instruments.host.formats import (
    anthropic_tool,
    anthropic_tool_result,
    arguments_for_server,
    openai_tool,
    openai_tool_message,
    request_body,
    strict_refusal,
)
from instruments.host.strict_schema import NotStrict, omit_added_nulls, strict_schema
from instruments.host.transcript import (
    Message,
    ModelMessage,
    PersonMessage,
    ToolCall,
    ToolResult,
    ToolResults,
)
from servers.basics.server import mcp as basics
from servers.convert.server import mcp as convert


async def tools_of(server: Any) -> dict[str, Tool]:
    async with Client(server) as client:
        return {tool.name: tool for tool in (await client.list_tools()).tools}


async def test_definitions_carry_name_description_and_schema_unchanged() -> None:
    tool = (await tools_of(convert))["units_convert"]
    assert anthropic_tool(tool) == {
        "name": "units_convert",
        "description": tool.description,
        "input_schema": tool.input_schema,
    }
    function = openai_tool(tool)
    assert function["type"] == "function"
    assert (function["function"]["name"], function["function"]["description"]) == (
        tool.name,
        tool.description,
    )


async def test_strict_mode_makes_optional_arguments_required_and_nullable() -> None:
    tool = (await tools_of(basics))["system_get_cpu_usage"]
    function = openai_tool(tool)["function"]
    schema = function["parameters"]
    assert function["strict"] is True
    assert schema["required"] == ["interval_seconds", "per_core"]
    assert schema["additionalProperties"] is False
    interval = schema["properties"]["interval_seconds"]
    assert interval["type"] == ["number", "null"]
    assert "default" not in interval
    assert "null for the default, 0.5" in interval["description"]
    # Limits strict mode supports stay in the schema.
    assert (interval["minimum"], interval["maximum"]) == (0.1, 3.0)


async def test_strict_mode_is_refused_with_the_reason_when_the_schema_needs_more() -> None:
    tools = await tools_of(convert)
    function = openai_tool(tools["units_convert"])["function"]
    assert function["strict"] is False
    assert function["parameters"] == tools["units_convert"].input_schema
    assert strict_refusal(tools["units_convert"]) == (
        "from_unit uses maxLength, minLength, which strict mode does not support"
    )


@pytest.mark.parametrize(
    ("schema", "reason"),
    [
        ({"type": "object", "properties": {}, "additionalProperties": True}, "accepts properties beyond"),
        ({"anyOf": [{"type": "object"}, {"type": "null"}]}, "root of the schema must be a plain object"),
        ({"type": "object", "properties": {"a": {"allOf": [{"type": "string"}]}}}, "a uses allOf"),
        (
            {"type": "object", "properties": {"a": {"type": "object", "properties": {"b": {"not": {}}}}}},
            "a.b uses not",
        ),
    ],
)
def test_strict_refusals_name_the_obstacle(schema: dict[str, Any], reason: str) -> None:
    with pytest.raises(NotStrict, match=reason):
        strict_schema(schema)


def test_nested_objects_are_closed_and_enums_accept_null_when_optional() -> None:
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {
            "where": {
                "type": "object",
                "properties": {"city": {"type": "string"}, "zip": {"type": "string"}},
            },
            "units": {"enum": ["metric", "imperial"], "default": "metric"},
        },
        "required": ["where"],
    }
    strict = strict_schema(schema)
    assert strict["properties"]["where"]["additionalProperties"] is False
    assert strict["properties"]["where"]["required"] == ["city", "zip"]
    assert strict["properties"]["units"]["anyOf"] == [{"enum": ["metric", "imperial"]}, {"type": "null"}]
    assert schema["properties"]["units"]["default"] == "metric", "the published schema is left alone"


async def test_nulls_strict_mode_added_are_dropped_before_the_server_sees_them() -> None:
    tool = (await tools_of(basics))["system_get_cpu_usage"]
    sent = {"interval_seconds": None, "per_core": True}
    assert arguments_for_server("openai", tool, sent) == {"per_core": True}
    assert arguments_for_server("anthropic", tool, sent) == sent, "Anthropic gets the schema as published"
    nullable = {"type": "object", "properties": {"note": {"anyOf": [{"type": "string"}, {"type": "null"}]}}}
    assert omit_added_nulls({"note": None}, nullable) == {"note": None}, "a null the schema allows is kept"


def test_results_go_where_each_format_wants_them() -> None:
    ok = CallToolResult(content=[TextContent(type="text", text="12 mi = 19.312128 km")])
    failed = CallToolResult(
        content=[TextContent(type="text", text="to_unit 'parsec' is not a unit.")], is_error=True
    )
    assert anthropic_tool_result("toolu_1", ok) == {
        "type": "tool_result",
        "tool_use_id": "toolu_1",
        "content": [{"type": "text", "text": "12 mi = 19.312128 km"}],
        "is_error": False,
    }
    assert anthropic_tool_result("toolu_2", failed)["is_error"] is True
    assert openai_tool_message("call_1", ok) == {
        "role": "tool",
        "tool_call_id": "call_1",
        "content": "12 mi = 19.312128 km",
    }
    assert openai_tool_message("call_2", failed)["content"] == "Error: to_unit 'parsec' is not a unit."


def test_images_pass_to_anthropic_and_are_named_for_openai() -> None:
    result = CallToolResult(content=[ImageContent(type="image", data="iVBORw0KGgo=", mime_type="image/png")])
    [block] = anthropic_tool_result("toolu_1", result)["content"]
    assert block == {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="},
    }
    assert openai_tool_message("call_1", result)["content"] == "[image/png image, not shown]"


def test_structured_content_without_text_is_sent_as_json() -> None:
    result = CallToolResult(content=[], structured_content={"value": 19.312128, "unit": "km"})
    assert openai_tool_message("call_1", result)["content"] == '{"value": 19.312128, "unit": "km"}'


def test_request_bodies_put_results_after_the_request_and_never_in_the_system_prompt() -> None:
    call = ToolCall.of("id_1", "units_convert", {"value": 12, "from_unit": "mi", "to_unit": "km"})
    result = CallToolResult(content=[TextContent(type="text", text="12 mi = 19.312128 km")])
    conversation: list[Message] = [
        PersonMessage("How far is 12 miles?"),
        ModelMessage("Converting.", (call,)),
        ToolResults((ToolResult(call, result, "convert", 0.01),), 0.01),
    ]
    anthropic = request_body("anthropic", "Be brief.", [], conversation)
    assert anthropic["system"] == "Be brief."
    assert [message["role"] for message in anthropic["messages"]] == ["user", "assistant", "user"]
    assert anthropic["messages"][1]["content"][1]["input"] == {
        "value": 12,
        "from_unit": "mi",
        "to_unit": "km",
    }
    assert anthropic["messages"][2]["content"][0]["tool_use_id"] == "id_1"

    openai = request_body("openai", "Be brief.", [], conversation)
    assert [message["role"] for message in openai["messages"]] == ["system", "user", "assistant", "tool"]
    assert openai["messages"][0]["content"] == "Be brief."
    assert openai["messages"][2]["tool_calls"][0]["function"]["arguments"] == call.arguments
