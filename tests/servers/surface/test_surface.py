"""The shared surface module's rules, on small servers defined here rather than on any real one."""

from __future__ import annotations

import logging
from importlib import metadata
from typing import Annotated, Literal

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS, ToolAnnotations
from pydantic import BaseModel, Field

from instruments.tokens import ESTIMATE, count_tokens, definition_tokens
from servers.surface import (
    LOCAL_READ_ONLY,
    Reply,
    ToolFailure,
    ToolServer,
    bound_text,
    clean_schema,
    closest_argument,
    max_result_chars,
)
from servers.surface.sdk import SDK_VERSIONS_CHECKED
from tests.support import error_text


class Echo(BaseModel):
    text: str = Field(description="What was echoed.")


def make_server() -> ToolServer:
    server = ToolServer("demo", namespaces=["demo"])

    @server.tool(title="Repeat", annotations=LOCAL_READ_ONLY, hints={"times": "Ask for 5 at most."})
    def demo_repeat(
        word: Annotated[str, Field(min_length=1, max_length=20, description="Word to repeat.")],
        times: Annotated[int, Field(ge=1, le=5, description="How often.")] = 2,
        style: Annotated[Literal["plain", "loud"], Field(description="How to write it.")] = "plain",
        ratio: Annotated[float, Field(allow_inf_nan=False, description="Any finite number.")] = 1.0,
    ) -> Reply[Echo]:
        """Repeat a word. Use it to test. Do not use it for anything else. Returns the words."""
        text = " ".join([word.upper() if style == "loud" else word] * times)
        return Reply(text, Echo(text=text))

    @server.tool(title="Long", annotations=LOCAL_READ_ONLY, max_chars=300, narrow_hint="ask for fewer lines")
    def demo_long(lines: Annotated[int, Field(ge=1, le=1000, description="How many lines.")]) -> str:
        """Write many lines. Use it to test bounds."""
        return "\n".join(f"line {n}" for n in range(lines))

    @server.tool(title="Long data", annotations=LOCAL_READ_ONLY, max_chars=300, narrow_hint="ask for less")
    def demo_long_data(
        size: Annotated[int, Field(ge=1, le=10_000, description="Characters.")],
    ) -> Reply[Echo]:
        """Echo a long text. Use it to test bounds on structured results."""
        return Reply("x", Echo(text="x" * size))

    @server.tool(title="Fail", annotations=LOCAL_READ_ONLY)
    def demo_fail(crash: Annotated[bool, Field(description="Crash instead of failing cleanly.")]) -> str:
        """Fail on purpose. Use it to test errors."""
        if crash:
            raise RuntimeError("secret internal detail at /srv/app.py line 3")
        raise ToolFailure("The thing is unavailable.", "Try again in a minute.")

    return server


@pytest.fixture
def server() -> ToolServer:
    return make_server()


async def call(server: ToolServer, name: str, arguments: dict[str, object]):
    async with Client(server) as client:
        return await client.call_tool(name, arguments)


async def test_published_schema_is_strict_and_free_of_noise(server: ToolServer) -> None:
    async with Client(server) as client:
        tool = next(t for t in (await client.list_tools()).tools if t.name == "demo_repeat")
    schema = tool.input_schema
    assert schema["additionalProperties"] is False
    assert schema["required"] == ["word"]
    assert "title" not in schema
    for prop in schema["properties"].values():
        assert "title" not in prop
        assert prop["description"]
    assert schema["properties"]["times"] == {
        "default": 2,
        "description": "How often.",
        "maximum": 5,
        "minimum": 1,
        "type": "integer",
    }
    assert schema["properties"]["style"]["enum"] == ["plain", "loud"]
    assert tool.output_schema is not None
    assert "title" not in tool.output_schema
    assert tool.title == "Repeat"
    assert tool.annotations == LOCAL_READ_ONLY


async def test_valid_call_returns_text_and_structured_content(server: ToolServer) -> None:
    result = await call(server, "demo_repeat", {"word": "hi", "times": 3, "style": "loud"})
    assert not result.is_error
    assert result.content[0].text == "HI HI HI"
    assert result.structured_content == {"text": "HI HI HI"}


async def test_unknown_argument_is_rejected_with_a_guess(server: ToolServer) -> None:
    text = error_text(await call(server, "demo_repeat", {"word": "hi", "tims": 3}))
    assert text == (
        "tims is not an argument of demo_repeat, which takes only word, times, style, ratio. "
        "Did you mean times? Remove it and call again."
    )


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"word": "hi", "times": "2"}, 'times must be an integer from 1 to 5; got "2". Send times as a bare'),
        (
            {"word": "hi", "times": True},
            "times must be an integer from 1 to 5; got true. Call again with times",
        ),
        ({"word": "hi", "times": 1.5}, "times must be an integer from 1 to 5; got 1.5."),
        ({"word": 7}, "word must be a text of 1 to 20 characters; got 7."),
        ({"word": "hi", "style": "LOUD"}, 'style must be one of "plain", "loud"; got "LOUD".'),
        ({"word": "hi", "ratio": "1.0"}, 'ratio must be a finite number; got "1.0".'),
    ],
)
async def test_wrong_json_type_is_rejected_not_coerced(
    server: ToolServer, arguments: dict[str, object], expected: str
) -> None:
    assert error_text(await call(server, "demo_repeat", arguments)).startswith(expected)


