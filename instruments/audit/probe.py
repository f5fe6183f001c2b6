"""The behaviour probe: deliberately bad calls per tool, and what each one gets back. Safe by default.

**What may run.** By default every call carries a fault, so no call asks a tool to do its job.
A tool that says it changes nothing (`readOnlyHint: true`, and `openWorldHint: false` unless
`--allow-network`) gets every probe below, including faults a lax server may let through and then
run the tool (an unknown argument it ignores, "12" it coerces to 12). Every other tool gets only
calls that its own published schema rejects, and still rejects when a lax server ignores unknown
arguments or coerces types: so a server that validates refuses before running anything. A call the
schema would accept is not sent, and the report says which probes were skipped and why. A reply
to such a call that does not read as a refusal (it names no argument and says nothing like
"invalid" or "required") means the server ran the call instead of refusing it: from then on no call
that relies on refusal is sent to that server, and the report says so.
`--allow-side-effects` lifts this and adds a valid call per tool (the report then carries a warning line).

The calls, each wrong in one way:

- valid call (only with --allow-side-effects): every required argument gets a placeholder. It is
  not judged; it tells whether a later error is caused by the fault or by the placeholders.
- unknown argument: `probe_extra`, an argument the tool does not have. For a tool that may not
  run, it is sent alone, so the call also misses every required argument.
- wrong JSON type: the first required parameter (else the first parameter) in a type it does not
  accept; for tools that may run, numbers and booleans go as quoted text ("12", "true"), the slip
  models make most; otherwise a value no validator coerces (a word for a number, an object for text).
- missing required: the first required parameter is left out (for a tool that may not run: all).
- overlong string: the first text parameter gets 5,000 characters, or one more than its maxLength;
  for a tool that may not run, only when it has a maxLength.

Placeholders are an enum's first value, the default, "probe" for text (fitted to its length bounds),
a number inside the bounds, false, or the shortest list. Text is never a URL or a path.

Each answer is judged on:

- error result: it comes back as a result with isError. A JSON-RPC error is survivable, but the host
  gets it and the model never sees it; a success means the fault went through unnoticed.
- names the argument: the argument's name appears as a word in the text the model reads.
- short: at most 400 characters, about 100 tokens, paid again on the model's retry.
- no internals: no traceback, library or exception-class names, or URLs.
- no echo: no run of more than 32 characters of a long text that was sent (the overlong probe only).
- no splicing: no query or shell parser error about a value that was sent (`near "probe": syntax
  error`, `no such column: probe`, `sh: 1: probe: not found`): the argument reached code.
- survives: the server still answers tools/list afterwards (any answer, even an invalid one).

An error that does not name the argument is "inconclusive", not a pass or a fail, when something
else may explain it: the call also lacked other required arguments, or it carried placeholders
that were not shown to work (no valid call was made, or it failed too).
Text criteria are n/a when the model gets no text: a JSON-RPC error, or no answer at all.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import json
import re
from dataclasses import dataclass
from typing import Any

import anyio
import jsonschema
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp_types import CONNECTION_CLOSED, REQUEST_TIMEOUT, CallToolResult, Tool
from pydantic import ValidationError
from referencing.exceptions import Unresolvable

from instruments.audit.findings import Check, ProbeReply, ProbeResult, Status
from instruments.audit.schemas import accepted_types, json_type, properties, required, resolve

UNKNOWN_ARGUMENT = "probe_extra"
PLACEHOLDER_TEXT = "probe"
OVERLONG_CHARS = 5000
SHORT_CHARS = 400
ECHO_CHARS = 32
MAX_DEPTH = 5  # schemas may refer to themselves; placeholders stop nesting here
VALID_CALL = "valid call"
ENVIRONMENT_STREAK = 6

INTERNALS = re.compile(
    r"Traceback \(most recent call last\)|File \"[^\"]+\", line \d+|https?://\S+|\[type=\w+|input_value="
    r"|\b(pydantic(_core)?|jsonschema|httpx2?|requests|urllib3?|aiohttp|starlette|uvicorn|anyio|asyncio"
    r"|fastmcp|zoneinfo|[A-Z]\w*(Error|Exception))\b"
)
# How a validator words a refusal; a reply to a call its schema rejects without any of these was
# most likely the tool running (a lookup that failed, a browser that would not start).
REFUSAL = re.compile(
    r"invalid|required|validat|expected|must (be|have|not)|not of type|unexpected|unknown|missing|not allowed"
    r"|should (be|have)|is not (a |an )?valid|too (long|large|many)|at most|exceeds|schema|argument|parameter"
    r"|field|property|type error|cannot be|is not one of|not a (string|number|integer|boolean|list|array|object)",
    re.IGNORECASE,
)
# A failed attempt to reach another machine, as Node, Python and their HTTP clients word it.
NETWORK_ERROR = re.compile(
    r"getaddrinfo\b[^\n]{0,60}|\bE(NOTFOUND|AI_AGAIN|CONNREFUSED|CONNRESET|TIMEDOUT|NETUNREACH)\b[^\n]{0,60}"
    r"|\bfetch failed\b|Name or service not known|Temporary failure in name resolution|Network is unreachable"
    r"|nodename nor servname|Failed to establish a new connection|Max retries exceeded with url",
    re.IGNORECASE,
)
REACHED_OUT = (
    "an earlier tool of this server that says openWorldHint: false failed on a network error, so the "
    "server's closed-world claims are not trusted"
)
# A parser's complaint: the value reached SQL or a shell as code, not as data.
SPLICED = re.compile(
    r"near \"[^\"]*\": syntax error|syntax error at or near|unrecognized token|\b(Parser|Binder|Catalog) Error"
    r"|no such (table|column|function)|\bsh: \d+:|/bin/(ba)?sh:|command not found",
    re.IGNORECASE,
)

WHY = {
    "error_result": "Only an isError result reaches the model; anything else leaves it no way to correct the call.",
    "names_argument": "An error that names the argument tells the model exactly what to fix on its retry.",
    "short": "The error is read, and paid for, on every later request of the turn.",
    "no_internals": "Tracebacks, library names and URLs cost tokens and teach the model nothing it can act on.",
    "no_echo": "Echoing a long input back doubles its cost and can replay injected text.",
    "no_splicing": "A value that reaches a query or shell parser as code can be made to run other code.",
    "survives": "A server that stops answering takes every one of its tools away for the rest of the session.",
    "refuses_first": "A server that acts before it validates does whatever a malformed call asks, and cannot be "
    "probed safely.",
    "keeps_closed_world": "Hosts let a closed-world tool run without asking; one that reaches the network "
    "sends data off the machine unasked.",
}
LABELS = {
    "error_result": "comes back as an error result",
    "names_argument": "names the argument",
    "short": f"short (≤ {SHORT_CHARS} characters)",
    "no_internals": "free of tracebacks, library names and URLs",
    "no_echo": "does not echo the input",
    "no_splicing": "no sign the value was spliced into a query or command",
    "survives": "server survives",
    "refuses_first": "refuses a call its schema rejects before running anything",
    "keeps_closed_world": "keeps to its closed world (openWorldHint: false)",
}


@dataclass(frozen=True)
class Permission:
    """What the caller allows the probe to cause."""

    side_effects: bool = False
    network: bool = False


def run_refusal(tool: Tool, permission: Permission) -> str:
    """Why this tool may not run with valid arguments, or "" when it may."""
    if permission.side_effects:
        return ""
    hints = tool.annotations
    if hints is None or hints.read_only_hint is not True:
        return "it is not annotated readOnlyHint: true, so a valid call could change something"
    if hints.open_world_hint is not False and not permission.network:
        return "it may reach the network (openWorldHint is not false; --allow-network permits it)"
    return ""


@dataclass(frozen=True)
class Plan:
    """One call; `arguments` None means not sent, and `sent` then says why."""

    probe: str
    argument: str | None
    arguments: dict[str, Any] | None
    sent: str
    alone: bool = True
    """The probed fault is the call's only fault, so an error can be blamed on it."""
    skipped: bool = False
    """Not sent for safety (rather than not applicable)."""
    forbidden: bool = True
    """The schema forbids the call; False for a long text without maxLength, which it allows."""
    placeholders: bool = False
    """The call carries placeholder values, which may themselves cause an error if the tool runs."""


