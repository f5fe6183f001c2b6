"""Token cost of tool definitions in each provider's shape."""

from __future__ import annotations

import json

from mcp import Client

from instruments.audit.costs import anthropic_shape, openai_shape, set_cost, token_method, tool_cost
from instruments.tokens import count_tokens, definition_tokens
from servers.basics.server import mcp as basics


async def test_costs_count_each_shape_with_the_real_tokenizer() -> None:
    async with Client(basics) as client:
        tools = (await client.list_tools()).tools
    assert token_method() == "cl100k_base"
    for tool in tools:
        cost = tool_cost(tool)
        assert cost.anthropic == definition_tokens(tool).tokens
        assert cost.openai == count_tokens(json.dumps(openai_shape(tool), separators=(",", ":"))).tokens
        # The OpenAI shape wraps the same text in {"type": "function", "function": {...}}.
        assert cost.openai > cost.anthropic
    assert anthropic_shape(tools[0])["input_schema"] == tools[0].input_schema
    whole = set_cost(tools)
    assert whole.anthropic >= sum(tool_cost(tool).anthropic for tool in tools)
