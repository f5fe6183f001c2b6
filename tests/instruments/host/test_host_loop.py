"""The host loop over real MCP servers: concurrent calls, errors as results, limits, the bill, and a checked transcript."""

from __future__ import annotations

import json
from collections.abc import Sequence

import anyio
import pytest
from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPError
from mcp_types import INTERNAL_ERROR

from instruments.host import toolbox as toolbox_module
from instruments.host.checker import check
from instruments.host.formats import Wire, anthropic_tool, request_body
from instruments.host.loop import SYSTEM_PROMPT, Limits, Turn, run_turn
from instruments.host.models import ModelReply, ModelRequest, ScriptedModel, quote_results
from instruments.host.toolbox import HostError, ServerSpec, connect
from instruments.host.transcript import Message, ModelMessage, ToolCall, ToolResults
from instruments.tokens import count_tokens
from servers.basics.server import mcp as basics
from servers.convert.server import mcp as convert
from tests.support import error_text, stdio_server

MILES = ToolCall.of("toolu_01", "units_convert", {"value": 12, "from_unit": "mi", "to_unit": "km"})
FEET = ToolCall.of("toolu_02", "units_convert", {"value": 5280, "from_unit": "ft", "to_unit": "mi"})
CPU = ToolCall.of("toolu_03", "system_get_cpu_usage", {"interval_seconds": 0.5})
DEFAULTS = Limits()


async def run_checked(
    batches: Sequence[Sequence[ToolCall]],
    servers: Sequence[ServerSpec] = (convert, basics),
    wire: Wire = "anthropic",
    limits: Limits = DEFAULTS,
) -> Turn:
    """Run a turn with a scripted model, checking the transcript in its wire format after every message."""
    async with connect(servers) as toolbox:

        def checked(conversation: Sequence[Message]) -> None:
            verdict = check(request_body(wire, SYSTEM_PROMPT, toolbox.tools, conversation))
            assert verdict.defects == (), [str(defect) for defect in verdict.defects]

        model = ScriptedModel(batches, quote_results, wire=wire)
        return await run_turn("a question", model=model, toolbox=toolbox, limits=limits, on_message=checked)


def results_of(turn: Turn) -> list[ToolResults]:
    return [message for message in turn.conversation if isinstance(message, ToolResults)]


def meeting_server() -> MCPServer:
    """Two tools that each wait for the other to have started: they finish only when run at once."""
    server = MCPServer("meeting")
    arrived = {"left": anyio.Event(), "right": anyio.Event()}

    async def meet(me: str, other: str) -> str:
        arrived[me].set()
        await arrived[other].wait()
        return f"{me} met {other}"

    @server.tool()
    async def meeting_left() -> str:
        return await meet("left", "right")

    @server.tool()
    async def meeting_right() -> str:
        return await meet("right", "left")

    return server


@pytest.mark.parametrize("wire", ["anthropic", "openai"])
async def test_calls_of_one_reply_run_concurrently_and_come_back_in_order(wire: Wire) -> None:
    # One after the other, the first call would wait for the second until the host's timeout: an error.
    left, right = ToolCall.of("toolu_05", "meeting_left", {}), ToolCall.of("toolu_06", "meeting_right", {})
    turn = await run_checked([[left, MILES, right]], servers=(convert, meeting_server()), wire=wire)

    [results] = results_of(turn)
    assert [result.call.id for result in results.results] == ["toolu_05", "toolu_01", "toolu_06"]
    assert [result.answered_by for result in results.results] == ["meeting", "convert", "meeting"]
    assert [result.result.is_error for result in results.results] == [False, False, False]
    assert turn.stop.reason == "answered"


async def test_unknown_tools_and_malformed_arguments_become_error_results_and_the_loop_goes_on() -> None:
    unknown = ToolCall.of("toolu_01", "convert_currency", {"amount": 5})
    async with connect([convert]) as toolbox:
        model = ScriptedModel([[unknown, ToolCall("toolu_02", "units_convert", "{not json")]], quote_results)
        turn = await run_turn("a question", model=model, toolbox=toolbox)
    [results] = results_of(turn)
    no_such_tool, not_json = (result.result for result in results.results)
    assert "There is no tool named 'convert_currency'. The tools are: units_convert." in error_text(
        no_such_tool
    )
    assert "not a JSON object" in error_text(not_json)
    assert [result.answered_by for result in results.results] == ["host", "host"]
    assert turn.stop.reason == "answered"
    assert "convert_currency failed" in turn.conversation[-1].text  # type: ignore[union-attr]


async def test_a_failing_tool_comes_back_as_an_error_the_model_reads() -> None:
    wrong_kind = ToolCall.of("toolu_01", "units_convert", {"value": 12, "from_unit": "mi", "to_unit": "kg"})
    wrong_type = ToolCall.of("toolu_02", "units_convert", {"value": "12", "from_unit": "mi", "to_unit": "km"})
    turn = await run_checked([[wrong_kind, wrong_type]])
    [results] = results_of(turn)
    assert "cannot be converted" in error_text(results.results[0].result)
    assert "value must be" in error_text(results.results[1].result)
    assert turn.stop.reason == "answered"