def plans(tool: Tool, may_run: bool = True, valid_call: bool = False) -> list[Plan]:
    """The calls for this tool, in the order of the module docstring; `valid_call` adds the fault-free one."""
    schema = tool.input_schema
    params = properties(schema)
    needed = [name for name in required(schema) if name in params]
    base = {name: placeholder(schema, params[name]) for name in needed}
    order = list(dict.fromkeys([*needed, *params]))
    if may_run:
        faulty = [
            Plan(
                "unknown argument",
                UNKNOWN_ARGUMENT,
                {**base, UNKNOWN_ARGUMENT: PLACEHOLDER_TEXT},
                f'{UNKNOWN_ARGUMENT}="{PLACEHOLDER_TEXT}"',
            ),
            _wrong_type(schema, params, order, base, lax=True),
            _missing(needed, base),
            _overlong(schema, params, order, base, bounded_only=False),
        ]
        faulty = [_with_placeholders(plan, base) for plan in faulty]
        return [Plan(VALID_CALL, None, base, "placeholders only")] * valid_call + faulty
    refused = [
        _unknown_alone(needed),
        _wrong_type(schema, params, order, {}, lax=False),
        _missing(needed, {}),
        _overlong(schema, params, order, {}, bounded_only=True),
    ]
    return [_only_if_refused(schema, plan) for plan in refused]


