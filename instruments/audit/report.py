"""The audit as a person reads it, or as JSON.

Per server: a roll-up per check first (how many tools fail it, the worst examples, why it matters
and the fix, each said once), then which probes were skipped for safety and why, then per-tool detail,
one line per finding. Tables use Markdown borders, so a report pastes into a document as it is.
Everything a server sent is passed through `printable` (control characters escaped) and capped, so a
hostile server can neither forge report lines nor bloat the report.
"""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from dataclasses import asdict

from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from instruments.audit.costs import CONVERSATION_REQUESTS
from instruments.audit.findings import Audit, Check, Selection, ServerAudit
from instruments.console import printable

MARK = {"pass": "✓", "fail": "✗", "n/a": "-", "inconclusive": "?"}
TEXT_PREVIEW = 90
EXAMPLES = 3
SCRATCH_NAMES = 3
# fmt: off
FIX = {
    "name_valid": "Rename it with letters, digits, _ and - only, at most 64 characters.",
    "input_schema": 'Publish an inputSchema: a JSON Schema object, {"type": "object", "properties": {...}}.',
    "namespaced": "Prefix each name with the service, not a verb: notes_search, not search_notes.",
    "says_what": "Open with a sentence that says what the tool does and returns, beyond its name.",
    "says_when": "Add a sentence: Use it when/for ...",
    "says_when_not": "Add a sentence: Not for ... (use other_tool), or the tool's limits.",
    "params_described": "Give every parameter a description: meaning, format, an example.",
    "schema_closed": "Set additionalProperties: false, and reject unknown arguments by name.",
    "required_declared": "List every parameter without a default in required.",
    "numbers_bounded": "Give each number a minimum and a maximum in the schema, not only in prose.",
    "closed_sets_enum": "Turn the listed options into an enum.",
    "title_set": "Set a title a person approving the call can read.",
    "annotations_set": "Set readOnlyHint and openWorldHint; for a tool that writes, destructiveHint and idempotentHint too.",
    "output_schema": "Publish an outputSchema for the structured result.",
    "no_hijack": "State facts about the tool; drop orders to the model and other tools' names.",
    "error_result": "Answer a bad call with an isError result, not a success or a JSON-RPC error.",
    "names_argument": "Name the argument in the error and say what is allowed.",
    "short": "Keep errors to a sentence or two.",
    "no_internals": "Leave tracebacks, exception classes, library names and URLs out of errors.",
    "no_echo": "Quote at most a short excerpt of a long input.",
    "no_splicing": "Pass values as query parameters or argv items, never spliced into code.",
    "survives": "Catch failures per call; never let one bad call end the server.",
    "refuses_first": "Validate the arguments against the published schema before doing anything else.",
    "keeps_closed_world": "Set openWorldHint: true on any tool that reaches another machine.",
}
# fmt: on


def safe(text: str) -> str:
    """Server text as the terminal may show it: control characters escaped, Rich markup inert."""
    return escape(printable(text))


def to_json(audit: Audit) -> str:
    text = json.dumps(asdict(audit), indent=2, ensure_ascii=False)
    # json escapes C0 controls but not DEL, C1 or bidi controls; a terminal would act on those.
    return re.sub(r"[\x7f-\x9f\u202a-\u202e\u2066-\u2069]", lambda m: f"\\u{ord(m.group(0)):04x}", text)