async def test_k_sequential_calls_cost_k_plus_one_requests_each_rereading_the_definitions() -> None:
    turn = await run_checked([[MILES], [FEET], [CPU]])
    async with connect([convert, basics]) as toolbox:
        sent = [anthropic_tool(tool) for tool in toolbox.tools]
        definitions = count_tokens(json.dumps(sent, ensure_ascii=False, separators=(",", ":"))).tokens
    assert len(turn.requests) == 4
    assert [request.definitions for request in turn.requests] == [definitions] * 4
    reads = [request.read for request in turn.requests]
    assert reads == sorted(reads), "each request re-reads a longer conversation"
    assert len(set(reads)) == 4
    assert turn.requests[0].tool_results == 0 < turn.requests[1].tool_results < turn.requests[3].tool_results
    assert all(request.written > 0 for request in turn.requests)


async def test_the_iteration_cap_stops_a_model_that_keeps_asking() -> None:
    again_and_again = [[ToolCall(f"toolu_{n}", MILES.name, MILES.arguments)] for n in range(10)]
    turn = await run_checked(again_and_again, limits=Limits(max_requests=3))
    assert turn.stop.reason == "iteration_cap"
    assert len(turn.requests) == 3
    assert "after 3 requests" in turn.stop.detail
    # The last reply's request was not run: the transcript ends on it, pending, which the checker accepts.
    last = turn.conversation[-1]
    assert isinstance(last, ModelMessage)
    assert last.calls


async def test_the_token_budget_stops_before_the_request_that_would_pass_it() -> None:
    unlimited = await run_checked([[MILES]])
    first_request = unlimited.requests[0].read

    turn = await run_checked([[MILES]], limits=Limits(token_budget=first_request))
    assert turn.stop.reason == "token_budget"
    assert [request.read for request in turn.requests] == [first_request]
    assert f"past its budget of {first_request}" in turn.stop.detail
    assert isinstance(turn.conversation[-1], ToolResults), (
        "the results were added; only the next request was not sent"
    )

    nothing = await run_checked([[MILES]], limits=Limits(token_budget=10))
    assert (nothing.stop.reason, nothing.requests) == ("token_budget", ())


class TruncatedModel:
    """A model whose reply was cut off by its output limit."""

    name = "truncated"
    wire: Wire = "anthropic"

    async def reply(self, request: ModelRequest) -> ModelReply:
        return ModelReply(ModelMessage("Tomorrow in Frederick it will be"), "max_tokens")


async def test_a_reply_cut_short_is_reported_as_such_not_as_an_answer() -> None:
    async with connect([convert]) as toolbox:
        turn = await run_turn("a question", model=TruncatedModel(), toolbox=toolbox)
    assert (turn.stop.reason, turn.stop.detail) == (
        "model_stopped",
        "The model stopped before finishing (max_tokens).",
    )


async def test_two_servers_offering_the_same_tool_name_are_refused() -> None:
    with pytest.raises(HostError, match="both offer a tool named units_convert"):
        async with connect([convert, convert]):
            pass


async def test_the_loop_over_a_real_stdio_server() -> None:
    turn = await run_checked([[MILES]], servers=[stdio_server("servers.convert")])
    [results] = results_of(turn)
    assert results.results[0].result.structured_content == {"value": 19.312128, "unit": "km"}
    assert turn.conversation[-1].text == "units_convert returned: 12 mi = 19.312128 km"  # type: ignore[union-attr]


async def test_a_server_that_will_not_start_is_a_clear_error() -> None:
    with pytest.raises(HostError, match="Could not connect to the server"):
        async with connect([stdio_server("servers.no_such_server")]):
            pass


flaky = MCPServer("flaky")


@flaky.tool()
async def flaky_protocol_error() -> str:
    """Fails the way a server does when something breaks outside the tool's own logic."""
    raise MCPError(code=INTERNAL_ERROR, message="database connection lost")


@flaky.tool()
async def flaky_slow() -> str:
    """Takes far longer than any host should wait."""
    await anyio.sleep(10)
    return "too late"


async def test_protocol_errors_and_timeouts_become_error_results(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(toolbox_module, "CALL_TIMEOUT_SECONDS", 0.3)
    calls = [ToolCall.of("toolu_01", "flaky_protocol_error", {}), ToolCall.of("toolu_02", "flaky_slow", {})]
    turn = await run_checked([calls], servers=[flaky])
    [results] = results_of(turn)
    broken, slow = (result.result for result in results.results)
    assert error_text(broken) == "The flaky server could not run flaky_protocol_error; answer without it."
    assert "did not answer flaky_slow within 0.3 seconds" in error_text(slow)
    assert results.seconds < 2
    assert turn.stop.reason == "answered"