def _with_placeholders(plan: Plan, base: dict[str, Any]) -> Plan:
    """The plan, marked when its call carries placeholders: beside the probed argument, or as its
    text (an overlong text is placeholder words, which may be wrong for more than their length)."""
    others = set(base) - {plan.argument}
    if plan.arguments is None or not (others & set(plan.arguments) or plan.probe == "overlong string"):
        return plan
    return dataclasses.replace(plan, placeholders=True)


def _unknown_alone(needed: list[str]) -> Plan:
    if not needed:
        return Plan(
            "unknown argument",
            UNKNOWN_ARGUMENT,
            None,
            "skipped: with no required parameter to leave out, a server that ignores unknown arguments "
            "would run the tool",
            skipped=True,
        )
    return Plan(
        "unknown argument",
        UNKNOWN_ARGUMENT,
        {UNKNOWN_ARGUMENT: PLACEHOLDER_TEXT},
        f'only {UNKNOWN_ARGUMENT}="{PLACEHOLDER_TEXT}"',
        alone=False,
    )


def _wrong_type(
    schema: dict[str, Any],
    params: dict[str, dict[str, Any]],
    order: list[str],
    base: dict[str, Any],
    *,
    lax: bool,
) -> Plan:
    needed = set(required(schema))
    for name in order:
        value = wrong_value(accepted_types(schema, params[name]), lax=lax)
        if value is not None:
            alone = lax or needed <= {name}
            return Plan("wrong JSON type", name, {**base, name: value}, f"{name}={json.dumps(value)}", alone)
    return Plan("wrong JSON type", None, None, "no parameter with a type to get wrong")


def _missing(needed: list[str], base: dict[str, Any]) -> Plan:
    if not needed:
        return Plan("missing required", None, None, "no required parameters")
    rest = {name: value for name, value in base.items() if name != needed[0]}
    alone = bool(base) or len(needed) == 1
    sent = f"without {needed[0]}" if alone else f"without {', '.join(needed)}"
    return Plan("missing required", needed[0], rest, sent, alone)


def _overlong(
    schema: dict[str, Any],
    params: dict[str, dict[str, Any]],
    order: list[str],
    base: dict[str, Any],
    *,
    bounded_only: bool,
) -> Plan:
    name = next((name for name in order if "string" in accepted_types(schema, params[name])), None)
    if name is None:
        return Plan("overlong string", None, None, "no text parameters")
    limit = params[name].get("maxLength")
    if bounded_only and not isinstance(limit, int):
        return Plan(
            "overlong string",
            name,
            None,
            f"skipped: {name} has no maxLength, so a long text is valid and the call could run the tool",
            skipped=True,
        )
    length = max(OVERLONG_CHARS, int(limit or 0) + 1)
    alone = bool(base) or set(required(schema)) <= {name}
    sent = f"{name}=<{length} characters>"
    return Plan(
        "overlong string", name, {**base, name: overlong(length)}, sent, alone, forbidden=limit is not None
    )


def _only_if_refused(schema: dict[str, Any], plan: Plan) -> Plan:
    """`plan` if the schema rejects its call even read laxly; otherwise the same plan, skipped."""
    if plan.arguments is None:
        return plan
    try:
        lax = _lax_validator(json.dumps(schema, sort_keys=True))
        refused = lax is not None and not lax.is_valid(plan.arguments)
    except (Unresolvable, RecursionError, TypeError, ValueError):
        lax = None
    if lax is None:
        return Plan(
            plan.probe,
            plan.argument,
            None,
            "skipped: the inputSchema is not valid JSON Schema, so no call can be shown to be refused",
            skipped=True,
        )
    if refused:
        return plan
    return Plan(
        plan.probe,
        plan.argument,
        None,
        "skipped: the schema accepts this call, so the tool could run",
        skipped=True,
    )


