"""One conversation, independent of any provider's wire format: who said what, and which call got which result.

The loop keeps the conversation in this shape; `formats` renders it as Anthropic Messages or OpenAI Chat
Completions, so the same turn can be sent to either provider, counted, printed and checked.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from mcp_types import CallToolResult


@dataclass(frozen=True)
class ToolCall:
    """A tool request the model wrote: an id to answer, a tool name, and the arguments as JSON text.

    Arguments stay the text the model wrote, so a transcript can show a malformed request exactly as it
    was sent; `parsed_arguments` says whether the host can use it.
    """

    id: str
    name: str
    arguments: str

    @classmethod
    def of(cls, id: str, name: str, arguments: dict[str, Any]) -> ToolCall:
        return cls(id, name, json.dumps(arguments, ensure_ascii=False))

    def parsed_arguments(self) -> dict[str, Any] | None:
        """The arguments as an object, or None when they are not a JSON object."""
        try:
            value = json.loads(self.arguments or "{}")
        except json.JSONDecodeError:
            return None
        return value if isinstance(value, dict) else None


@dataclass(frozen=True)
class PersonMessage:
    text: str


@dataclass(frozen=True)
class ModelMessage:
    """One model reply: optional text, then any number of tool requests to run before it continues."""

    text: str
    calls: tuple[ToolCall, ...] = ()


@dataclass(frozen=True)
class ToolResult:
    """The answer to one call, as the host adds it: from a server, or written by the host itself."""

    call: ToolCall
    result: CallToolResult
    answered_by: str  # the server's name, or "host" when the host refused the call itself
    seconds: float


@dataclass(frozen=True)
class ToolResults:
    """All results for one model reply, in the order of its calls."""

    results: tuple[ToolResult, ...]
    seconds: float  # wall time to run them all; less than the sum when they ran concurrently


Message = PersonMessage | ModelMessage | ToolResults
