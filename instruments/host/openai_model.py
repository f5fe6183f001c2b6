"""GPT models through OpenAI's Chat Completions API and its official SDK (the `openai` extra).

The request is `formats.request_body("openai", ...)`: tools go in strict mode where their schema allows.
OpenAI's function-calling guide notes that arguments of parallel calls may not follow a strict schema; parallel
calls stay on here, because they save whole requests and our servers validate every call anyway.
OpenAI caches long prompt prefixes on its own, with no marks to set, so nothing is added for caching.
"""

from __future__ import annotations

import openai

from instruments.host.formats import Wire, request_body
from instruments.host.models import ModelReply, ModelRequest, ModelUnavailable
from instruments.host.transcript import ModelMessage, ToolCall


class OpenAIModel:
    wire: Wire = "openai"

    def __init__(self, model: str, client: openai.AsyncOpenAI | None = None) -> None:
        self.name = f"openai:{model}"
        self._model = model
        self._client = client or openai.AsyncOpenAI()

    async def reply(self, request: ModelRequest) -> ModelReply:
        body = request_body("openai", request.system, request.tools, request.conversation)
        if not body["tools"]:
            del body["tools"]
        try:
            completion = await self._client.chat.completions.create(model=self._model, **body)
        except openai.APIStatusError as error:
            raise ModelUnavailable(
                f"OpenAI refused the request ({error.status_code}): {error.message}"
            ) from None
        except openai.APIConnectionError:
            raise ModelUnavailable("Could not reach OpenAI's API; check the network and try again.") from None
        choice = completion.choices[0]
        calls = tuple(
            ToolCall(call.id, call.function.name, call.function.arguments)
            for call in choice.message.tool_calls or []
            if call.type == "function"
        )
        text = choice.message.content or choice.message.refusal or ""
        return ModelReply(ModelMessage(text, calls), choice.finish_reason)
