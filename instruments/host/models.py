"""What the host loop needs from a model, and the deterministic one that tests and the demo use.

A model sees a request (system prompt, tool definitions, conversation) and writes one reply: text, tool
requests, or both. Adapters for real providers live in `anthropic_model` and `openai_model`; they render
the same request in their wire format with `formats.request_body`, so what the loop counts and checks is
what the provider reads.
"""

from __future__ import annotations

import importlib
import itertools
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from mcp_types import Tool

from instruments.host.formats import Wire, result_text
from instruments.host.transcript import Message, ModelMessage, ToolCall, ToolResults


@dataclass(frozen=True)
class ModelRequest:
    system: str
    tools: tuple[Tool, ...]
    conversation: tuple[Message, ...]


@dataclass(frozen=True)
class ModelReply:
    message: ModelMessage
    stop_reason: str  # the provider's own word: end_turn, tool_use, max_tokens, stop, tool_calls, length, ...


class Model(Protocol):
    name: str
    wire: Wire  # the format its transcript is kept, counted and checked in

    async def reply(self, request: ModelRequest) -> ModelReply: ...


class ModelUnavailable(Exception):
    """The model cannot be used or did not answer; the message is one line for the person running the host."""


# Replies that mean "I am done", per provider; anything else that ends a turn is worth reporting.
FINISHED = {"end_turn", "stop_sequence", "stop"}


class ScriptedModel:
    """A model that follows a script: each reply asks for the next batch of calls, then it answers.

    The answer is written by `answer` from the request it receives, so it is built from the results the
    tools actually returned, not from what the script expected them to be.
    """

    name = "scripted"

    def __init__(
        self,
        batches: Sequence[Sequence[ToolCall]],
        answer: Callable[[ModelRequest], str],
        wire: Wire = "anthropic",
    ) -> None:
        self.wire: Wire = wire
        self._batches = list(batches)
        self._answer = answer
        self._replies = itertools.count()

    async def reply(self, request: ModelRequest) -> ModelReply:
        index = next(self._replies)
        if index < len(self._batches):
            return ModelReply(ModelMessage("", tuple(self._batches[index])), "tool_use")
        return ModelReply(ModelMessage(self._answer(request)), "end_turn")


def received_results(request: ModelRequest) -> tuple[ToolResults, ...]:
    """The tool results the model has received, oldest first."""
    return tuple(message for message in request.conversation if isinstance(message, ToolResults))


def quote_results(request: ModelRequest) -> str:
    """A scripted answer for any server: each result quoted, errors said as errors."""
    lines = [
        f"{each.call.name} {'failed' if each.result.is_error else 'returned'}: {result_text(each.result)}"
        for results in received_results(request)
        for each in results.results
    ]
    return (
        "\n".join(lines)
        or "I am a scripted model and no tool calls were scripted, so I have nothing to report."
    )


def model_from_spec(spec: str) -> Model:
    """`anthropic:MODEL` or `openai:MODEL`; raises ModelUnavailable saying what is missing."""
    provider, _, model = spec.partition(":")
    adapters = {
        "anthropic": ("ANTHROPIC_API_KEY", "instruments.host.anthropic_model", "AnthropicModel"),
        "openai": ("OPENAI_API_KEY", "instruments.host.openai_model", "OpenAIModel"),
    }
    if provider not in adapters or not model:
        raise ModelUnavailable(f"Unknown model {spec!r}: use scripted, anthropic:MODEL or openai:MODEL.")
    key, module_name, class_name = adapters[provider]
    if not os.environ.get(key):
        raise ModelUnavailable(f"{spec} needs {key} set in the environment.")
    try:
        module = importlib.import_module(module_name)
    except ImportError:
        raise ModelUnavailable(
            f"{spec} needs the {provider} extra: pip install 'mcp-surface-suite[{provider}]'."
        ) from None
    adapter: Model = getattr(module, class_name)(model)
    return adapter
