"""Claude through Anthropic's Messages API and its official SDK (the `anthropic` extra).

The request is `formats.request_body("anthropic", ...)` with two prompt-cache marks added: one on the last
tool definition and one on the system prompt. The cache covers the prefix up to each mark (tools first,
then system), so from the second request on the definitions are read from the cache instead of paid in
full (Anthropic, "Prompt caching": reads cost 0.1x the input price, writes 1.25x; a prefix shorter than
the model's minimum, 1,024 to 4,096 tokens, is not cached at all).
"""

from __future__ import annotations

import copy
from typing import Any

import anthropic

from instruments.host.formats import Wire, request_body
from instruments.host.models import ModelReply, ModelRequest, ModelUnavailable
from instruments.host.transcript import ModelMessage, ToolCall

CACHE_MARK = {"type": "ephemeral"}
MAX_TOKENS = 2048


class AnthropicModel:
    wire: Wire = "anthropic"

    def __init__(self, model: str, client: anthropic.AsyncAnthropic | None = None) -> None:
        self.name = f"anthropic:{model}"
        self._model = model
        self._client = client or anthropic.AsyncAnthropic()

    async def reply(self, request: ModelRequest) -> ModelReply:
        body = with_cache_marks(
            request_body("anthropic", request.system, request.tools, request.conversation)
        )
        try:
            message = await self._client.messages.create(model=self._model, max_tokens=MAX_TOKENS, **body)
        except anthropic.APIStatusError as error:
            raise ModelUnavailable(
                f"Anthropic refused the request ({error.status_code}): {error.message}"
            ) from None
        except anthropic.APIConnectionError:
            raise ModelUnavailable(
                "Could not reach Anthropic's API; check the network and try again."
            ) from None
        text = "".join(block.text for block in message.content if block.type == "text")
        calls = tuple(
            ToolCall.of(block.id, block.name, block.input)
            for block in message.content
            if block.type == "tool_use"
        )
        return ModelReply(ModelMessage(text, calls), message.stop_reason or "unknown")


def with_cache_marks(body: dict[str, Any]) -> dict[str, Any]:
    """Mark the tool definitions and the system prompt as a cacheable prefix; drop parts that are empty."""
    marked = copy.deepcopy(body)  # the loop's own body stays as it was counted and checked
    if marked["tools"]:
        marked["tools"][-1]["cache_control"] = CACHE_MARK
    else:
        del marked["tools"]
    if marked["system"]:
        marked["system"] = [{"type": "text", "text": marked["system"], "cache_control": CACHE_MARK}]
    else:
        del marked["system"]
    return marked
