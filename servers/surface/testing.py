"""What a server's contract test checks beyond its pinned surface: that an error is one a model can act on.

A contract test imports this module and the server itself, nothing else of the suite, so it travels
with the server when the server is copied.
"""

from __future__ import annotations

import re
import sys

from mcp import StdioServerParameters
from mcp_types import CallToolResult

# What must never reach a model: internals it cannot act on, and noise that costs tokens.
FORBIDDEN = re.compile(
    r"Traceback|pydantic|validation error|errors\.pydantic|input_value|input_type|Error executing tool"
    r"|https?://|\.py\b|Exception|Error:|\bpint\.|httpx|\bNone\b",
)
MAX_ERROR_CHARS = 600


def error_text(result: CallToolResult) -> str:
    """The text of an is_error result, after checking it is one a model can act on."""
    assert result.is_error, f"expected an error result, got {result.content}"
    text = "".join(block.text for block in result.content if block.type == "text")
    assert not FORBIDDEN.search(text), f"forbidden noise in: {text!r}"
    assert len(text) <= MAX_ERROR_CHARS, f"error too long ({len(text)} chars): {text!r}"
    return text


def stdio_server(module: str, env: dict[str, str] | None = None) -> StdioServerParameters:
    """The real server process, as a host such as Claude Desktop starts it."""
    return StdioServerParameters(command=sys.executable, args=["-m", module], env=env)