async def test_a_whole_number_written_as_a_float_is_an_integer(server: ToolServer) -> None:
    # JSON Schema's "integer" admits 3.0, so refusing it would break the published contract.
    result = await call(server, "demo_repeat", {"word": "hi", "times": 3.0})
    assert result.content[0].text == "hi hi hi"


async def test_out_of_range_names_the_bounds_and_uses_the_tool_hint(server: ToolServer) -> None:
    text = error_text(await call(server, "demo_repeat", {"word": "hi", "times": 9}))
    assert text == "times must be an integer from 1 to 5; got 9. Ask for 5 at most."


async def test_missing_and_empty_arguments(server: ToolServer) -> None:
    assert error_text(await call(server, "demo_repeat", {})) == (
        "word is required: a text of 1 to 20 characters. Call again with word set."
    )
    assert error_text(await call(server, "demo_repeat", {"word": ""})).startswith(
        'word must be a text of 1 to 20 characters; got "".'
    )


async def test_long_input_is_never_echoed_whole(server: ToolServer) -> None:
    text = error_text(await call(server, "demo_repeat", {"word": "w" * 10_000}))
    assert "a text of 10000 characters" in text
    assert "w" * 30 not in text


@pytest.mark.parametrize("value", [float("inf"), float("-inf"), float("nan")])
async def test_non_finite_numbers_are_rejected(server: ToolServer, value: float) -> None:
    text = error_text(await call(server, "demo_repeat", {"word": "hi", "ratio": value}))
    assert text.startswith("ratio must be a finite number; got")


async def test_every_problem_gets_its_own_line(server: ToolServer) -> None:
    text = error_text(await call(server, "demo_repeat", {"times": 0, "style": 1, "extra": 2}))
    assert [line.split(" ")[0] for line in text.splitlines()] == ["word", "times", "style", "extra"]


async def test_tool_failure_reads_as_message_then_next_step(server: ToolServer) -> None:
    assert error_text(await call(server, "demo_fail", {"crash": False})) == (
        "The thing is unavailable. Try again in a minute."
    )


async def test_unexpected_exception_is_generic_for_the_model_and_logged_in_full(
    server: ToolServer, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.ERROR):
        text = error_text(await call(server, "demo_fail", {"crash": True}))
    assert "not because of your arguments" in text
    assert "secret" not in text
    assert any("secret internal detail" in str(record.exc_info) for record in caplog.records)


async def test_unknown_tool_is_a_protocol_error(server: ToolServer) -> None:
    async with Client(server) as client:
        with pytest.raises(MCPError) as raised:
            await client.call_tool("demo_nope", {})
    assert raised.value.error.code == INVALID_PARAMS
    assert "demo_nope" in raised.value.error.message


async def test_long_text_is_cut_with_a_note_on_how_to_ask_for_less(server: ToolServer) -> None:
    result = await call(server, "demo_long", {"lines": 1000})
    text = result.content[0].text
    assert not result.is_error
    assert len(text) <= 300
    assert text.startswith("line 0\nline 1")
    assert text.endswith("characters. To see the rest, ask for fewer lines.]")


async def test_bound_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_MAX_RESULT_CHARS", "500")
    server = ToolServer("env", namespaces=["env"])

    @server.tool(title="Big", annotations=LOCAL_READ_ONLY)
    def env_big(size: Annotated[int, Field(ge=1, le=9999, description="Characters.")]) -> str:
        """Write a long text. Use it to test bounds."""
        return "y" * size

    assert len((await call(server, "env_big", {"size": 9999})).content[0].text) == 500
    assert (await call(server, "env_big", {"size": 400})).content[0].text == "y" * 400


async def test_structured_result_over_the_bound_is_refused_not_cut_invalid(server: ToolServer) -> None:
    assert not (await call(server, "demo_long_data", {"size": 100})).is_error
    text = error_text(await call(server, "demo_long_data", {"size": 5000}))
    assert text == "The result is larger than the 300-character limit. To get it, ask for less."


def test_bound_text_keeps_short_text_and_cuts_long_text_to_the_limit() -> None:
    assert bound_text("short", 100, "ask for less") == "short"
    cut = bound_text("z" * 1000, 200, "ask for less")
    assert len(cut) == 200
    assert "[Cut: showing" in cut
    assert "of 1000 characters" in cut


def test_clean_schema_drops_titles_but_keeps_a_property_named_title() -> None:
    schema = {"title": "M", "properties": {"title": {"title": "Title", "type": "string"}}}
    assert clean_schema(schema) == {"properties": {"title": {"type": "string"}}}


def good_tool(x: Annotated[int, Field(description="A number.")]) -> str:
    """Do a thing."""
    return str(x)


def undescribed_tool(x: int) -> str:
    """Do a thing."""
    return str(x)


