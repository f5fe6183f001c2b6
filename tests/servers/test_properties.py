"""Property tests: every tool of every server, fuzzed from its own published inputSchema.

- Arguments the schema allows are accepted: never an argument-validation error.
- Arguments that break it (an unknown key, a wrong type or a value out of range, a missing required
  argument) come back as `is_error` naming the argument, short, without tracebacks, library or
  exception names or URLs.
- Nothing crashes the tool and no result exceeds the output bound.

Whether a value breaks a schema is decided by the jsonschema library, not by the code under test.
Calls go through the SDK's in-memory Client, driven from hypothesis through an anyio portal; weather
asks the replayed Open-Meteo on 127.0.0.1.
"""

from __future__ import annotations

import difflib
import json
import re
import unicodedata
from collections.abc import Iterator
from contextlib import ExitStack
from typing import Any

import anyio
import psutil
import pytest
from anyio.from_thread import BlockingPortal, start_blocking_portal
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_jsonschema import from_schema
from jsonschema import Draft202012Validator
from mcp import Client
from mcp_types import CallToolResult, Tool

from instruments.demo.replay import RECORDINGS, replay_open_meteo
from servers.basics.server import mcp as basics
from servers.convert.server import mcp as convert
from servers.convert.server import registry
from servers.surface import UNKNOWN_NAMES_COMPARED, ToolServer, max_result_chars
from servers.surface.logs import printable
from servers.surface.testing import MAX_ERROR_CHARS
from servers.weather.server import mcp as weather

SERVERS: dict[str, ToolServer] = {"convert": convert, "basics": basics, "weather": weather}
TOOLS: list[tuple[str, Tool]] = [
    (server_name, tool) for server_name, server in SERVERS.items() for tool in anyio.run(server.list_tools)
]
EVERY_TOOL = [pytest.param(server, tool, id=tool.name) for server, tool in TOOLS]
REQUIRED = [
    pytest.param(server, tool, id=tool.name) for server, tool in TOOLS if tool.input_schema.get("required")
]
Portal = tuple[BlockingPortal, dict[str, Client]]
FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# What a model must never read: tracebacks, exception or library names, URLs. As support.FORBIDDEN,
# except that pint counts as the library only when written pint.: US_pint is a unit convert suggests.
NOISE = re.compile(
    r"Traceback|\.py\b|\w+(Error|Exception)\b|Error:|<class|https?://|pydantic|input_value|input_type|"
    r"validation error|Error executing tool|\bpint\.|psutil|httpx|anyio|\bNone\b"
)
# What an argument-validation error says, in the surface module's words.
ARGUMENT_ERROR = re.compile(r"^\S+ (must be .*; got |is required: |is not an argument of )", re.MULTILINE)
CRASH = "internal problem in the server"

JSON_SCALARS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
JSON_VALUES = st.recursive(
    JSON_SCALARS | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=8,
)
ARGUMENT_NAMES = st.text(st.characters(blacklist_categories=("Cc", "Cs")), min_size=1, max_size=40)


@pytest.fixture(scope="module")
def portal() -> Iterator[Portal]:
    """One event loop in a thread, with one open in-memory session per server; weather's asks the
    replayed Open-Meteo on 127.0.0.1."""
    with replay_open_meteo(RECORDINGS) as urls, pytest.MonkeyPatch.context() as env:
        for name, value in urls.environment().items():
            env.setenv(name, value)
        with start_blocking_portal() as loop, ExitStack() as stack:
            clients = {}
            for name, server in SERVERS.items():
                clients[name] = stack.enter_context(loop.wrap_async_context_manager(Client(server)))
            yield loop, clients


@pytest.fixture(autouse=True)
def instant_cpu_samples(monkeypatch: pytest.MonkeyPatch) -> None:
    # system_get_cpu_usage samples for up to 3 s; fuzzing cares about its arguments, not the wait.
    measure = psutil.cpu_percent
    monkeypatch.setattr(psutil, "cpu_percent", lambda interval, percpu: measure(None, percpu=percpu))


def call(portal: Portal, server: str, tool: Tool, arguments: Any) -> str:
    """Call the tool; check what holds for every call; return the result's text."""
    loop, clients = portal
    result: CallToolResult = loop.call(clients[server].call_tool, tool.name, arguments)
    text = "\n".join(block.text for block in result.content if block.type == "text")
    assert CRASH not in text, text
    assert len(text) <= max_result_chars()
    if result.structured_content is not None:
        assert len(json.dumps(result.structured_content)) <= max_result_chars()
    if result.is_error and not NOISE.search(json.dumps(arguments, ensure_ascii=False)):
        # Checked only when the arguments themselves do not contain such words, as they may be echoed.
        assert not NOISE.search(text), text
    return text if not result.is_error else f"ERROR {text}"


