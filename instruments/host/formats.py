"""MCP tools and results in the two wire formats models read: Anthropic Messages and OpenAI Chat Completions.

Definitions go in the request's `tools`, re-sent on every request. Results go only where the format puts
them: an Anthropic `tool_result` block at the start of the next user message, or an OpenAI `role: "tool"`
message right after the assistant's. Never in the system prompt: there a result's text would read as
instructions, not data (Anthropic, "Implementing tool use").
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Literal

from mcp_types import CallToolResult, ContentBlock, Tool

from instruments.definitions import anthropic_definition, openai_definition
from instruments.host.strict_schema import NotStrict, omit_added_nulls, strict_schema
from instruments.host.transcript import Message, ModelMessage, PersonMessage

Wire = Literal["anthropic", "openai"]
WIRE_NAMES: dict[Wire, str] = {"anthropic": "Anthropic Messages", "openai": "OpenAI Chat Completions"}


# --- definitions -------------------------------------------------------------------------------------


def anthropic_tool(tool: Tool) -> dict[str, Any]:
    return anthropic_definition(tool)


def openai_tool(tool: Tool) -> dict[str, Any]:
    """A function definition in strict mode when the schema allows it, else as published with strict off."""
    try:
        parameters, strict = strict_schema(tool.input_schema), True
    except NotStrict:
        parameters, strict = tool.input_schema, False
    definition = openai_definition(tool, parameters)
    definition["function"]["strict"] = strict
    return definition


def strict_refusal(tool: Tool) -> str | None:
    """Why `tool` goes to OpenAI with strict mode off, or None when it goes strict."""
    try:
        strict_schema(tool.input_schema)
    except NotStrict as reason:
        return str(reason)
    return None


def arguments_for_server(wire: Wire, tool: Tool, arguments: dict[str, Any]) -> dict[str, Any]:
    """Undo what the format added: strict mode's nulls for optional arguments mean 'not given'."""
    if wire == "openai" and strict_refusal(tool) is None:
        return omit_added_nulls(arguments, tool.input_schema)
    return arguments


# --- results -----------------------------------------------------------------------------------------


def anthropic_tool_result(call_id: str, result: CallToolResult) -> dict[str, Any]:
    blocks = [anthropic_block(block) for block in result.content] or [
        {"type": "text", "text": fallback(result)}
    ]
    return {"type": "tool_result", "tool_use_id": call_id, "content": blocks, "is_error": result.is_error}


def openai_tool_message(call_id: str, result: CallToolResult) -> dict[str, Any]:
    # A tool message carries text only, so an error is said in words; OpenAI has no is_error flag.
    text = result_text(result)
    return {"role": "tool", "tool_call_id": call_id, "content": f"Error: {text}" if result.is_error else text}


def result_text(result: CallToolResult) -> str:
    """Everything in a result as text: what a text-only format, or a person reading along, gets."""
    return "\n".join(block_text(block) for block in result.content) or fallback(result)


def anthropic_block(block: ContentBlock) -> dict[str, Any]:
    if block.type == "image":
        return {
            "type": "image",
            "source": {"type": "base64", "media_type": block.mime_type, "data": block.data},
        }
    return {"type": "text", "text": block_text(block)}


def block_text(block: ContentBlock) -> str:
    if block.type == "text":
        return block.text
    if block.type == "resource":
        contents = block.resource
        return getattr(contents, "text", None) or f"[binary resource {contents.uri}, not shown]"
    if block.type == "resource_link":
        return f"[resource {block.name}: {block.uri}]"
    return f"[{block.mime_type} {block.type}, not shown]"


def fallback(result: CallToolResult) -> str:
    """Servers SHOULD send structured content as text too; when one does not, the host does."""
    if result.structured_content is not None:
        return json.dumps(result.structured_content, ensure_ascii=False)
    return "(the tool returned nothing)"


# --- conversations and requests ----------------------------------------------------------------------


def anthropic_messages(message: Message) -> list[dict[str, Any]]:
    if isinstance(message, PersonMessage):
        return [{"role": "user", "content": message.text}]
    if isinstance(message, ModelMessage):
        text = [{"type": "text", "text": message.text}] if message.text else []
        uses = [
            # Anthropic models always send an object; {} only stands in for a scripted model's malformed text.
            {"type": "tool_use", "id": call.id, "name": call.name, "input": call.parsed_arguments() or {}}
            for call in message.calls
        ]
        return [{"role": "assistant", "content": text + uses}]
    blocks = [anthropic_tool_result(each.call.id, each.result) for each in message.results]
    return [{"role": "user", "content": blocks}]


def openai_messages(message: Message) -> list[dict[str, Any]]:
    if isinstance(message, PersonMessage):
        return [{"role": "user", "content": message.text}]
    if isinstance(message, ModelMessage):
        reply: dict[str, Any] = {"role": "assistant", "content": message.text or None}
        if message.calls:
            reply["tool_calls"] = [
                {
                    "id": call.id,
                    "type": "function",
                    "function": {"name": call.name, "arguments": call.arguments},
                }
                for call in message.calls
            ]
        return [reply]
    return [openai_tool_message(each.call.id, each.result) for each in message.results]


def wire_messages(wire: Wire, message: Message) -> list[dict[str, Any]]:
    """One conversation message in the wire format; OpenAI spends one message per tool result."""
    return anthropic_messages(message) if wire == "anthropic" else openai_messages(message)


def request_body(
    wire: Wire, system: str, tools: Sequence[Tool], conversation: Sequence[Message]
) -> dict[str, Any]:
    """The request a host sends for the next reply, less the model name and sampling settings."""
    messages = [part for message in conversation for part in wire_messages(wire, message)]
    if wire == "anthropic":
        return {"system": system, "tools": [anthropic_tool(tool) for tool in tools], "messages": messages}
    system_message = [{"role": "system", "content": system}] if system else []
    return {"messages": system_message + messages, "tools": [openai_tool(tool) for tool in tools]}
