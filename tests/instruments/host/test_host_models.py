"""The real model adapters, offline: the providers' documented response shapes replayed through their SDKs' transports."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any

import anthropic
import httpx2
import openai
import pytest

from instruments.host.anthropic_model import AnthropicModel
from instruments.host.checker import check
from instruments.host.formats import request_body
from instruments.host.loop import SYSTEM_PROMPT, run_turn
from instruments.host.models import ModelUnavailable, model_from_spec
from instruments.host.openai_model import OpenAIModel
from instruments.host.toolbox import connect
from servers.convert.server import mcp as convert

QUESTION = "How far is 12 miles in km?"
MILES = {"value": 12, "from_unit": "mi", "to_unit": "km"}

# Anthropic Messages API: a reply that asks for a tool, then one that answers (shapes from the API reference).
CLAUDE_ASKS = {
    "id": "msg_01",
    "type": "message",
    "role": "assistant",
    "model": "claude-sonnet-5",
    "content": [
        {"type": "text", "text": "I'll convert that."},
        {"type": "tool_use", "id": "toolu_01A", "name": "units_convert", "input": MILES},
    ],
    "stop_reason": "tool_use",
    "stop_sequence": None,
    "usage": {
        "input_tokens": 700,
        "output_tokens": 60,
        "cache_creation_input_tokens": 650,
        "cache_read_input_tokens": 0,
    },
}
CLAUDE_ANSWERS = {
    **CLAUDE_ASKS,
    "id": "msg_02",
    "content": [{"type": "text", "text": "12 miles is about 19.3 km."}],
    "stop_reason": "end_turn",
}

# OpenAI Chat Completions: the same two replies.
GPT_ASKS = {
    "id": "chatcmpl-1",
    "object": "chat.completion",
    "created": 1754000000,
    "model": "gpt-5",
    "choices": [
        {
            "index": 0,
            "message": {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "units_convert", "arguments": json.dumps(MILES)},
                    }
                ],
            },
            "finish_reason": "tool_calls",
            "logprobs": None,
        }
    ],
    "usage": {"prompt_tokens": 700, "completion_tokens": 30, "total_tokens": 730},
}
GPT_ANSWERS = {
    **GPT_ASKS,
    "id": "chatcmpl-2",
    "choices": [
        {
            "index": 0,
            "message": {"role": "assistant", "content": "12 miles is about 19.3 km."},
            "finish_reason": "stop",
            "logprobs": None,
        }
    ],
}


class Replay:
    """An HTTP transport that answers each request with the next recorded response and keeps the bodies sent."""

    def __init__(self, *responses: tuple[int, dict[str, Any]]) -> None:
        self.responses = list(responses)
        self.sent: list[dict[str, Any]] = []

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        self.sent.append(json.loads(request.content))
        status, body = self.responses.pop(0)
        return httpx2.Response(status, json=body)

    def client(self) -> httpx2.AsyncClient:
        return httpx2.AsyncClient(transport=httpx2.MockTransport(self))


def claude(replay: Replay) -> AnthropicModel:
    client = anthropic.AsyncAnthropic(api_key="test-key", http_client=replay.client(), max_retries=0)
    return AnthropicModel("claude-sonnet-5", client)


def gpt(replay: Replay) -> OpenAIModel:
    client = openai.AsyncOpenAI(api_key="test-key", http_client=replay.client(), max_retries=0)
    return OpenAIModel("gpt-5", client)


@pytest.mark.parametrize(
    ("make_model", "asks", "answers"),
    [(claude, CLAUDE_ASKS, CLAUDE_ANSWERS), (gpt, GPT_ASKS, GPT_ANSWERS)],
)
async def test_a_real_adapter_drives_the_loop_to_an_answer(
    make_model: Callable[[Replay], AnthropicModel | OpenAIModel],
    asks: dict[str, Any],
    answers: dict[str, Any],
) -> None:
    replay = Replay((200, asks), (200, answers))
    model = make_model(replay)
    async with connect([convert]) as toolbox:
        turn = await run_turn(QUESTION, model=model, toolbox=toolbox)
        transcript = request_body(model.wire, SYSTEM_PROMPT, toolbox.tools, turn.conversation)

    assert turn.stop.reason == "answered"
    assert len(replay.sent) == len(turn.requests) == 2
    assert turn.conversation[-1].text == "12 miles is about 19.3 km."  # type: ignore[union-attr]
    assert check(transcript).defects == ()
    # The second request carries the real result from the convert server, pasted back by the host.
    assert "19.312128" in json.dumps(replay.sent[1]["messages"])
    assert all(body["model"] == model.name.split(":", 1)[1] for body in replay.sent)


async def test_anthropic_requests_mark_definitions_and_system_prompt_for_the_prompt_cache() -> None:
    replay = Replay((200, CLAUDE_ASKS), (200, CLAUDE_ANSWERS))
    async with connect([convert]) as toolbox:
        await run_turn(QUESTION, model=claude(replay), toolbox=toolbox)
    for body in replay.sent:
        assert body["tools"][-1]["cache_control"] == {"type": "ephemeral"}
        assert body["system"] == [
            {"type": "text", "text": SYSTEM_PROMPT, "cache_control": {"type": "ephemeral"}}
        ]
    first, second = replay.sent
    assert first["tools"] == second["tools"], "the cached prefix must be byte-identical across requests"
    # Results go in a user message right after the request, tool_result first, never in the system prompt.
    [result] = second["messages"][2]["content"]
    assert (result["type"], result["tool_use_id"], result["is_error"]) == ("tool_result", "toolu_01A", False)


async def test_openai_requests_use_the_system_message_and_function_tools() -> None:
    replay = Replay((200, GPT_ASKS), (200, GPT_ANSWERS))
    async with connect([convert]) as toolbox:
        await run_turn(QUESTION, model=gpt(replay), toolbox=toolbox)
    second = replay.sent[1]
    assert second["messages"][0] == {"role": "system", "content": SYSTEM_PROMPT}
    assert second["tools"][0]["type"] == "function"
    assert second["tools"][0]["function"]["strict"] is False  # units_convert needs minLength/maxLength
    assert second["messages"][-1]["role"] == "tool"
    assert second["messages"][-1]["tool_call_id"] == "call_1"


@pytest.mark.parametrize("make_model", [claude, gpt])
async def test_a_refused_request_is_one_clear_line(make_model: Callable[[Replay], Any]) -> None:
    error = {"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}}
    replay = Replay((401, error))
    async with connect([convert]) as toolbox:
        with pytest.raises(ModelUnavailable, match=r"refused the request \(401\)"):
            await run_turn(QUESTION, model=make_model(replay), toolbox=toolbox)


def test_a_real_model_without_its_key_says_which_variable_to_set(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(ModelUnavailable, match="anthropic:claude-sonnet-5 needs ANTHROPIC_API_KEY"):
        model_from_spec("anthropic:claude-sonnet-5")
    with pytest.raises(ModelUnavailable, match="use scripted, anthropic:MODEL or openai:MODEL"):
        model_from_spec("gemini:pro")


def test_a_real_model_is_built_when_its_key_is_set(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    model = model_from_spec("openai:gpt-5")
    assert (model.name, model.wire) == ("openai:gpt-5", "openai")


def test_a_real_model_without_its_extra_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    monkeypatch.setitem(
        sys.modules, "instruments.host.anthropic_model", None
    )  # as if the SDK were not installed
    with pytest.raises(
        ModelUnavailable, match=r"needs the anthropic extra: pip install 'mcp-surface-suite\[anthropic\]'"
    ):
        model_from_spec("anthropic:claude-sonnet-5")
