"""The behaviour probe: four deliberately bad calls per tool, and what each one gets back.

Each call is wrong in exactly one way; every other required argument gets an inert placeholder:

- unknown argument: the call adds `probe_extra`, an argument the tool does not have.
- wrong JSON type: the first required parameter (else the first parameter) in a type it does not
  accept; numbers and booleans go as quoted text ("12", "true"), the slip models make most.
- missing required: the first required parameter is left out.
- overlong string: the first text parameter gets 5,000 characters, or one more than its maxLength.

Placeholders are an enum's first value, the default, "probe" for text (fitted to its length bounds),
a number inside the bounds, false, or the shortest list. Text is never a URL or a path, so a server
that ignores the fault still reaches nothing; still, audit a tool with side effects with --no-probe.

Each answer is judged on:

- error result: it comes back as a result with isError. A JSON-RPC error is survivable, but the host
  gets it and the model never sees it; a success means the fault went through unnoticed.
- names the argument: the argument's name appears as a word in the text the model reads.
- short: at most 400 characters, about 100 tokens, paid again on the model's retry.
- no internals: no traceback, library or exception-class names, or URLs.
- no echo: no run of more than 32 characters of a long text that was sent (the overlong probe only).
- survives: the server still answers tools/list afterwards.

Text criteria are n/a when the model gets no text: a JSON-RPC error, or no answer at all.
"""

from __future__ import annotations

import itertools
import json
import re
from dataclasses import dataclass
from typing import Any

import anyio
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp_types import CONNECTION_CLOSED, REQUEST_TIMEOUT, CallToolResult, Tool
from pydantic import ValidationError

from instruments.audit.findings import Check, ProbeReply, ProbeResult, Status
from instruments.audit.schemas import accepted_types, json_type, properties, required, resolve

UNKNOWN_ARGUMENT = "probe_extra"
PLACEHOLDER_TEXT = "probe"
OVERLONG_CHARS = 5000
SHORT_CHARS = 400
ECHO_CHARS = 32
MAX_DEPTH = 5  # schemas may refer to themselves; placeholders stop nesting here

INTERNALS = re.compile(
    r"Traceback \(most recent call last\)|File \"[^\"]+\", line \d+|https?://\S+|\[type=\w+|input_value="
    r"|\b(pydantic(_core)?|jsonschema|httpx2?|requests|urllib3?|aiohttp|starlette|uvicorn|anyio|asyncio"
    r"|fastmcp|zoneinfo|[A-Z]\w*(Error|Exception))\b"
)

WHY = {
    "error_result": "Only an isError result reaches the model; anything else leaves it no way to correct the call.",
    "names_argument": "An error that names the argument tells the model exactly what to fix on its retry.",
    "short": "The error is read, and paid for, on every later request of the turn.",
    "no_internals": "Tracebacks, library names and URLs cost tokens and teach the model nothing it can act on.",
    "no_echo": "Echoing a long input back doubles its cost and can replay injected text.",
    "survives": "A server that stops answering takes every one of its tools away for the rest of the session.",
}


@dataclass(frozen=True)
class Plan:
    """One bad call, or why it does not apply to this tool (arguments is None)."""

    probe: str
    argument: str | None
    arguments: dict[str, Any] | None
    sent: str


def plans(tool: Tool) -> list[Plan]:
    """The four bad calls for this tool, in the order of the module docstring."""
    schema = tool.input_schema
    params = properties(schema)
    needed = [name for name in required(schema) if name in params]
    base = {name: placeholder(schema, params[name]) for name in needed}
    required_first = list(dict.fromkeys([*needed, *params]))
    unknown = {**base, UNKNOWN_ARGUMENT: PLACEHOLDER_TEXT}
    return [
        Plan("unknown argument", UNKNOWN_ARGUMENT, unknown, f'{UNKNOWN_ARGUMENT}="{PLACEHOLDER_TEXT}"'),
        _wrong_type(schema, params, required_first, base),
        _missing(needed, base),
        _overlong(schema, params, required_first, base),
    ]


def _wrong_type(
    schema: dict[str, Any], params: dict[str, dict[str, Any]], order: list[str], base: dict[str, Any]
) -> Plan:
    for name in order:
        value = wrong_value(accepted_types(schema, params[name]))
        if value is not None:
            return Plan("wrong JSON type", name, {**base, name: value}, f"{name}={json.dumps(value)}")
    return Plan("wrong JSON type", None, None, "no parameter with a type to get wrong")


