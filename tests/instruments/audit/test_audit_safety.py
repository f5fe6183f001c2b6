"""Safe by default: the probe never runs a tool that may change something, and says what it skipped."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated

from mcp import Client
from mcp.server.mcpserver import MCPServer
from mcp_types import Tool, ToolAnnotations
from pydantic import Field

from instruments.audit.connect import Target
from instruments.audit.probe import Permission, Prober, plans, probe_checks, run_refusal
from instruments.audit.run import read_all, read_server

ran: list[str] = []  # every tool body that ran, in order
shop = MCPServer("shop")


@shop.tool(description="Delete a customer's order by its id, for good.")
def shop_delete_order(order_id: int, reason: str) -> str:
    ran.append("shop_delete_order")
    return "deleted"


@shop.tool(description="Empty the whole cart.", annotations=ToolAnnotations(destructive_hint=True))
def shop_empty_cart(confirm: bool = True) -> str:
    ran.append("shop_empty_cart")
    return "emptied"


@shop.tool(
    description="Write a note, at most 200 characters.",
    annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False),
)
def shop_write_note(text: Annotated[str, Field(max_length=200)]) -> str:
    ran.append("shop_write_note")
    return "written"


@shop.tool(
    description="Look an order up on the remote shop.",
    annotations=ToolAnnotations(read_only_hint=True),  # openWorldHint unset: may reach the network
)
def shop_remote_lookup(order_id: int) -> str:
    ran.append("shop_remote_lookup")
    return "found"


@shop.tool(
    description="Look an order up in the local cache.",
    annotations=ToolAnnotations(read_only_hint=True, open_world_hint=False),
)
def shop_local_lookup(order_id: int) -> str:
    ran.append("shop_local_lookup")
    return "found"


async def probe_all(permission: Permission) -> dict[str, list[tuple[str, str, str]]]:
    ran.clear()
    async with Client(shop) as client:
        tools = (await client.list_tools()).tools
        prober = Prober(client, 5, permission)
        return {tool.name: [(r.probe, r.reply, r.sent) for r in await prober.probe(tool)] for tool in tools}


async def test_by_default_only_the_read_only_closed_world_tool_runs() -> None:
    found = await probe_all(Permission())
    assert set(ran) == {"shop_local_lookup"}
    # A tool that may change things gets only calls its schema rejects, and no valid call.
    assert [probe for probe, _, _ in found["shop_delete_order"]] == [
        "unknown argument",
        "wrong JSON type",
        "missing required",
        "overlong string",
    ]
    assert {reply for _, reply, _ in found["shop_delete_order"]} <= {"error result", "skipped"}


async def test_skipped_probes_say_why() -> None:
    found = await probe_all(Permission())
    empty = {probe: (reply, sent) for probe, reply, sent in found["shop_empty_cart"]}
    assert empty["unknown argument"] == (
        "skipped",
        "skipped: with no required parameter to leave out, a server that ignores unknown arguments "
        "would run the tool",
    )
    delete = {probe: (reply, sent) for probe, reply, sent in found["shop_delete_order"]}
    assert delete["overlong string"] == (
        "skipped",
        "skipped: reason has no maxLength, so a long text is valid and the call could run the tool",
    )


async def test_a_bounded_text_gets_the_overlong_probe_even_when_the_tool_writes() -> None:
    found = await probe_all(Permission())
    write = {probe: (reply, sent) for probe, reply, sent in found["shop_write_note"]}
    assert write["overlong string"] == ("error result", "text=<5000 characters>")
    assert "shop_write_note" not in ran


async def test_network_and_side_effects_are_opt_in() -> None:
    await probe_all(Permission(network=True))
    assert set(ran) == {"shop_local_lookup", "shop_remote_lookup"}
    await probe_all(Permission(side_effects=True))
    assert set(ran) >= {"shop_delete_order", "shop_empty_cart", "shop_write_note"}


def test_what_makes_a_tool_safe_to_run_is_said_in_one_sentence() -> None:
    bare = Tool(name="t", input_schema={"type": "object"})
    assert run_refusal(bare, Permission()) == (
        "it is not annotated readOnlyHint: true, so a valid call could change something"
    )
    remote = Tool(name="t", input_schema={"type": "object"}, annotations=ToolAnnotations(read_only_hint=True))
    assert "may reach the network" in run_refusal(remote, Permission())
    assert run_refusal(remote, Permission(network=True)) == ""


def test_a_call_the_schema_would_accept_is_never_planned_for_an_unsafe_tool() -> None:
    # Every parameter optional and untyped: no call can be shown to be refused, so nothing is sent.
    loose = Tool(name="t", input_schema={"type": "object", "properties": {"x": {}}})
    assert all(plan.arguments is None for plan in plans(loose, may_run=False))
    broken = Tool(
        name="t", input_schema={"type": "object", "properties": {"x": {"type": 12}}, "required": ["x"]}
    )
    assert all(plan.arguments is None for plan in plans(broken, may_run=False))
    assert "skipped: the inputSchema is not valid JSON Schema, so no call can be shown to be refused" in {
        plan.sent for plan in plans(broken, may_run=False)
    }


def test_unsafe_wrong_types_are_values_no_validator_coerces() -> None:
    schema = {
        "type": "object",
        "properties": {"count": {"type": "integer"}, "flag": {"type": "boolean"}, "name": {"type": "string"}},
        "required": ["count", "flag", "name"],
    }
    tool = Tool(name="t", input_schema=schema)
    (wrong,) = [plan for plan in plans(tool, may_run=False) if plan.probe == "wrong JSON type"]
    # "12" would be coerced to 12 by a lax server, which would then run; a word is not.
    assert wrong.arguments == {"count": "probe"}


async def test_by_default_no_call_is_fault_free_even_for_a_read_only_tool() -> None:
    found = await probe_all(Permission())
    assert "valid call" not in {probe for probe, _, _ in found["shop_local_lookup"]}
    allowed = await probe_all(Permission(side_effects=True))
    assert allowed["shop_local_lookup"][0][:2] == ("valid call", "success result")


def test_an_unnamed_error_after_untested_placeholders_is_inconclusive() -> None:
    # The server may have ignored probe_extra and run the tool, which then failed on the placeholder.
    tool = Tool(
        name="t",
        input_schema={"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
    )
    unknown = next(plan for plan in plans(tool) if plan.probe == "unknown argument")
    assert unknown.arguments == {"path": "probe", "probe_extra": "probe"}
    untested = {c.id: c.status for c in probe_checks(unknown, "error result", "path not found", True, None)}
    assert untested["error_result"] == untested["names_argument"] == "inconclusive"
    shown = {c.id: c.status for c in probe_checks(unknown, "error result", "path not found", True, True)}
    assert (shown["error_result"], shown["names_argument"]) == ("pass", "fail")
    # A call with no placeholders beside the fault can only have failed on the fault.
    bare = Tool(name="t", input_schema={"type": "object", "properties": {}})
    alone = next(plan for plan in plans(bare) if plan.probe == "unknown argument")
    verdicts = {c.id: c.status for c in probe_checks(alone, "error result", "invalid call", True, None)}
    assert (verdicts["error_result"], verdicts["names_argument"]) == ("pass", "fail")


ROGUE = Path(__file__).with_name("rogue_server.py")


async def test_a_server_that_runs_a_call_its_schema_rejects_gets_no_more_such_calls() -> None:
    target = Target(command=(sys.executable, str(ROGUE), "acts"), env=dict(os.environ))
    (reading,) = await read_all([target], probe=True, timeout=10)
    sent = [
        (tool, r.probe)
        for tool in ("rogue_render", "rogue_publish")
        for r in reading.probes[tool]
        if r.reply not in ("skipped", "not applicable")
    ]
    assert sent == [("rogue_render", "unknown argument")]
    (first,) = [c for c in reading.probes["rogue_render"][0].checks if c.id == "refuses_first"]
    assert first.status == "fail"
    assert "ENOTFOUND" in first.evidence
    skipped = {r.sent for r in reading.probes["rogue_publish"] if r.reply == "skipped"}
    assert skipped == {
        "skipped: the server ran an earlier call that its schema rejects, so it is not shown to refuse this one"
    }
    # The read-only tool is still probed: it may run anyway.
    assert any(r.reply == "error result" for r in reading.probes["rogue_lookup"])


async def test_a_server_that_validates_refuses_first_on_every_call_that_relies_on_it() -> None:
    async with Client(shop) as client:
        reading = await read_server(client, "shop", probe=True, timeout=5)
    verdicts = [
        c.status for r in reading.probes["shop_delete_order"] for c in r.checks if c.id == "refuses_first"
    ]
    assert verdicts
    assert set(verdicts) == {"pass"}
    # A tool that may run does not rely on refusal, so it is not judged on it.
    assert not [c for r in reading.probes["shop_local_lookup"] for c in r.checks if c.id == "refuses_first"]


async def test_a_closed_world_tool_that_reaches_the_network_costs_the_server_that_trust() -> None:
    target = Target(command=(sys.executable, str(ROGUE), "leaky"), env=dict(os.environ))
    (reading,) = await read_all([target], probe=True, timeout=10)
    first = reading.probes["rogue_lookup"]
    leaks = [c for r in first for c in r.checks if c.id == "keeps_closed_world"]
    assert len(leaks) == 1  # its first call reached out; the rest of its calls are not sent
    assert {c.status for c in leaks} == {"fail"}
    assert "ENOTFOUND" in leaks[0].evidence
    # The next tool says the same, but is no longer trusted: it gets only calls its schema rejects.
    later = reading.probes["rogue_lookup_more"]
    assert all(r.sent.startswith(("only ", "without ", "skipped")) or "={" in r.sent for r in later), later
    assert any("refuses_first" in {c.id for c in r.checks} for r in later)
