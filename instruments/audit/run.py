"""The audit from start to finish: read each server (tools, then probes), then judge them together."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from mcp import Client
from mcp_types import Tool

from instruments.audit import costs, setchecks
from instruments.audit.checklist import check_tool
from instruments.audit.connect import Target, connect, list_tools
from instruments.audit.findings import Audit, ProbeResult, ServerAudit, ToolAudit
from instruments.audit.probe import Prober
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


async def read_server(client: Client, target: str, *, probe: bool, timeout: float) -> Reading:
    info = client.server_info
    label = info.name if info and info.name else target
    tools = await list_tools(client, target)
    prober = Prober(client, timeout)
    probes = {tool.name: await prober.probe(tool) for tool in tools} if probe else {}
    return Reading(label, target, tools, probes, probe)


async def read_all(targets: Sequence[Target], *, probe: bool, timeout: float) -> list[Reading]:
    readings = []
    for target in targets:
        async with connect(target, timeout) as client:
            readings.append(await read_server(client, str(target), probe=probe, timeout=timeout))
    return readings


def audit_readings(readings: Sequence[Reading], requests: Sequence[Request] | None = None) -> Audit:
    """Checklist, costs and score per server; then set-level checks and selection over all tools."""
    labels = _unique([reading.label for reading in readings])
    servers = []
    for label, reading in zip(labels, readings, strict=True):
        others = {t.name for other in readings if other is not reading for t in other.tools}
        tools = [
            ToolAudit(
                name=tool.name,
                cost=costs.tool_cost(tool),
                checks=check_tool(tool, reading.label, others),
                probes=reading.probes.get(tool.name, []),
            )
            for tool in reading.tools
        ]
        servers.append(
            ServerAudit(
                label=label,
                target=reading.target,
                cost=costs.set_cost(reading.tools),
                tools=tools,
                checks=[setchecks.tool_count(len(reading.tools))],
                score=score(tools, reading.probed),
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


def _unique(labels: list[str]) -> list[str]:
    """Two servers may share a name; number the repeats so each row of the report is its own."""
    seen: dict[str, int] = {}
    result = []
    for label in labels:
        seen[label] = seen.get(label, 0) + 1
        result.append(label if seen[label] == 1 else f"{label} #{seen[label]}")
    return result
