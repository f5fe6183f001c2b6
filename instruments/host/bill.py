"""The token bill of a turn: what each request to the model reads, part by part, and what it writes.

Every request re-reads the tool definitions, the system prompt and the whole conversation so far, so a
turn with k sequential tool calls is k + 1 requests, each larger than the last. Counts use `instruments.tokens`
(cl100k_base when available offline, else characters / 4, labelled) on the JSON the host sends; a
provider's own tokenizer differs somewhat and may add a tool-use system prompt of its own.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from mcp_types import Tool

from instruments.host.formats import Wire, anthropic_tool, openai_tool, wire_messages
from instruments.host.transcript import Message, ModelMessage, ToolResults
from instruments.tokens import count_tokens

# Anthropic's prompt-cache prices, as multiples of the input price (5-minute cache): a write costs
# 1.25x, a read 0.1x. Below a minimum prefix length (1,024 to 4,096 tokens by model) nothing is cached.
CACHE_WRITE = 1.25
CACHE_READ = 0.1
SMALLEST_CACHED_PREFIX = 1024


@dataclass(frozen=True)
class RequestBill:
    """Tokens one request to the model reads, by part, and the tokens of the reply it wrote."""

    definitions: int
    system: int
    conversation: int  # the person's and the model's messages
    tool_results: int
    written: int = 0

    @property
    def read(self) -> int:
        return self.definitions + self.system + self.conversation + self.tool_results

    @property
    def prefix(self) -> int:
        """The part every request repeats unchanged, which a prompt cache can hold."""
        return self.definitions + self.system


@dataclass(frozen=True)
class CacheEstimate:
    prefix: int
    without_cache: float  # input-token equivalents spent on the prefix over all requests
    with_cache: float

    @property
    def saved(self) -> float:
        return self.without_cache - self.with_cache

    @property
    def would_be_cached(self) -> bool:
        return self.prefix >= SMALLEST_CACHED_PREFIX


def tokens(value: Any) -> int:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return count_tokens(text).tokens


def counting_method() -> str:
    return count_tokens("").method


def measure_request(
    wire: Wire, system: str, tools: Sequence[Tool], conversation: Sequence[Message]
) -> RequestBill:
    definition = anthropic_tool if wire == "anthropic" else openai_tool
    system_part: Any = system if wire == "anthropic" else {"role": "system", "content": system}
    results = sum(tokens(wire_messages(wire, m)) for m in conversation if isinstance(m, ToolResults))
    others = sum(tokens(wire_messages(wire, m)) for m in conversation if not isinstance(m, ToolResults))
    return RequestBill(
        definitions=tokens([definition(tool) for tool in tools]) if tools else 0,
        system=tokens(system_part) if system else 0,
        conversation=others,
        tool_results=results,
    )


def measure_reply(wire: Wire, reply: ModelMessage) -> int:
    return tokens(wire_messages(wire, reply))


def cache_estimate(requests: Sequence[RequestBill]) -> CacheEstimate:
    """What the repeated prefix costs over these requests, paid in full versus written once and then read."""
    prefix = requests[0].prefix if requests else 0
    count = len(requests)
    with_cache = prefix * CACHE_WRITE + prefix * CACHE_READ * (count - 1) if count else 0.0
    return CacheEstimate(prefix, float(prefix * count), with_cache)