@functools.lru_cache(maxsize=4096)
def _lax_validator(text: str) -> Any:
    """A validator of the schema as a lax server reads it, or None when the schema is not valid."""
    schema = json.loads(text)
    try:
        validator = jsonschema.validators.validator_for(schema)
        validator.check_schema(schema)
    except (jsonschema.SchemaError, RecursionError, TypeError, ValueError):
        return None
    return validator(_without_closed_objects(schema))


def _without_closed_objects(node: Any) -> Any:
    """The schema as a server that ignores unknown arguments reads it."""
    if isinstance(node, dict):
        return {
            key: _without_closed_objects(value)
            for key, value in node.items()
            if key != "additionalProperties"
        }
    if isinstance(node, list):
        return [_without_closed_objects(value) for value in node]
    return node


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
        shortest, longest = _int(node.get("minLength"), 0), node.get("maxLength")
        text = (PLACEHOLDER_TEXT * (shortest + 1))[: max(shortest, len(PLACEHOLDER_TEXT))]
        return text[: _int(longest, len(text))] if longest is not None else text
    if kind in ("integer", "number"):
        value = inside_bounds(node)
        return int(value) if kind == "integer" else value
    if kind == "boolean":
        return False
    if kind == "array" and depth < MAX_DEPTH:
        item = node.get("items", {})
        item = item if isinstance(item, dict) else {}
        return [placeholder(root, item, depth + 1) for _ in range(min(_int(node.get("minItems"), 0), 10))]
    if kind == "object" and depth < MAX_DEPTH:
        fields = properties(node)
        return {name: placeholder(root, fields[name], depth + 1) for name in required(node) if name in fields}
    return None if kind == "null" else PLACEHOLDER_TEXT


def _int(value: Any, default: int) -> int:
    """A schema's length keyword, or `default` when it is missing or not a sane whole number."""
    return (
        value if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 100_000 else default
    )


def inside_bounds(node: dict[str, Any]) -> float:
    """1, moved inside the node's bounds; an exclusive bound is stepped over by one."""
    value = 1.0
    numbers = {
        key: node[key]
        for key in ("minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum")
        if isinstance(node.get(key), int | float) and not isinstance(node.get(key), bool)
    }
    if "minimum" in numbers:
        value = max(value, numbers["minimum"])
    if "exclusiveMinimum" in numbers:
        value = max(value, numbers["exclusiveMinimum"] + 1)
    if "maximum" in numbers:
        value = min(value, numbers["maximum"])
    if "exclusiveMaximum" in numbers:
        value = min(value, numbers["exclusiveMaximum"] - 1)
    return value


def wrong_value(accepted: set[str], lax: bool = True) -> Any:
    """A value of a type the parameter does not accept, or None when it accepts anything.

    `lax`: the slips models make ("12" for 12), which a coercing server may accept and run with.
    Otherwise only values that no validator coerces into an accepted type.
    """
    if lax and "string" not in accepted:
        if "integer" in accepted:
            return "12"
        return "true" if "boolean" in accepted else PLACEHOLDER_TEXT
    candidates: tuple[Any, ...] = (
        (12345, True, ["probe"], {"probe": 1}) if lax else (PLACEHOLDER_TEXT, {"probe": 1}, ["probe"])
    )
    return next((v for v in candidates if json_type(v) not in accepted), None)


def overlong(length: int) -> str:
    """Distinct words, so any echoed run of it can be found, and nothing a server could fetch."""
    words = itertools.chain.from_iterable(f"overlong{i} " for i in itertools.count())
    return "".join(itertools.islice(words, length))


