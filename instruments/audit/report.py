"""The audit as a person reads it (tables, then each finding and why it matters) or as JSON.

Tables use Markdown borders, so a report pastes into a document as it is.
"""

from __future__ import annotations

import json
from dataclasses import asdict

from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from instruments.audit.costs import CONVERSATION_REQUESTS
from instruments.audit.findings import Audit, Check, Selection, ServerAudit, ToolAudit

MARK = {"pass": "✓", "fail": "✗", "n/a": "-"}
TEXT_PREVIEW = 90


def to_json(audit: Audit) -> str:
    return json.dumps(asdict(audit), indent=2, ensure_ascii=False)


def render(audit: Audit, console: Console) -> None:
    tools = sum(len(server.tools) for server in audit.servers)
    console.print(
        f"[bold]MCP surface audit[/]: {len(audit.servers)} server(s), {tools} tool(s). "
        f"Token counts: {audit.token_method}. {' '.join(audit.notes)}"
    )
    console.print(summary_table(audit))
    _checks(console, "Set checks, all servers together", audit.combined_checks)
    for server in audit.servers:
        _server(console, server)
    if audit.selection is not None:
        _selection(console, audit.selection)


def summary_table(audit: Audit) -> Table:
    """The side-by-side view: one row per server, then what the model pays with all of them."""
    table = Table(box=box.MARKDOWN)
    for column in ("Server", "Tools", "Tokens, Anthropic / OpenAI", "Checklist", "Probe", "Score"):
        table.add_column(column, justify="left" if column == "Server" else "right")
    for server in audit.servers:
        score = server.score
        probe = f"{score.probe_passed}/{score.probe_applicable}" if score.probed else "not run"
        table.add_row(
            escape(server.label),
            str(len(server.tools)),
            f"{server.cost.anthropic:,} / {server.cost.openai:,}",
            f"{score.checklist_passed}/{score.checklist_applicable}",
            probe,
            f"{score.value:.1f}" + ("" if score.probed else " (checklist only)"),
        )
    total = sum(len(server.tools) for server in audit.servers)
    cost = audit.combined_cost
    table.add_row(
        "all together, per request", str(total), f"{cost.anthropic:,} / {cost.openai:,}", "", "", ""
    )
    table.add_row(
        f"per {CONVERSATION_REQUESTS}-request conversation",
        "",
        f"{cost.anthropic * CONVERSATION_REQUESTS:,} / {cost.openai * CONVERSATION_REQUESTS:,}",
        "",
        "",
        "",
    )
    return table


def _checks(console: Console, title: str, checks: list[Check]) -> None:
    console.print(f"\n[bold]{escape(title)}[/]")
    for check in checks:
        why = f"\n      [dim]Why it matters: {escape(check.why)}[/]" if check.status == "fail" else ""
        console.print(f"  {MARK[check.status]} {escape(check.label)}: {escape(check.evidence)}{why}")


def _server(console: Console, server: ServerAudit) -> None:
    score = server.score
    console.print(f"\n[bold]== {escape(server.label)}[/] ({escape(server.target)}): score {score.value:.1f}")
    _checks(console, "Set checks", server.checks)
    for tool in server.tools:
        _tool(console, tool)


def _tool(console: Console, tool: ToolAudit) -> None:
    console.print(
        f"\n[bold]{escape(tool.name)}[/]: {tool.cost.anthropic} tokens (Anthropic shape), "
        f"{tool.cost.openai} (OpenAI shape)"
    )
    checklist = Table(box=box.MARKDOWN)
    for column in ("Check", "", "Evidence"):
        checklist.add_column(column)
    for check in tool.checks:
        checklist.add_row(escape(check.label), MARK[check.status], escape(check.evidence))
    console.print(checklist)
    if tool.probes:
        probes = Table(
            box=box.MARKDOWN,
            caption="Criteria: error result, names the argument, short, no internals, no echo, survives",
        )
        for column in ("Probe", "Sent", "Reply", "Criteria", "What came back"):
            probes.add_column(column)
        for result in tool.probes:
            marks = "".join(MARK[check.status] for check in result.checks) or "n/a"
            text = " ".join(result.text.split())
            shown = text if len(text) <= TEXT_PREVIEW else text[: TEXT_PREVIEW - 1] + "…"
            probes.add_row(result.probe, escape(result.sent), result.reply, marks, escape(shown))
        console.print(probes)
    findings = [check for check in tool.checks if check.status == "fail"]
    findings += [
        Check(c.id, f"{r.probe}: {c.label}", c.status, c.evidence, c.why)
        for r in tool.probes
        for c in r.checks
        if c.status == "fail"
    ]
    if findings:
        console.print("Findings:")
        for finding in findings:
            console.print(f"  ✗ {escape(finding.label)}: {escape(finding.evidence)}")
            console.print(f"      [dim]Why it matters: {escape(finding.why)}[/]")


def _selection(console: Console, selection: Selection) -> None:
    needing = selection.requests_needing_a_tool
    console.print(
        f"\n[bold]Selection proxy[/] (TF-IDF word matching over all text a model reads of each tool; not a model): "
        f"{needing + selection.requests_needing_none} requests, {needing} needing a tool, "
        f"{selection.requests_needing_none} needing none"
    )
    if needing:
        console.print(
            f"  top-1 accuracy {selection.top1_correct}/{needing} ({selection.top1_correct / needing:.0%}); "
            f"near-ties between the top two: {selection.near_ties}/{needing}"
        )
    table = Table(
        box=box.MARKDOWN, caption="Rule: call the best-scoring tool when its score reaches the cutoff"
    )
    for column in ("Cutoff", "Needed calls skipped", "Needless calls made"):
        table.add_column(column, justify="right")
    for row in selection.cutoffs:
        table.add_row(
            f"{row.cutoff:.2f}",
            f"{row.needed_calls_skipped} of {needing}",
            f"{row.needless_calls_made} of {selection.requests_needing_none}",
        )
    console.print(table)
    misses = [c for c in selection.choices if c.expected is not None and c.best != c.expected]
    for choice in misses:
        best = f"{choice.best} ({choice.best_score:.2f})" if choice.best else "no tool shares a word with it"
        runner_up = (
            f", runner-up {choice.runner_up} ({choice.runner_up_score:.2f})" if choice.runner_up_score else ""
        )
        console.print(
            f"  ✗ {escape(json.dumps(choice.text, ensure_ascii=False))}: wanted {choice.expected}, "
            f"best {best}{runner_up}"
        )
