"""The audit from start to finish: read each server (tools, then probes), then judge them together.

An environment failure: when at least ENVIRONMENT_MIN_CALLS calls were sent and every one came back
as an error with the same text (numbers and quoted values aside) that names none of the arguments,
the cause is the machine (no browser, no network, no credentials), not the surface. It is reported
once, as such, and the probe half of the score is left out rather than scored on that one error.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from mcp import Client
from mcp_types import Tool

from instruments.audit import costs, setchecks
from instruments.audit.checklist import ServerTools, check_tool
from instruments.audit.connect import Session, Target, connect, list_tools
from instruments.audit.findings import Audit, Check, ProbeResult, ServerAudit, ToolAudit, cap
from instruments.audit.probe import Permission, Prober, error_shape
from instruments.audit.score import score
from instruments.audit.selection import Request, check_tools_exist, select


@dataclass(frozen=True)
class Reading:
    """What one session with a server yielded: its name, its tools, and the probes' answers."""

    label: str
    target: str
    tools: list[Tool]
    probes: dict[str, list[ProbeResult]]
    probed: bool
    schema_problems: dict[str, str] = field(default_factory=dict)
    stray_stdout: list[str] = field(default_factory=list)
    scratch_left: list[str] = field(default_factory=list)
    home_left: list[str] = field(default_factory=list)
    handshake_only: bool = False
    left_running: list[str] = field(default_factory=list)


ENVIRONMENT_MIN_CALLS = 3


async def read_server(
    client: Client,
    target: str,
    *,
    probe: bool,
    timeout: float,
    permission: Permission | None = None,
    before_probe: Callable[[], object] | None = None,
) -> Reading:
    """`before_probe` runs between listing and probing (the corpus fingerprints its sandbox there)."""
    info = client.server_info
    label = info.name if info and info.name else target
    tools, problems = await list_tools(client, target)
    if before_probe is not None:
        before_probe()
    prober = Prober(client, timeout, permission)
    probes = {tool.name: await prober.probe(tool) for tool in tools} if probe else {}
    return Reading(label, target, tools, probes, probe, problems)


async def read_all(
    targets: Sequence[Target],
    *,
    probe: bool,
    timeout: float,
    permission: Permission | None = None,
    before_probe: Callable[[Session], object] | None = None,
) -> list[Reading]:
    readings = []
    for target in targets:
        async with connect(target, timeout) as session:
            reading = await read_server(
                session.client,
                str(target),
                probe=probe,
                timeout=timeout,
                permission=permission,
                before_probe=(lambda: before_probe(session)) if before_probe else None,
            )
        # Known only now that the server has stopped.
        readings.append(
            dataclasses.replace(
                reading,
                stray_stdout=list(session.stray_stdout),
                scratch_left=list(session.scratch_left),
                home_left=list(session.home_left),
                handshake_only=session.handshake_only,
                left_running=list(session.left_running),
            )
        )
    return readings


def environment_failure(probes: dict[str, list[ProbeResult]]) -> str:
    """The one error every call got, when they all got the same one; else ""."""
    sent = [r for results in probes.values() for r in results if r.reply not in ("skipped", "not applicable")]
    if len(sent) < ENVIRONMENT_MIN_CALLS or any(result.reply != "error result" for result in sent):
        return ""
    shapes = {error_shape(result.text) for result in sent}
    named = any(result.argument and re.search(re.escape(result.argument), result.text) for result in sent)
    if len(shapes) != 1 or named:
        return ""
    return cap(sent[0].text.strip(), 300)


def audit_readings(readings: Sequence[Reading], requests: Sequence[Request] | None = None) -> Audit:
    """Checklist, costs and score per server; then set-level checks and selection over all tools."""
    labels = _unique([reading.label for reading in readings])
    servers = []
    every_name = [t.name for reading in readings for t in reading.tools]
    for label, reading in zip(labels, readings, strict=True):
        own = {t.name for t in reading.tools}
        server_tools = ServerTools.of(own, [tool.description or "" for tool in reading.tools])
        others = {name for name in every_name if name not in own}
        tools = [
            ToolAudit(
                name=tool.name,
                cost=costs.tool_cost(tool),
                checks=check_tool(
                    tool, reading.label, others, reading.schema_problems.get(tool.name, ""), server_tools
                ),
                probes=reading.probes.get(tool.name, []),
            )
            for tool in reading.tools
        ]
        blocked = environment_failure(reading.probes)
        checks = [setchecks.tool_count(len(reading.tools))]
        if reading.stray_stdout:
            checks.append(stray_stdout(reading.stray_stdout))
        if reading.handshake_only:
            checks.append(DISCOVER_FAILED)
        if reading.left_running:
            checks.append(left_running(reading.left_running))
        servers.append(
            ServerAudit(
                label=label,
                target=reading.target,
                cost=costs.set_cost(reading.tools),
                tools=tools,
                checks=checks,
                score=score(tools, reading.probed and not blocked),
                environment_failure=blocked,
                stray_stdout=reading.stray_stdout[:5],
                scratch_left=reading.scratch_left,
                home_left=reading.home_left,
            )
        )
    everything = [tool for reading in readings for tool in reading.tools]
    combined = [
        setchecks.tool_count(len(everything)),
        setchecks.near_duplicates(
            [(label, t) for label, r in zip(labels, readings, strict=True) for t in r.tools]
        ),
        setchecks.name_collisions([(label, r.tools) for label, r in zip(labels, readings, strict=True)]),
    ]
    selection = None
    if requests is not None:
        check_tools_exist(requests, everything)
        selection = select(everything, requests)
    return Audit(
        token_method=costs.token_method(),
        servers=servers,
        combined_cost=costs.set_cost(everything),
        combined_checks=combined,
        selection=selection,
        notes=[costs.O200K_NOTE],
    )


def stray_stdout(lines: list[str]) -> Check:
    return Check(
        "stdout_clean",
        "stdout carries only JSON-RPC",
        "fail",
        f"{len(lines)} line{'s' if len(lines) != 1 else ''} that are not JSON-RPC, the first: {lines[0]!r}",
        "A stdio server's stdout is the protocol; a stray line can break a strict client's session.",
    )


DISCOVER_FAILED = Check(
    "answers_discover",
    "answers server/discover",
    "fail",
    "it ended the connection when sent server/discover, so it was read over the initialize handshake",
    "Clients of the current protocol open with server/discover; a server that exits on it works only "
    "with clients that still open with initialize. Updating its SDK fixes it.",
)


def left_running(commands: list[str]) -> Check:
    return Check(
        "stops_cleanly",
        "leaves nothing running when stopped",
        "fail",
        f"{len(commands)} process{'es' if len(commands) != 1 else ''} it started outlived it (the audit "
        f"stopped them), the first: {commands[0]!r}",
        "A host stops a server by closing its stdio; what keeps running after that runs unseen.",
    )


def _unique(labels: list[str]) -> list[str]:
    """Two servers may share a name; number the repeats so each row of the report is its own."""
    seen: dict[str, int] = {}
    result = []
    for label in labels:
        seen[label] = seen.get(label, 0) + 1
        result.append(label if seen[label] == 1 else f"{label} #{seen[label]}")
    return result
