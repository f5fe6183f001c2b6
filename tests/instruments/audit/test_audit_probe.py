"""The audit's behaviour probe: what deliberately bad calls get back, judged as a model would read it."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS, Tool

from instruments.audit.connect import Target, connect, list_tools
from instruments.audit.findings import ProbeResult
from instruments.audit.probe import Permission, Prober, placeholder, plans
from servers.basics.server import mcp as basics
from servers.convert.server import mcp as convert

# The SDK's defaults: unknown arguments dropped, "12" coerced to 12, pydantic's own error text.
lax = MCPServer("lax")


@lax.tool(description="Look a label up by code.")
def lax_lookup(code: int, label: str) -> str:
    return f"found {code} {label}"


@lax.tool(description="Parse a date.")
def lax_parse(text: str) -> str:
    raise ToolError(f"Could not parse {text}")


@lax.tool(description="Reject every call as a protocol error, which the model never sees.")
def lax_refuse(value: int) -> str:
    raise MCPError(code=INVALID_PARAMS, message=f"value {value} refused")


@lax.tool(description="Never answer.")
async def lax_stall(seconds: int) -> str:
    await anyio.sleep(60)
    return "late"


# These tools change nothing, so the judging of their replies is tested with every call allowed.
EVERY_CALL = Permission(side_effects=True)


async def probe(server: MCPServer, name: str, timeout: float = 5) -> dict[str, ProbeResult]:
    async with Client(server) as client:
        tool = next(t for t in (await client.list_tools()).tools if t.name == name)
        return {result.probe: result for result in await Prober(client, timeout, EVERY_CALL).probe(tool)}


def statuses(result: ProbeResult) -> dict[str, str]:
    return {check.id: check.status for check in result.checks}


async def test_a_silently_dropped_unknown_argument_is_a_success_that_names_nothing() -> None:
    found = (await probe(lax, "lax_lookup"))["unknown argument"]
    assert found.reply == "success result"
    assert statuses(found)["error_result"] == "fail"
    assert statuses(found)["names_argument"] == "fail"


async def test_a_coerced_wrong_type_goes_through_unnoticed() -> None:
    found = (await probe(lax, "lax_lookup"))["wrong JSON type"]
    assert found.sent == 'code="12"'
    assert found.reply == "success result"


async def test_pydantic_error_text_is_reported_as_internals() -> None:
    found = (await probe(lax, "lax_lookup"))["missing required"]
    assert found.reply == "error result"
    assert statuses(found)["names_argument"] == "pass"
    assert statuses(found)["no_internals"] == "fail"
    assert "[type=missing" in next(c.evidence for c in found.checks if c.id == "no_internals")


async def test_an_error_that_repeats_a_long_input_is_long_and_an_echo() -> None:
    found = (await probe(lax, "lax_parse"))["overlong string"]
    assert found.reply == "error result"
    assert statuses(found)["short"] == "fail"
    assert statuses(found)["no_echo"] == "fail"


async def test_a_json_rpc_error_is_survivable_but_invisible_to_the_model() -> None:
    found = (await probe(lax, "lax_refuse"))["unknown argument"]
    assert found.reply == "protocol error"
    assert statuses(found) == {
        "error_result": "fail",
        "names_argument": "n/a",
        "short": "n/a",
        "no_internals": "n/a",
        "no_echo": "n/a",
        "no_splicing": "n/a",
        "survives": "pass",
    }


async def test_a_call_that_never_answers_is_reported_as_no_answer() -> None:
    found = (await probe(lax, "lax_stall", timeout=0.3))["unknown argument"]
    assert found.reply == "no answer"
    assert statuses(found)["survives"] == "pass"


@pytest.mark.parametrize("server", [convert, basics], ids=["convert", "basics"])
async def test_our_servers_answer_every_probe_in_full(server: MCPServer) -> None:
    async with Client(server) as client:
        tools = (await client.list_tools()).tools
        prober = Prober(client, 5)
        results = [result for tool in tools for result in await prober.probe(tool)]
    failed = [(r.probe, c.id, c.evidence) for r in results for c in r.checks if c.status == "fail"]
    assert failed == []
    # Every bad call is refused, and nothing is skipped: both servers publish schemas that reject
    # each bad call. By default no call is fault-free.
    assert {r.reply for r in results} <= {"error result", "not applicable"}


async def test_the_overlong_probe_credits_a_short_preview_of_the_input() -> None:
    found = (await probe(convert, "units_convert"))["overlong string"]
    assert found.sent == "from_unit=<5000 characters>"
    assert statuses(found)["no_echo"] == "pass"
    assert statuses(found)["names_argument"] == "pass"


def test_placeholders_fit_the_schema_and_are_never_urls() -> None:
    fields: dict[str, dict[str, Any]] = {
        "url": {"type": "string", "format": "uri", "minLength": 8},
        "days": {"type": "integer", "minimum": 3, "maximum": 7},
        "units": {"enum": ["metric", "imperial"]},
        "tags": {"type": "array", "items": {"type": "string"}, "minItems": 2},
    }
    schema = {"type": "object", "properties": fields}
    values = {name: placeholder(schema, node) for name, node in fields.items()}
    assert values == {"url": "probepro", "days": 3, "units": "metric", "tags": ["probe", "probe"]}


def test_a_tool_without_parameters_gets_only_the_unknown_argument_probe() -> None:
    tool = Tool(name="t", input_schema={"type": "object", "properties": {}})
    assert [(p.probe, p.arguments is not None) for p in plans(tool)] == [
        ("unknown argument", True),
        ("wrong JSON type", False),
        ("missing required", False),
        ("overlong string", False),
    ]
    # The fault-free call is made only when side effects are allowed.
    assert plans(tool, valid_call=True)[0].probe == "valid call"


CRASHING_SERVER = textwrap.dedent(
    """
    import os
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("crashy")

    @server.tool(description="Exit the whole process on any call.")
    def crashy_boom(text: str) -> str:
        os._exit(3)

    server.run("stdio")
    """
)


async def test_a_server_that_dies_fails_survival_and_the_rest_is_not_run(tmp_path: Path) -> None:
    script = tmp_path / "crashy.py"
    script.write_text(CRASHING_SERVER)
    async with connect(Target(command=(sys.executable, str(script))), timeout=10) as session:
        (tool,), _ = await list_tools(session.client, "crashy")
        results = await Prober(session.client, 10, EVERY_CALL).probe(tool)
    assert [r.reply for r in results] == ["no answer", "not run", "not run", "not run", "not run"]
    assert statuses(results[1])["survives"] == "fail"
