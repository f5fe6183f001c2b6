"""The per-server score: the documented formula, worked by hand."""

from __future__ import annotations

from mcp import Client

from instruments.audit.findings import Check, ProbeResult, Status, TokenCost, ToolAudit
from instruments.audit.run import audit_readings, read_server
from instruments.audit.score import score
from servers.convert.server import mcp as convert


def checks(*statuses: Status) -> list[Check]:
    return [Check(f"c{i}", "label", status, "evidence", "why") for i, status in enumerate(statuses)]


def tool(checklist: list[Check], probe: list[Check]) -> ToolAudit:
    result = ProbeResult("unknown argument", "x", "x=1", "error result", "text", probe)
    return ToolAudit("t", TokenCost(1, 1), checklist, [result])


def test_score_averages_the_checklist_and_probe_shares_and_ignores_n_a() -> None:
    tools = [
        tool(checks("pass", "pass", "fail", "n/a"), checks("pass", "fail")),
        tool(checks("pass", "n/a"), checks("pass", "pass", "n/a")),
    ]
    found = score(tools, probed=True)
    # C = 3 of 4 applicable checks, P = 3 of 4 applicable criteria: 100 * (0.75 + 0.75) / 2.
    assert (found.checklist_passed, found.checklist_applicable) == (3, 4)
    assert (found.probe_passed, found.probe_applicable) == (3, 4)
    assert found.value == 75.0


def test_without_the_probe_the_score_is_the_checklist_share() -> None:
    assert score([tool(checks("pass", "fail", "fail"), [])], probed=False).value == 33.3


def test_the_score_rounds_down_so_only_all_passes_make_100() -> None:
    passes: list[Status] = ["pass"] * 999
    nearly = [tool(checks(*passes, "fail"), checks("pass"))]
    assert score(nearly, probed=True).value == 99.9
    assert score([tool(checks("pass"), checks("pass"))], probed=True).value == 100.0


def test_a_server_without_tools_scores_zero() -> None:
    assert score([], probed=True).value == 0.0


async def test_without_the_probe_no_tool_is_called_and_the_checklist_alone_is_scored() -> None:
    async with Client(convert) as client:
        reading = await read_server(client, "in-process convert", probe=False, timeout=5)
    (server,) = audit_readings([reading]).servers
    assert server.tools[0].probes == []
    assert (server.score.probed, server.score.probe_applicable, server.score.value) == (False, 0, 100.0)
