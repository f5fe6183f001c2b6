"""A tool's definition as each model API carries it: the one place the host, the audit and the token
counts take its shape from."""

from __future__ import annotations

from typing import Any

from mcp_types import Tool


def anthropic_definition(tool: Tool) -> dict[str, Any]:
    """The Messages API `tools` entry."""
    return {"name": tool.name, "description": tool.description or "", "input_schema": tool.input_schema}


def openai_definition(tool: Tool, parameters: dict[str, Any] | None = None) -> dict[str, Any]:
    """The Chat Completions `tools` entry, with the published schema unless `parameters` replaces it."""
    function = {
        "name": tool.name,
        "description": tool.description or "",
        "parameters": tool.input_schema if parameters is None else parameters,
    }
    return {"type": "function", "function": function}