def breaking(schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    """JSON values the property's schema refuses: other types, and values just past each limit."""
    candidates = [JSON_VALUES]
    if "minimum" in schema:
        low = schema["minimum"]
        below = st.floats(max_value=low, exclude_max=True, allow_infinity=False)
        candidates += [st.integers(max_value=int(low) - 1), below]
    if "maximum" in schema:
        high = schema["maximum"]
        above = st.floats(min_value=high, exclude_min=True, allow_infinity=False)
        candidates += [st.integers(min_value=int(high) + 1), above]
    if "maxLength" in schema:
        longest = schema["maxLength"]
        candidates.append(st.text(min_size=longest + 1, max_size=longest + 50))
    if "minItems" in schema:
        candidates.append(st.lists(st.integers(), max_size=schema["minItems"] - 1))
    if "maxItems" in schema:
        most = schema["maxItems"]
        candidates.append(st.lists(st.integers(), min_size=most + 1, max_size=most + 20))
    if "items" in schema:
        candidates.append(st.lists(JSON_VALUES, min_size=1, max_size=3))
    refuses = Draft202012Validator(schema)
    return st.one_of(candidates).filter(lambda value: not refuses.is_valid(value))


@pytest.mark.parametrize(("server", "tool"), EVERY_TOOL)
def test_arguments_the_schema_allows_are_accepted(portal: Portal, server: str, tool: Tool) -> None:
    @FUZZ
    @given(from_schema(tool.input_schema))
    def check(arguments: dict[str, Any]) -> None:
        text = call(portal, server, tool, arguments)
        assert not ARGUMENT_ERROR.search(text), (arguments, text)

    check()


@pytest.mark.parametrize(("server", "tool"), EVERY_TOOL)
def test_unknown_arguments_are_named_and_refused(portal: Portal, server: str, tool: Tool) -> None:
    known = set(tool.input_schema["properties"])
    extra = st.dictionaries(
        ARGUMENT_NAMES.filter(lambda name: name not in known), JSON_VALUES, min_size=1, max_size=40
    )

    @FUZZ
    @given(from_schema(tool.input_schema), extra)
    def check(arguments: dict[str, Any], unknown: dict[str, Any]) -> None:
        text = call(portal, server, tool, arguments | unknown)
        assert text.startswith("ERROR ")
        lines = text.removeprefix("ERROR ").splitlines()
        assert any(line.startswith(printable(name, 24)) for name in unknown for line in lines)
        assert f"is not an argument of {tool.name}" in text
        assert len(text) <= MAX_ERROR_CHARS  # regression: 500 unknown keys gave 55,889 characters

    check()


@pytest.mark.parametrize(("server", "tool"), EVERY_TOOL)
def test_values_the_schema_refuses_are_named_and_refused(portal: Portal, server: str, tool: Tool) -> None:
    properties: dict[str, Any] = tool.input_schema["properties"]
    names = st.sampled_from(sorted(properties))
    broken = names.flatmap(lambda name: st.tuples(st.just(name), breaking(properties[name])))

    @FUZZ
    @given(from_schema(tool.input_schema), broken)
    def check(arguments: dict[str, Any], name_and_value: tuple[str, Any]) -> None:
        name, value = name_and_value
        text = call(portal, server, tool, arguments | {name: value})
        assert text.startswith("ERROR ")
        lines = text.removeprefix("ERROR ").splitlines()
        assert lines[0].startswith(name), text
        assert len(text) <= MAX_ERROR_CHARS

    check()


@pytest.mark.parametrize(("server", "tool"), REQUIRED)
def test_missing_required_arguments_are_named_and_refused(portal: Portal, server: str, tool: Tool) -> None:
    @FUZZ
    @given(from_schema(tool.input_schema), st.sampled_from(tool.input_schema["required"]))
    def check(arguments: dict[str, Any], missing: str) -> None:
        del arguments[missing]
        text = call(portal, server, tool, arguments)
        assert text.startswith(f"ERROR {missing} is required: "), text

    check()


# --- found by fuzzing ----------------------------------------------------------------------------


def test_every_unit_convert_suggests_is_a_unit_it_accepts(portal: Portal) -> None:
    """Regression: suggestions were drawn from dir() of pint's registry, so a near miss of one of its
    methods got "Did you mean get_name, __init__?"; pint also lists R_∞, which its parser refuses,
    and unit names longer than from_unit takes. The tool refused all of them when sent back."""
    tool = next(tool for server, tool in TOOLS if tool.name == "units_convert")
    near_misses = st.sampled_from(sorted(dir(registry()))).map(lambda name: name[:-1])

    @FUZZ
    @given(near_misses)
    def check(unit: str) -> None:
        text = call(portal, "convert", tool, {"value": 1, "from_unit": unit, "to_unit": "m"})
        suggested = re.search(r"Did you mean (.+)\?$", text)
        for suggestion in suggested.group(1).split(", ") if suggested else []:
            answer = call(
                portal, "convert", tool, {"value": 1, "from_unit": suggestion, "to_unit": suggestion}
            )
            assert not answer.startswith("ERROR "), (unit, suggestion, answer)

    check()


# --- hostile shapes (issue 14): what a caller sends to stall, flood or fool a server -----------------

# Names with line breaks, escape sequences and other control characters, up to far past any limit.
HOSTILE_NAMES = st.text(st.characters(exclude_categories=["Cs"]), min_size=1, max_size=5000)
# Decimal digits that are not 0-9: Arabic-Indic, fullwidth, Devanagari... (JSON Schema's \d is ASCII).
FOREIGN_DIGITS = st.text(
    st.characters(categories=["Nd"]).filter(lambda c: c not in "0123456789"),
    min_size=1,
    max_size=6,
)


@pytest.fixture
def comparisons(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The length of every name the surface compares against a tool's argument names."""
    made: list[int] = []
    real = difflib.get_close_matches

    def counted(word: str, possibilities: Any, *args: Any, **kwargs: Any) -> list[str]:
        made.append(len(word))
        return real(word, possibilities, *args, **kwargs)

    monkeypatch.setattr(difflib, "get_close_matches", counted)
    return made


@pytest.mark.parametrize(("server", "tool"), EVERY_TOOL)
def test_hostile_argument_names_cost_bounded_work_and_come_back_escaped(
    portal: Portal, server: str, tool: Tool, comparisons: list[int]
) -> None:
    known = set(tool.input_schema["properties"])
    floods = st.integers(min_value=1, max_value=3000).map(lambda count: {f"k{n}": 1 for n in range(count)})
    hostile = st.dictionaries(HOSTILE_NAMES.filter(lambda name: name not in known), JSON_VALUES, min_size=1)

    @FUZZ
    @given(from_schema(tool.input_schema), floods | hostile)
    def check(arguments: dict[str, Any], unknown: dict[str, Any]) -> None:
        comparisons.clear()
        text = call(portal, server, tool, arguments | unknown)
        assert text.startswith("ERROR ")
        assert len(text) <= MAX_ERROR_CHARS
        assert not any(unicodedata.category(c) == "Cc" and c != "\n" for c in text)
        lines = text.removeprefix("ERROR ").splitlines()
        assert any(line.startswith(printable(name, 24)) for name in unknown for line in lines)
        assert len(comparisons) <= UNKNOWN_NAMES_COMPARED
        assert all(length <= 64 for length in comparisons)

    check()


def test_digits_other_than_0_to_9_are_refused(portal: Portal) -> None:
    tool = next(tool for _, tool in TOOLS if tool.name == "math_add_numbers")

    @FUZZ
    @given(FOREIGN_DIGITS)
    def check(digits: str) -> None:
        text = call(portal, "basics", tool, {"numbers": [1, digits]})
        assert text.startswith("ERROR numbers[1] must be a finite number or a decimal number written as text")

    check()


def test_numbers_up_to_80_digits_add_exactly_and_longer_ones_are_refused(portal: Portal) -> None:
    tool = next(tool for _, tool in TOOLS if tool.name == "math_add_numbers")
    integers = st.integers(min_value=1, max_value=400).flatmap(
        lambda digits: st.integers(min_value=10 ** (digits - 1), max_value=10**digits - 1)
    )

    @FUZZ
    @given(st.lists(integers, min_size=2, max_size=100))
    def check(numbers: list[int]) -> None:
        text = call(portal, "basics", tool, {"numbers": numbers})
        longest = max(len(str(number)) for number in numbers)
        if longest <= 80:
            assert text == str(sum(numbers))
        else:
            assert "digits written out; each number may have at most 80." in text, text

    check()


def test_per_core_figures_always_fit_the_bound_and_stay_valid(
    portal: Portal, monkeypatch: pytest.MonkeyPatch
) -> None:
    tool = next(tool for _, tool in TOOLS if tool.name == "system_get_cpu_usage")
    assert tool.output_schema is not None
    valid = Draft202012Validator(tool.output_schema)
    loop, clients = portal

    @FUZZ
    @given(
        st.lists(st.floats(min_value=0, max_value=100), min_size=1, max_size=512),
        st.integers(min_value=200, max_value=5000),
    )
    def check(sample: list[float], bound: int) -> None:
        monkeypatch.setattr(psutil, "cpu_percent", lambda interval, percpu: sample)
        monkeypatch.setenv("MCP_MAX_RESULT_CHARS", str(bound))
        result: CallToolResult = loop.call(
            clients["basics"].call_tool, tool.name, {"interval_seconds": 0.1, "per_core": True}
        )
        assert not result.is_error, result.content
        text = "".join(block.text for block in result.content if block.type == "text")
        assert len(text) <= bound
        assert result.structured_content is not None
        valid.validate(result.structured_content)
        shown = result.structured_content["per_core_percent"]
        assert shown == sample[: len(shown)]
        if len(shown) < len(sample):
            assert f"{len(sample) - len(shown)} of {len(sample)} per-core figures cut" in text

    check()