def render(audit: Audit, console: Console) -> None:
    tools = sum(len(server.tools) for server in audit.servers)
    console.print(
        f"[bold]MCP surface audit[/]: {len(audit.servers)} server(s), {tools} tool(s). "
        f"Token counts: {audit.token_method}."
    )
    for note in audit.notes:
        console.print(safe(note))
    console.print(summary_table(audit))
    _set_checks(console, "Set checks, all servers together", audit.combined_checks)
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
        if server.environment_failure:
            probe = "environment failure"
        else:
            probe = f"{score.probe_passed}/{score.probe_applicable}" if score.probed else "not run"
        table.add_row(
            safe(server.label),
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


def _set_checks(console: Console, title: str, checks: list[Check]) -> None:
    console.print(f"\n[bold]{safe(title)}[/]")
    for check in checks:
        why = f"\n      [dim]Why it matters: {safe(check.why)}[/]" if check.status == "fail" else ""
        console.print(f"  {MARK[check.status]} {safe(check.label)}: {safe(check.evidence)}{why}")


def rollup(server: ServerAudit) -> list[tuple[Check, int, int, list[tuple[str, Check]]]]:
    """Per check: a sample check, how many tools fail it, how many it applies to, and the failing ones.

    Probe criteria count a tool once, failing if any of its probes fails the criterion.
    """
    order: dict[str, Check] = {}
    failing: dict[str, list[tuple[str, Check]]] = defaultdict(list)
    scored: Counter[str] = Counter()
    for tool in server.tools:
        per_tool: dict[str, Check] = {}
        for check in tool.checks:
            per_tool[check.id] = check
        for result in tool.probes:
            for check in result.checks:
                labelled = Check(
                    check.id, check.label, check.status, f"{result.probe}: {check.evidence}", check.why
                )
                if (
                    check.id not in per_tool
                    or (check.status == "fail" and per_tool[check.id].status != "fail")
                    or (per_tool[check.id].status not in ("pass", "fail") and check.status == "pass")
                ):
                    per_tool[check.id] = labelled
        for key, check in per_tool.items():
            order.setdefault(key, check)
            if check.status in ("pass", "fail"):
                scored[key] += 1
            if check.status == "fail":
                failing[key].append((tool.name, check))
    return [(order[key], len(failing[key]), scored[key], failing[key]) for key in order]


def _server(console: Console, server: ServerAudit) -> None:
    score = server.score
    console.print(f"\n[bold]== {safe(server.label)}[/] ({safe(server.target)}): score {score.value:.1f}")
    if server.environment_failure:
        console.print(
            "  ! Every call failed the same way, which is the machine, not the surface; the probe is not "
            f"scored. The error: {safe(' '.join(server.environment_failure.split()))}"
        )
    for names, folder in ((server.scratch_left, "temporary folder"), (server.home_left, "home folder")):
        if names:
            more = f" and {len(names) - SCRATCH_NAMES} more" if len(names) > SCRATCH_NAMES else ""
            console.print(
                f"  Left {len(names)} entries in the {folder} the audit gave it, now removed: "
                f"{safe(', '.join(names[:SCRATCH_NAMES]))}{more}"
            )
    _set_checks(console, "Set checks", server.checks)
    rows = rollup(server)
    table = Table(box=box.MARKDOWN, title="Per check: tools failing, worst first")
    for column in ("Check", "Failing", "Examples"):
        table.add_column(column)
    failed = sorted((row for row in rows if row[1]), key=lambda row: -row[1])
    for check, count, applicable, tools in failed:
        examples = "; ".join(f"{name}: {_clip(found.evidence, 70)}" for name, found in tools[:EXAMPLES])
        table.add_row(safe(check.label), f"{count} of {applicable}", safe(examples))
    if failed:
        console.print(table)
        console.print("Why each matters, and the fix:")
        for check, *_ in failed:
            console.print(f"  {safe(check.label)}: {safe(check.why)} Fix: {FIX.get(check.id, '')}")
    else:
        console.print("Every check that applies passes on every tool.")
    _skipped(console, server)
    _detail(console, server)


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _skipped(console: Console, server: ServerAudit) -> None:
    reasons: Counter[str] = Counter()
    tools: set[str] = set()
    inconclusive = 0
    for tool in server.tools:
        for result in tool.probes:
            if result.reply == "skipped":
                reasons[result.sent.removeprefix("skipped: ")] += 1
                tools.add(tool.name)
            inconclusive += any(check.status == "inconclusive" for check in result.checks)
    if reasons:
        console.print(
            f"Probes skipped for safety: {sum(reasons.values())} calls on {len(tools)} tools, because"
        )
        for reason, count in reasons.most_common():
            console.print(f"  {count} x {safe(reason)}")
    if inconclusive:
        console.print(
            f"Inconclusive probes (an error that does not name the argument, when something else may "
            f"explain it): {inconclusive}"
        )


def _detail(console: Console, server: ServerAudit) -> None:
    """One line per finding; written straight out, since a large server has thousands."""
    lines: list[str] = []
    for tool in server.tools:
        findings = [f"{check.label}: {check.evidence}" for check in tool.checks if check.status == "fail"]
        for result in tool.probes:
            for check in result.checks:
                if check.status == "fail":
                    text = " ".join(result.text.split())
                    shown = text if len(text) <= TEXT_PREVIEW else text[: TEXT_PREVIEW - 1] + "…"
                    findings.append(
                        f"{result.probe} ({result.sent}): {check.label}: {check.evidence}; got: {shown}"
                    )
        if findings:
            lines.append(
                f"\n{tool.name}: {tool.cost.anthropic} tokens (Anthropic shape), {tool.cost.openai} (OpenAI)"
            )
            lines.extend(f"  ✗ {finding}" for finding in findings)
    if lines:
        console.print("\nPer tool:")
        console.file.write(printable("\n".join(lines)) + "\n")


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
            f"  ✗ {safe(json.dumps(choice.text, ensure_ascii=False))}: wanted {safe(choice.expected or '')}, "
            f"best {safe(best)}{safe(runner_up)}"
        )