class Prober:
    """Sends the plans over one connection; once the server stops answering, the rest are not run."""

    def __init__(self, client: Client, timeout: float, permission: Permission | None = None) -> None:
        self.client = client
        self.timeout = timeout
        self.permission = permission or Permission()
        self.alive = True
        # The same error on every call, across tools, is the machine (no browser, no network): after
        # ENVIRONMENT_STREAK such calls the rest are not sent, since they can only repeat it.
        self.streak: list[str] = []
        # A call its schema rejects that comes back as anything but a refusal was run, not refused:
        # the server does not validate first, so calls that rely on it are not sent any more.
        self.ran_unchecked = False
        # A tool that says openWorldHint: false and fails on a network error reached out all the same:
        # the server's closed-world claims are not trusted after that, and its tools get refused calls.
        self.reached_out = False

    async def probe(self, tool: Tool) -> list[ProbeResult]:
        refusal = run_refusal(tool, self.permission)
        closed = not refusal and claims_closed_world(tool, self.permission)
        if closed and self.reached_out:
            refusal, closed = REACHED_OUT, False
        results: list[ProbeResult] = []
        valid: bool | None = None  # did the placeholder call succeed? None: not made
        for plan in plans(tool, may_run=not refusal, valid_call=self.permission.side_effects):
            if closed and self.reached_out:  # this very tool reached out: the rest of its calls could too
                results.append(
                    ProbeResult(plan.probe, plan.argument, f"skipped: {REACHED_OUT}", "skipped", "", [])
                )
                continue
            result = await self._run(tool.name, plan, valid, relies_on_refusal=bool(refusal), closed=closed)
            if plan.probe == VALID_CALL:
                valid = result.reply == "success result"
            results.append(result)
        return results

    async def _run(
        self, name: str, plan: Plan, valid: bool | None, relies_on_refusal: bool = False, closed: bool = False
    ) -> ProbeResult:
        if plan.arguments is None:
            reply: ProbeReply = "skipped" if plan.skipped else "not applicable"
            return ProbeResult(plan.probe, plan.argument, plan.sent, reply, "", [])
        if relies_on_refusal and self.ran_unchecked:
            why = "skipped: the server ran an earlier call that its schema rejects, so it is not shown to refuse this one"
            return ProbeResult(plan.probe, plan.argument, why, "skipped", "", [])
        if not self.alive:
            return ProbeResult(
                plan.probe, plan.argument, plan.sent, "not run", "", probe_checks(plan, "not run", "", False)
            )
        if len(self.streak) >= ENVIRONMENT_STREAK and len(set(self.streak)) == 1:
            why = "skipped: every call so far failed with the same error, which more calls would only repeat"
            return ProbeResult(plan.probe, plan.argument, why, "skipped", "", [])
        reply, text = await self._call(name, plan.arguments)
        named = bool(plan.argument) and _mentions(plan.argument or "", text)
        self.streak = [*self.streak, error_shape(text)] if reply == "error result" and not named else []
        self.ran_unchecked = self.ran_unchecked or (relies_on_refusal and not refused(plan, reply, text))
        self.reached_out = self.reached_out or (closed and bool(NETWORK_ERROR.search(text)))
        self.alive = await self._answers()
        checks = (
            []
            if plan.probe == VALID_CALL
            else probe_checks(plan, reply, text, self.alive, valid, relies_on_refusal, closed)
        )
        return ProbeResult(plan.probe, plan.argument, plan.sent, reply, text, checks)

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
        """Whether the server still answers tools/list; any answer, even an invalid one, shows it is alive."""
        try:
            with anyio.fail_after(self.timeout):
                await self.client.list_tools(cache_mode="refresh")
        except ValidationError:
            return True
        except MCPError as exc:
            return exc.code not in (CONNECTION_CLOSED, REQUEST_TIMEOUT)
        except Exception:  # whatever the transport raises, a server that cannot answer is gone
            return False
        return True


def error_shape(text: str) -> str:
    """An error with its numbers and quoted values blanked, so one cause reads as one text."""
    return re.sub(r"'[^']*'|\"[^\"]*\"|\d+", "_", text.strip())[:300]


def reply_text(result: CallToolResult) -> str:
    """What the model reads of a result: its text blocks, else its structured content."""
    texts = [block.text for block in result.content if block.type == "text"]
    if texts:
        return "\n".join(texts)
    return json.dumps(result.structured_content) if result.structured_content is not None else ""