def _missing(needed: list[str], base: dict[str, Any]) -> Plan:
    if not needed:
        return Plan("missing required", None, None, "no required parameters")
    rest = {name: value for name, value in base.items() if name != needed[0]}
    return Plan("missing required", needed[0], rest, f"without {needed[0]}")


def _overlong(
    schema: dict[str, Any], params: dict[str, dict[str, Any]], order: list[str], base: dict[str, Any]
) -> Plan:
    name = next((name for name in order if "string" in accepted_types(schema, params[name])), None)
    if name is None:
        return Plan("overlong string", None, None, "no text parameters")
    length = max(OVERLONG_CHARS, int(params[name].get("maxLength", 0)) + 1)
    return Plan("overlong string", name, {**base, name: overlong(length)}, f"{name}=<{length} characters>")


def placeholder(root: dict[str, Any], node: dict[str, Any], depth: int = 0) -> Any:
    """An inert value the node accepts, so that only the probed fault is wrong."""
    node = resolve(root, node)
    if "const" in node:
        return node["const"]
    if node.get("enum"):
        return node["enum"][0]
    if "default" in node:
        return node["default"]
    options = node.get("anyOf") or node.get("oneOf")
    if isinstance(options, list) and depth < MAX_DEPTH:
        usable = [o for o in options if isinstance(o, dict) and resolve(root, o).get("type") != "null"]
        return placeholder(root, (usable or options)[0], depth + 1)
    kind = node.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind == "string":
        shortest, longest = int(node.get("minLength", 0)), node.get("maxLength")
        text = (PLACEHOLDER_TEXT * (shortest + 1))[: max(shortest, len(PLACEHOLDER_TEXT))]
        return text[: int(longest)] if longest is not None else text
    if kind in ("integer", "number"):
        value = inside_bounds(node)
        return int(value) if kind == "integer" else value
    if kind == "boolean":
        return False
    if kind == "array" and depth < MAX_DEPTH:
        item = node.get("items", {})
        return [placeholder(root, item, depth + 1) for _ in range(int(node.get("minItems", 0)))]
    if kind == "object" and depth < MAX_DEPTH:
        fields = properties(node)
        return {name: placeholder(root, fields[name], depth + 1) for name in required(node) if name in fields}
    return None if kind == "null" else PLACEHOLDER_TEXT


def inside_bounds(node: dict[str, Any]) -> float:
    """1, moved inside the node's bounds; an exclusive bound is stepped over by one."""
    value = 1.0
    if "minimum" in node:
        value = max(value, node["minimum"])
    if "exclusiveMinimum" in node:
        value = max(value, node["exclusiveMinimum"] + 1)
    if "maximum" in node:
        value = min(value, node["maximum"])
    if "exclusiveMaximum" in node:
        value = min(value, node["exclusiveMaximum"] - 1)
    return value


def wrong_value(accepted: set[str]) -> Any:
    """A value of a type the parameter does not accept, or None when it accepts anything."""
    if "string" not in accepted:
        if "integer" in accepted:
            return "12"
        return "true" if "boolean" in accepted else PLACEHOLDER_TEXT
    return next((v for v in (12345, True, ["probe"], {"probe": 1}) if json_type(v) not in accepted), None)


def overlong(length: int) -> str:
    """Distinct words, so any echoed run of it can be found, and nothing a server could fetch."""
    words = itertools.chain.from_iterable(f"overlong{i} " for i in itertools.count())
    return "".join(itertools.islice(words, length))