def no_docstring_tool(x: Annotated[int, Field(description="A number.")]) -> str:
    return str(x)


@pytest.mark.parametrize(
    ("fn", "name", "title", "annotations", "refusal"),
    [
        (good_tool, "other_thing", "T", LOCAL_READ_ONLY, "must start with a namespace"),
        (good_tool, "demo.thing", "T", LOCAL_READ_ONLY, "snake_case"),
        (good_tool, "demo_" + "x" * 60, "T", LOCAL_READ_ONLY, "at most 64"),
        (good_tool, "demo", "T", LOCAL_READ_ONLY, "snake_case"),
        (no_docstring_tool, "demo_thing", "T", LOCAL_READ_ONLY, "needs a description"),
        (good_tool, "demo_thing", "", LOCAL_READ_ONLY, "needs a title"),
        (good_tool, "demo_thing", "T", None, "all four annotation hints"),
        (good_tool, "demo_thing", "T", ToolAnnotations(read_only_hint=True), "all four annotation hints"),
        (undescribed_tool, "demo_thing", "T", LOCAL_READ_ONLY, "describe every parameter"),
    ],
)
def test_registration_refuses_what_a_model_could_not_read_well(fn, name, title, annotations, refusal) -> None:
    server = ToolServer("demo", namespaces=["demo"])
    with pytest.raises(ValueError, match=refusal):
        server.add_tool(fn, name=name, title=title, annotations=annotations)


def test_registration_refuses_a_return_type_without_a_schema() -> None:
    server = ToolServer("demo", namespaces=["demo"])

    def demo_dict(x: Annotated[int, Field(description="A number.")]) -> dict[str, int]:
        """Return a dict."""
        return {"x": x}

    with pytest.raises(TypeError, match="must return str or Reply"):
        server.add_tool(demo_dict, title="Dict", annotations=LOCAL_READ_ONLY)


async def test_definition_tokens_are_real_counts_when_the_encoding_is_bundled(server: ToolServer) -> None:
    async with Client(server) as client:
        tool = (await client.list_tools()).tools[0]
    count = definition_tokens(tool)
    assert count.method == "cl100k_base"
    assert 50 < count.tokens < 400
    assert count_tokens("hello world").tokens == 2


def test_token_count_falls_back_to_a_labelled_estimate(monkeypatch: pytest.MonkeyPatch) -> None:
    import instruments.tokens as tokens

    monkeypatch.setattr(tokens, "_cl100k", lambda: None)
    assert tokens.count_tokens("abcdefgh") == tokens.TokenCount(2, ESTIMATE)


async def test_lists_and_calls_through_the_public_methods(server: ToolServer) -> None:
    # ToolServer keeps its own tools; the SDK must still reach them through list_tools and call_tool
    # (servers/surface/sdk.py). If it stops doing so, a client sees no tools and calls fail.
    async with Client(server) as client:
        listed = (await client.list_tools()).tools
        result = await client.call_tool("demo_repeat", {"word": "hi"})
    assert listed == await server.list_tools()
    assert [tool.name for tool in listed] == ["demo_repeat", "demo_long", "demo_long_data", "demo_fail"]
    assert result.structured_content == {"text": "hi hi"}


async def test_server_info_carries_the_installed_version(server: ToolServer) -> None:
    async with Client(server) as client:
        assert client.server_info is not None
        version = client.server_info.version
    assert version == metadata.version("mcp-surface-suite")


@pytest.mark.parametrize("verb", ["get", "convert", "list", "search", "fetch", "run"])
def test_a_common_verb_is_refused_as_a_namespace(verb: str) -> None:
    with pytest.raises(ValueError, match=f"namespace '{verb}' of demo is a common verb"):
        ToolServer("demo", namespaces=["demo", verb])


@pytest.mark.parametrize(
    ("sent", "meant"),
    [
        ("to", "to_unit"),
        ("from", "from_unit"),
        ("fromUnit", "from_unit"),
        ("TO-UNIT", "to_unit"),
        ("unit", None),  # a word of both: no guess beats a wrong one
        ("valeu", "value"),
        ("precision", None),
    ],
)
def test_an_unknown_argument_gets_its_closest_real_name(sent: str, meant: str | None) -> None:
    assert closest_argument(sent, ["value", "from_unit", "to_unit"]) == meant


@pytest.mark.parametrize("raw", ["abc", "0", "199", "-500", "4k"])
def test_a_bound_that_cannot_work_is_refused_with_the_variable_and_minimum(
    monkeypatch: pytest.MonkeyPatch, raw: str
) -> None:
    monkeypatch.setenv("MCP_MAX_RESULT_CHARS", raw)
    with pytest.raises(ValueError, match="at least 200") as refused:
        max_result_chars()
    assert str(refused.value) == (
        f"MCP_MAX_RESULT_CHARS must be a whole number of characters, at least 200 (default 4000); got {raw!r}."
    )


def test_the_installed_sdk_is_one_sdk_py_was_checked_against() -> None:
    # An SDK upgrade must come with a fresh read of what servers/surface/sdk.py lists.
    assert metadata.version("mcp") in SDK_VERSIONS_CHECKED