def probe_checks(
    plan: Plan,
    reply: ProbeReply,
    text: str,
    survived: bool,
    valid: bool | None = True,
    relies_on_refusal: bool = False,
    closed: bool = False,
) -> list[Check]:
    """`valid`: whether the valid call succeeded (None: it was not made). `relies_on_refusal`: the
    tool may not run, so only the server's refusal keeps the call from doing anything. `closed`: it
    ran because it says openWorldHint: false."""
    readable = reply in ("error result", "success result")
    named = readable and _mentions(plan.argument or "", text)
    # Untested placeholders may be what failed, if the server let the fault through and ran the tool.
    blamable = plan.alone and (valid is True or (valid is None and not plan.placeholders))
    verdicts: list[tuple[str, Status, str]] = [
        ("error_result", *_error_result(reply, named, blamable, plan.forbidden)),
        ("names_argument", *_names(plan.argument or "", reply, named, readable, blamable)),
        ("short", *_short(text, readable)),
        ("no_internals", *_internals(text, readable)),
        ("no_echo", *_echo(plan.arguments or {}, text, readable)),
        ("no_splicing", *_splicing(plan.arguments or {}, text, readable)),
        ("survives", *_survives(reply, survived)),
    ]
    if relies_on_refusal:
        verdicts.append(("refuses_first", *_refuses_first(plan, reply, text)))
    if closed and NETWORK_ERROR.search(text):
        verdicts.append(("keeps_closed_world", "fail", f"says openWorldHint: false, yet: {text[:160]!r}"))
    return [Check(key, LABELS[key], status, evidence, WHY[key]) for key, status, evidence in verdicts]


def claims_closed_world(tool: Tool, permission: Permission) -> bool:
    """Whether the tool may run only because it says openWorldHint: false."""
    hints = tool.annotations
    return not (permission.network or permission.side_effects) and bool(
        hints and hints.open_world_hint is False
    )


def refused(plan: Plan, reply: ProbeReply, text: str) -> bool:
    """Whether the reply reads as a validator's refusal rather than the tool's own failure or success."""
    named = bool(plan.argument) and _mentions(plan.argument or "", text)
    return reply in ("error result", "protocol error") and (named or bool(REFUSAL.search(text)))


def _refuses_first(plan: Plan, reply: ProbeReply, text: str) -> tuple[Status, str]:
    if reply == "not run":
        return "n/a", "not sent: the server had stopped answering"
    if refused(plan, reply, text):
        return "pass", "refused"
    return "fail", f"ran instead of refusing: {reply}" + (f": {text[:160]}" if text else "")


def _mentions(argument: str, text: str) -> bool:
    return bool(re.search(rf"(?<![A-Za-z0-9_]){re.escape(argument)}(?![A-Za-z0-9_])", text, re.IGNORECASE))


def _error_result(reply: ProbeReply, named: bool, blamable: bool, forbidden: bool) -> tuple[Status, str]:
    if reply == "success result" and not forbidden:
        return "n/a", "accepted: the schema sets no maxLength, so a long text is valid"
    if reply == "error result":
        if named or blamable:
            return "pass", "isError result"
        return (
            "inconclusive",
            "an isError result that does not name the argument; something else may explain it",
        )
    outcomes: dict[ProbeReply, tuple[Status, str]] = {
        "success result": ("fail", "a success result: the bad call went through unnoticed"),
        "protocol error": ("fail", "a JSON-RPC error: the host gets it, the model never sees it"),
        "no answer": ("fail", "no answer: the call timed out or the connection closed"),
        "not run": ("fail", "not run: the server had already stopped answering"),
    }
    return outcomes[reply]


def _names(
    argument: str, reply: ProbeReply, named: bool, readable: bool, blamable: bool
) -> tuple[Status, str]:
    if not readable:
        return "n/a", "the model gets no text"
    if named:
        return "pass", f"mentions {argument}"
    if reply == "error result" and not blamable:
        return "inconclusive", f"does not mention {argument}, but something else may explain the error"
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
    # The sent texts' windows in a set: linear in the reply, not reply times input.
    sent = {value[i : i + window] for value in long_texts for i in range(len(value) - window + 1)}
    for start in range(max(0, len(text) - window + 1)):
        if text[start : start + window] in sent:
            return "fail", f"repeats {text[start : start + window]!r}..."
    return "pass", "no run of more than 32 sent characters"


def _splicing(arguments: dict[str, Any], text: str, readable: bool) -> tuple[Status, str]:
    if not readable:
        return "n/a", "the model gets no text"
    found = SPLICED.search(text)
    sent = {
        word for v in arguments.values() if isinstance(v, str) for word in re.findall(r"\w{4,}", v[:2000])
    }
    if found and sent & set(re.findall(r"\w{4,}", text)):
        start = max(0, found.start() - 40)
        return "fail", f"a parser error about a value that was sent: {text[start : found.end() + 40]!r}"
    return "pass", "no parser error about a sent value"


def _survives(reply: ProbeReply, survived: bool) -> tuple[Status, str]:
    if reply == "not run":
        return "fail", "had stopped answering before this probe"
    return ("pass", "still answers tools/list") if survived else ("fail", "stopped answering after this call")