class Prober:
    """Sends the plans over one connection; once the server stops answering, the rest are not run."""

    def __init__(self, client: Client, timeout: float) -> None:
        self.client = client
        self.timeout = timeout
        self.alive = True

    async def probe(self, tool: Tool) -> list[ProbeResult]:
        return [await self._run(tool.name, plan) for plan in plans(tool)]

    async def _run(self, name: str, plan: Plan) -> ProbeResult:
        if plan.arguments is None:
            return ProbeResult(plan.probe, None, plan.sent, "not applicable", "", [])
        if not self.alive:
            return ProbeResult(
                plan.probe, plan.argument, plan.sent, "not run", "", probe_checks(plan, "not run", "", False)
            )
        reply, text = await self._call(name, plan.arguments)
        self.alive = await self._answers()
        return ProbeResult(
            plan.probe, plan.argument, plan.sent, reply, text, probe_checks(plan, reply, text, self.alive)
        )

    async def _call(self, name: str, arguments: dict[str, Any]) -> tuple[ProbeReply, str]:
        try:
            with anyio.fail_after(self.timeout):
                result = await self.client.call_tool(name, arguments)
        except TimeoutError:
            return "no answer", ""
        except MCPError as exc:
            if exc.code in (CONNECTION_CLOSED, REQUEST_TIMEOUT):
                return "no answer", ""
            return "protocol error", f"JSON-RPC error {exc.code}: {exc.message}"
        except RuntimeError as exc:  # the client found a success result that breaks the tool's outputSchema
            return "success result", str(exc)
        except ValidationError:
            return "protocol error", "a result that is not a valid MCP CallToolResult"
        return ("error result" if result.is_error else "success result"), reply_text(result)

    async def _answers(self) -> bool:
        try:
            with anyio.fail_after(self.timeout):
                await self.client.list_tools(cache_mode="refresh")
        except Exception:  # whatever the transport raises, a server that cannot list its tools is gone
            return False
        return True


def reply_text(result: CallToolResult) -> str:
    """What the model reads of a result: its text blocks, else its structured content."""
    texts = [block.text for block in result.content if block.type == "text"]
    if texts:
        return "\n".join(texts)
    return json.dumps(result.structured_content) if result.structured_content is not None else ""


def probe_checks(plan: Plan, reply: ProbeReply, text: str, survived: bool) -> list[Check]:
    readable = reply in ("error result", "success result")
    verdicts: list[tuple[str, str, Status, str]] = [
        ("error_result", "comes back as an error result", *_error_result(reply)),
        ("names_argument", "names the argument", *_names(plan.argument or "", text, readable)),
        ("short", f"short (≤ {SHORT_CHARS} characters)", *_short(text, readable)),
        ("no_internals", "free of tracebacks, library names and URLs", *_internals(text, readable)),
        ("no_echo", "does not echo the input", *_echo(plan.arguments or {}, text, readable)),
        ("survives", "server survives", *_survives(reply, survived)),
    ]
    return [Check(key, label, status, evidence, WHY[key]) for key, label, status, evidence in verdicts]


def _error_result(reply: ProbeReply) -> tuple[Status, str]:
    outcomes: dict[ProbeReply, tuple[Status, str]] = {
        "error result": ("pass", "isError result"),
        "success result": ("fail", "a success result: the bad call went through unnoticed"),
        "protocol error": ("fail", "a JSON-RPC error: the host gets it, the model never sees it"),
        "no answer": ("fail", "no answer: the call timed out or the connection closed"),
        "not run": ("fail", "not run: the server had already stopped answering"),
    }
    return outcomes[reply]


def _names(argument: str, text: str, readable: bool) -> tuple[Status, str]:
    if not readable:
        return "n/a", "the model gets no text"
    if re.search(rf"(?<![A-Za-z0-9_]){re.escape(argument)}(?![A-Za-z0-9_])", text, re.IGNORECASE):
        return "pass", f"mentions {argument}"
    return "fail", f"does not mention {argument}"


def _short(text: str, readable: bool) -> tuple[Status, str]:
    if not readable:
        return "n/a", "the model gets no text"
    return ("pass" if len(text) <= SHORT_CHARS else "fail"), f"{len(text)} characters"


def _internals(text: str, readable: bool) -> tuple[Status, str]:
    if not readable:
        return "n/a", "the model gets no text"
    found = INTERNALS.search(text)
    return ("fail", f"contains {found.group(0)[:60]!r}") if found else ("pass", "none found")


def _echo(arguments: dict[str, Any], text: str, readable: bool) -> tuple[Status, str]:
    long_texts = [value for value in arguments.values() if isinstance(value, str) and len(value) > ECHO_CHARS]
    if not readable or not long_texts:
        return "n/a", "no long text sent" if readable else "the model gets no text"
    window = ECHO_CHARS + 1
    for start in range(max(0, len(text) - window + 1)):
        if any(text[start : start + window] in sent for sent in long_texts):
            return "fail", f"repeats {text[start : start + window]!r}..."
    return "pass", "no run of more than 32 sent characters"


def _survives(reply: ProbeReply, survived: bool) -> tuple[Status, str]:
    if reply == "not run":
        return "fail", "had stopped answering before this probe"
    return ("pass", "still answers tools/list") if survived else ("fail", "stopped answering after this call")
