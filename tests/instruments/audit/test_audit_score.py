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


def test_score_weighs_per_check_pass_rates_and_ignores_n_a_and_inconclusive() -> None:
    named = [Check("says_what", "l", "pass", "e", "w"), Check("title_set", "l", "fail", "e", "w")]
    other = [Check("says_what", "l", "fail", "e", "w"), Check("title_set", "l", "n/a", "e", "w")]
    probe = [
        Check("error_result", "l", "pass", "e", "w"),
        Check("names_argument", "l", "inconclusive", "e", "w"),
    ]
    found = score([tool(named, probe), tool(other, probe)], probed=True)
    # Checklist: says_what (weight 3) passes 1 of 2, title_set (weight 1) 0 of 1:
    # C = (3 * 0.5 + 1 * 0) / 4 = 0.375. Probe: error_result 2 of 2, the inconclusive ones unscored: P = 1.
    # Score = 100 * (2 * 0.375 + 1) / 3 = 58.33...
    assert (found.checklist_passed, found.checklist_applicable) == (1, 3)
    assert (found.probe_passed, found.probe_applicable) == (2, 2)
    assert found.value == 58.3


def test_without_the_probe_the_score_is_the_checklist_share() -> None:
    assert score([tool(checks("pass", "fail", "fail"), [])], probed=False).value == 33.3


def test_the_score_rounds_down_so_only_all_passes_make_100() -> None:
    nearly = [tool(checks("pass"), [])] * 999 + [tool(checks("fail"), [])]
    assert score(nearly, probed=False).value == 99.9
    assert score([tool(checks("pass"), checks("pass"))], probed=True).value == 100.0


def test_a_server_without_tools_scores_zero() -> None:
    assert score([], probed=True).value == 0.0


async def test_without_the_probe_no_tool_is_called_and_the_checklist_alone_is_scored() -> None:
    async with Client(convert) as client:
        reading = await read_server(client, "in-process convert", probe=False, timeout=5)
    (server,) = audit_readings([reading]).servers
    assert server.tools[0].probes == []
    assert (server.score.probed, server.score.probe_applicable, server.score.value) == (False, 0, 100.0)
