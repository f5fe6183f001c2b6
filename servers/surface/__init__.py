"""The tool surface every server in this suite shares. Copy this folder along with any server.

A model never runs a tool: it reads each tool's name, description and JSON Schema, writes a JSON
request, and reads the result as more context. So this module makes the surface the contract:

1. The schema is the contract. Arguments are validated against exactly the published inputSchema
   (`additionalProperties: false`, no coercion of `"2"` to 2), and the schema carries no noise keys.
2. Errors teach. Bad arguments come back as `is_error` results, one short line per problem, naming
   the argument, what is allowed (in words, never a regular expression), what was received and what
   to do next. A tool signals a failure by raising `ToolFailure`; anything else is logged to stderr
   and reported generically.
3. Output is bounded. Result text is capped (`MCP_MAX_RESULT_CHARS`, or per tool). A result that can
   grow is a `TrimmableReply` that says how to `Trim` it: what fits is returned, with a note saying
   how many items were cut and how to get them, and structured content still valid.
4. No call stalls the server. A synchronous tool runs in a worker thread from a bounded pool, every
   call has a time limit, and checking arguments costs no more than reading them.
5. Metadata is honest. Every tool has a namespaced name (the service, never a verb), a description,
   a title and all four annotations set explicitly, or it is refused at registration.

What the surface relies on in the SDK, and which test notices first when that changes: sdk.py.
"""

from __future__ import annotations

import difflib
import inspect
import json
import logging
import math
import os
import re
import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from importlib import metadata
from typing import Any, Generic, TypeVar, get_args, get_origin, get_type_hints

import anyio
import anyio.to_thread
from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS, CallToolResult, TextContent, ToolAnnotations
from mcp_types import Tool as ToolDefinition
from pydantic import BaseModel, ConfigDict, ValidationError, create_model
from pydantic_core import ErrorDetails

from servers.surface.logs import configure_logging, printable
from servers.surface.transport import parse_arguments, run_http, run_stdio

logger = logging.getLogger(__name__)

# Names every real client accepts: Claude Desktop and OpenAI both reject dots and names over 64.
TOOL_NAME = re.compile(r"^[a-z][a-z0-9]*(_[a-z0-9]+)+$")
MAX_NAME_LENGTH = 64
# fmt: off
# A namespace names the service. These verbs could start any server's tools, so as a prefix they
# tell a model nothing about whose tool it is (`convert_units` beside `convert_time`).
COMMON_VERBS = frozenset({
    "get", "set", "list", "create", "delete", "update", "remove", "add", "fetch", "search", "find",
    "read", "write", "run", "call", "convert", "make", "do", "send", "query", "check", "show",
    "execute", "open", "close", "start", "stop", "load", "save", "lookup", "describe", "compute",
})
# fmt: on
DEFAULT_MAX_RESULT_CHARS = 4000
MIN_RESULT_CHARS = 200
MAX_RESULT_CHARS_ENV = "MCP_MAX_RESULT_CHARS"
DEFAULT_TIME_LIMIT_SECONDS = 10.0
WORKER_THREADS = 8  # synchronous tool calls running at once; more wait for a free thread
RECEIVED_PREVIEW_CHARS = 24
ERROR_LINES_BUDGET = 500  # characters of problem lines; an error stays short whatever arrives
UNKNOWN_NAMES_COMPARED = 5  # unknown argument names matched against the real ones; the rest are counted
LOGGED_NAMES = 5  # argument names in one log line; the rest are counted

# The annotation sets our tools use. The spec's defaults are destructive and open-world, so we always
# say all four out loud.
LOCAL_READ_ONLY = ToolAnnotations(
    read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)
"""Reads or computes locally; calling it twice changes nothing."""
REMOTE_READ_ONLY = ToolAnnotations(
    read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=True
)
"""Reads from a service on the internet; calling it twice changes nothing."""

DataT = TypeVar("DataT", bound=BaseModel)


class ToolFailure(Exception):
    """Raise from a tool when the call cannot succeed: the model reads `message` then `next_step`."""

    def __init__(self, message: str, next_step: str) -> None:
        super().__init__(f"{message} {next_step}")
        self.message = message
        self.next_step = next_step


@dataclass(frozen=True)
class Reply(Generic[DataT]):
    """A tool's answer: concise text for the model plus data matching the published outputSchema."""

    text: str
    data: DataT


@dataclass(frozen=True)
class Trim(Generic[DataT]):
    """How to shorten an answer made of items (days, cores, rows) so that it fits the bound.

    `keep(n)` is the same answer with only its first n of `count` items; `noun` names them in the
    plural; `rest` says how to get the ones left out ("ask for the days after 2026-03-04").
    """

    count: int
    noun: str
    keep: Callable[[int], Reply[DataT]]
    rest: str


@dataclass(frozen=True)
class TrimmableReply(Reply[DataT]):
    """A Reply that can grow past the bound: the surface then returns the most items that fit, with a
    note saying how many were cut and how to get them. Annotate the tool as returning Reply[...]."""

    trim: Trim[DataT] | None = None


def max_result_chars() -> int:
    """The default bound on a result's text, from the environment when set.

    Raises ValueError, naming the variable and its minimum, when it is set to anything else.
    """
    raw = os.environ.get(MAX_RESULT_CHARS_ENV)
    if raw is None or raw.strip() == "":
        return DEFAULT_MAX_RESULT_CHARS
    if not raw.strip().isdigit() or int(raw) < MIN_RESULT_CHARS:
        raise ValueError(
            f"{MAX_RESULT_CHARS_ENV} must be a whole number of characters, at least {MIN_RESULT_CHARS} "
            f"(default {DEFAULT_MAX_RESULT_CHARS}); got {printable(raw)!r}."
        )
    return int(raw)


def bound_text(text: str, limit: int, narrow_hint: str) -> str:
    """Cut `text` to `limit` characters, ending with a note that says what was cut and how to ask for less."""
    if len(text) <= limit:
        return text
    note = f"\n[Cut: showing {{shown}} of {len(text)} characters. To see the rest, {narrow_hint}.]"
    shown = max(0, limit - len(note.format(shown=limit)))
    return text[:shown] + note.format(shown=shown)


def clean_schema(schema: Any) -> Any:
    """Drop pydantic's `title` keys: they cost tokens on every request and tell a model nothing."""
    if isinstance(schema, dict):
        cleaned = {}
        for key, value in schema.items():
            if key == "title" and isinstance(value, str):
                continue
            if key in ("properties", "$defs") and isinstance(value, dict):
                cleaned[key] = {name: clean_schema(sub) for name, sub in value.items()}
            else:
                cleaned[key] = clean_schema(value)
        return cleaned
    if isinstance(schema, list):
        return [clean_schema(item) for item in schema]
    return schema


# ---------------------------------------------------------------------------------------------------
# Instructive argument errors, written from the published schema rather than from pydantic's text.


def preview(value: Any) -> str:
    """What was received, short enough never to echo a long input back into the context."""
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, int | float):
        text = repr(value) if isinstance(value, float) and not math.isfinite(value) else json.dumps(value)
        return text if len(text) <= RECEIVED_PREVIEW_CHARS else f"a number of {len(text)} digits"
    if isinstance(value, str):
        if len(value) <= RECEIVED_PREVIEW_CHARS:
            return json.dumps(value)
        return f"a text of {len(value)} characters starting {json.dumps(value[:RECEIVED_PREVIEW_CHARS])}"
    if isinstance(value, list):
        return f"a list of {len(value)} item{'' if len(value) == 1 else 's'}"
    if isinstance(value, dict):
        return "an object"
    return "a value of another kind"


def describe_allowed(schema: Mapping[str, Any], text_format: str | None = None) -> str:
    """'an integer from 1 to 7', 'one of "metric", "imperial"', ... from a property's JSON Schema.

    A text with a pattern is described by `text_format` (the tool's words for it, such as
    'a decimal number written as text, such as "12.50"'): a regular expression teaches a model little.
    """
    if "enum" in schema:
        return "one of " + ", ".join(json.dumps(option) for option in schema["enum"])
    if "anyOf" in schema:
        options = [describe_allowed(option, text_format) for option in schema["anyOf"]]
        if any(option.startswith("a finite number") for option in options):
            options = [option for option in options if not option.startswith("an integer")]
        return " or ".join(options)
    kind = schema.get("type")
    low, high = schema.get("minimum"), schema.get("maximum")
    if kind in ("integer", "number"):
        noun = "an integer" if kind == "integer" else "a finite number"
        if low is not None and high is not None:
            return f"{noun} from {low} to {high}"
        if low is not None:
            return f"{noun} of at least {low}"
        if high is not None:
            return f"{noun} of at most {high}"
        return noun
    if kind == "string":
        shortest, longest = schema.get("minLength"), schema.get("maxLength")
        if "pattern" in schema:
            text = text_format or "a text in the format the tool's description gives"
            return f"{text}, at most {longest} characters" if longest is not None else text
        text = "a text"
        if shortest is not None and longest is not None:
            text = f"a text of {shortest} to {longest} characters"
        elif longest is not None:
            text = f"a text of at most {longest} characters"
        return text
    if kind == "boolean":
        return "true or false"
    if kind == "array":
        fewest, most = schema.get("minItems"), schema.get("maxItems")
        count = f"{fewest} to {most} " if fewest is not None and most is not None else ""
        return f"a list of {count}items, each {describe_allowed(schema.get('items', {}), text_format)}"
    if kind == "null":
        return "null"
    if kind == "object":
        return "an object"
    return "a valid value"


def _locate(schema: Mapping[str, Any], loc: Sequence[int | str]) -> tuple[str, Mapping[str, Any]]:
    """Follow an error location into the schema: ('numbers', 3, 'int') -> ('numbers[3]', items schema).

    Pydantic adds union member tags to locations; they do not exist in the schema, so we stop there.
    """
    path, node = "", schema
    for part in loc:
        if isinstance(part, int) and "items" in node:
            path, node = f"{path}[{part}]", node["items"]
        elif isinstance(part, str) and part in node.get("properties", {}):
            path, node = (f"{path}.{part}" if path else part), node["properties"][part]
        else:
            break
    return path, node


def closest_argument(name: str, known: Sequence[str]) -> str | None:
    """The real argument a wrong name most likely meant: same letters (fromUnit, from-unit), a word of
    it or its stem (to -> to_unit, day -> days), else the closest spelling; None when nothing is close
    or two are equally close."""
    wanted = _squash(name[:MAX_NAME_LENGTH])  # a long name costs no more to compare than a short one
    if not wanted:
        return None
    squashed = {_squash(argument): argument for argument in known}
    if wanted in squashed:
        return squashed[wanted]
    stems = [
        argument
        for flat, argument in squashed.items()
        if wanted in argument.split("_")
        or (len(wanted) >= 3 and (flat.startswith(wanted) or wanted.startswith(flat)))
    ]
    if stems:  # a word of two arguments (unit: from_unit or to_unit?) is no guess at all
        return stems[0] if len(stems) == 1 else None
    close = difflib.get_close_matches(wanted, list(squashed), n=1)
    return squashed[close[0]] if close else None


def _squash(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


def describe_errors(
    tool_name: str,
    schema: Mapping[str, Any],
    unknown: Sequence[str],
    errors: Sequence[ErrorDetails],
    hints: Mapping[str, str],
    formats: Mapping[str, str],
) -> str:
    """One line per argument at fault: what is allowed, what arrived, what to do next.

    `unknown` are the names sent that the tool does not take; only the first few are matched against
    the real ones, so a flood of them costs no more than counting it.
    """
    known = list(schema.get("properties", {}))
    lines: dict[str, str] = {}
    uncounted = max(0, len(unknown) - UNKNOWN_NAMES_COMPARED)
    for error in errors:
        path, node = _locate(schema, error["loc"])
        path = path or "arguments"
        argument = str(error["loc"][0]) if error["loc"] else path
        allowed = describe_allowed(node, formats.get(argument))
        if error["type"] == "missing":
            lines.setdefault(path, f"{path} is required: {allowed}. Call again with {path} set.")
            continue
        received = error["input"]
        if isinstance(received, str) and node.get("type") in ("integer", "number", "boolean"):
            next_step = f"Send {path} as a bare JSON value, without quotes."
        elif error["type"].endswith("_type"):  # a wrong kind of value: a hint about limits would not help
            next_step = f"Call again with {path} corrected."
        else:
            next_step = hints.get(argument, f"Call again with {path} corrected.")
        lines.setdefault(path, f"{path} must be {allowed}; got {preview(received)}. {next_step}")
    for name in unknown[:UNKNOWN_NAMES_COMPARED]:
        close = closest_argument(name, known)
        guess = f" Did you mean {close}?" if close else ""
        shown_name = printable(name, RECEIVED_PREVIEW_CHARS)
        lines.setdefault(
            shown_name,
            f"{shown_name} is not an argument of {tool_name}, which takes only {', '.join(known)}.{guess} "
            "Remove it and call again.",
        )
    # A flood of bad arguments must not flood the context: the first few show what to fix.
    shown: list[str] = []
    for line in lines.values():
        if shown and len("\n".join([*shown, line])) > ERROR_LINES_BUDGET:
            break
        shown.append(line)
    hidden = len(lines) - len(shown) + uncounted
    if hidden:
        shown.append(f"{hidden} more problems not shown; fix these and call again.")
    return "\n".join(shown)


def argument_summary(unknown: Sequence[str], errors: Sequence[ErrorDetails]) -> str:
    """For the log: 'days (unknown), numbers[1] (invalid)', the first few only, each name escaped."""
    problems = [f"{printable(name)} (unknown)" for name in unknown[:LOGGED_NAMES]]
    for error in errors[: max(0, LOGGED_NAMES - len(problems))]:
        path = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in error["loc"])
        kind = "missing" if error["type"] == "missing" else "invalid"
        problems.append(f"{printable(path.lstrip('.') or 'arguments')} ({kind})")
    more = len(unknown) + len(errors) - len(problems)
    return ", ".join(problems) + (f" and {more} more" if more else "")


# ---------------------------------------------------------------------------------------------------
# The strict tool: validation, error shaping, time limits and output bounds around one function.


@dataclass
class StrictTool:
    """A tool whose arguments are checked against exactly what it publishes, with shaped results."""

    fn: Callable[..., Any]
    definition: ToolDefinition
    arguments_model: type[BaseModel]
    output_model: type[BaseModel] | None
    context_kwarg: str | None
    max_chars: int | None
    time_limit: float
    narrow_hint: str
    hints: dict[str, str]
    formats: dict[str, str]

    @property
    def name(self) -> str:
        return self.definition.name

    async def run(self, arguments: dict[str, Any], context: Context[Any, Any] | None) -> CallToolResult:
        properties = self.definition.input_schema.get("properties", {})
        unknown = [name for name in arguments if name not in properties]
        errors: list[ErrorDetails] = []
        try:
            validated = self.arguments_model.model_validate(
                whole_numbers_as_integers(
                    properties, {name: value for name, value in arguments.items() if name in properties}
                )
            )
        except ValidationError as exc:
            errors = exc.errors()
        if unknown or errors:
            logger.info("%s rejected arguments: %s", self.name, argument_summary(unknown, errors))
            return failure(
                describe_errors(
                    self.name, self.definition.input_schema, unknown, errors, self.hints, self.formats
                )
            )
        kwargs = {name: getattr(validated, name) for name in type(validated).model_fields}
        if self.context_kwarg is not None:
            kwargs[self.context_kwarg] = context
        try:
            if inspect.iscoroutinefunction(self.fn):
                with anyio.fail_after(self.time_limit):
                    answer = await self.fn(**kwargs)
            else:
                answer = await run_in_worker(self.fn, kwargs, self.time_limit)
            return self._shape(answer)
        except ToolFailure as exc:
            logger.info("%s failed: %s", self.name, printable(exc.message, 200))
            return failure(str(exc))
        except ServerBusy:
            logger.warning("%s found no free worker thread within %g seconds", self.name, self.time_limit)
            return failure(
                f"{self.name} could not start: the server is busy with other long calls. "
                "Try again in a minute, or answer without this tool."
            )
        except TimeoutError:
            logger.warning("%s stopped at its %g-second time limit", self.name, self.time_limit)
            return failure(
                f"{self.name} stopped: the call took longer than its {self.time_limit:g}-second limit, so "
                f"these arguments ask for more work than it does in one call. To get an answer, "
                f"{self.narrow_hint}."
            )
        except Exception:
            logger.exception("%s raised an unexpected exception", self.name)
            return failure(
                f"{self.name} failed because of an internal problem in the server, not because of your "
                "arguments. Retrying the same call is unlikely to help; answer without this tool."
            )

    def _shape(self, answer: Any) -> CallToolResult:
        limit = self.max_chars or max_result_chars()
        if self.output_model is None:
            return CallToolResult(
                content=[TextContent(type="text", text=bound_text(answer, limit, self.narrow_hint))]
            )
        reply: Reply[Any] = answer
        shaped = _fitted(reply, limit)
        if shaped is None:
            # Structured content cannot be cut and stay valid against the outputSchema, so refuse instead.
            return failure(
                f"The result is larger than the {limit}-character limit. To get it, {self.narrow_hint}."
            )
        return shaped


def _fitted(reply: Reply[Any], limit: int) -> CallToolResult | None:
    """The whole reply when it fits; else, for a reply with a `trim`, the most items that fit."""
    whole = _within(reply.text, reply, limit)
    if whole is not None or not isinstance(reply, TrimmableReply) or reply.trim is None:
        return whole
    trim = reply.trim
    best: CallToolResult | None = None
    low, high = 0, trim.count - 1  # the largest n whose answer fits; the result size grows with n
    while low <= high:
        middle = (low + high) // 2
        kept = trim.keep(middle)
        note = f"\n[{trim.count - middle} of {trim.count} {trim.noun} cut to fit the {limit}-character limit; {trim.rest}.]"
        candidate = _within(kept.text + note, kept, limit)
        if candidate is None:
            high = middle - 1
        else:
            best, low = candidate, middle + 1
    return best


def _within(text: str, reply: Reply[Any], limit: int) -> CallToolResult | None:
    data = reply.data.model_dump(mode="json", by_alias=True)
    if len(text) > limit or len(json.dumps(data)) > limit:
        return None
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=data)


class ServerBusy(Exception):
    """Every worker thread stayed taken for a whole time limit."""


# Process-wide, like the threads they count: a thread past its time limit keeps its slot until it ends.
worker_slots = threading.BoundedSemaphore(WORKER_THREADS)


async def run_in_worker(fn: Callable[..., Any], kwargs: dict[str, Any], time_limit: float) -> Any:
    """Run a synchronous tool function in a worker thread, so the event loop keeps answering.

    Waiting for a free slot and running each get `time_limit` seconds: past the first the call
    raises ServerBusy, past the second TimeoutError. A thread cannot be stopped, so one past its limit
    runs on in its slot until it ends: runaway computations never take more than WORKER_THREADS
    threads. They are daemon threads, so none of them keeps the process from exiting; the waiting
    is done in the SDK's async library's own worker thread, which is never held past the limits.
    """

    slots = worker_slots  # the one a slot is taken from is the one it goes back to

    def bounded() -> Any:
        if not slots.acquire(timeout=time_limit):
            raise ServerBusy
        outcome: dict[str, Any] = {}
        done = threading.Event()

        def work() -> None:
            try:
                outcome["value"] = fn(**kwargs)
            except BaseException as exc:  # handed to the waiting call, which raises it
                outcome["error"] = exc
            finally:
                slots.release()
                done.set()

        threading.Thread(target=work, name=f"tool {fn.__name__}", daemon=True).start()
        if not done.wait(time_limit):
            raise TimeoutError
        if "error" in outcome:
            raise outcome["error"]
        return outcome["value"]

    return await anyio.to_thread.run_sync(bounded, abandon_on_cancel=True)


def unwrap(docstring: str) -> str:
    """Join a docstring's wrapped lines; a line that ends a sentence keeps its break."""
    lines = inspect.cleandoc(docstring).splitlines()
    text = ""
    for line in lines:
        joiner = "\n" if text.endswith((".", "!", "?", ':"', '."', ".)")) else " "
        text = f"{text}{joiner}{line.strip()}" if text else line.strip()
    return text


def whole_numbers_as_integers(properties: Mapping[str, Any], arguments: dict[str, Any]) -> dict[str, Any]:
    """JSON Schema counts 3.0 as an integer and strict validation would not, so 3.0 becomes 3 first."""
    return {
        name: int(value)
        if isinstance(value, float)
        and value.is_integer()
        and properties.get(name, {}).get("type") == "integer"
        else value
        for name, value in arguments.items()
    }


def failure(text: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=text)], is_error=True)


def _output_model(fn: Callable[..., Any]) -> type[BaseModel] | None:
    """`-> Reply[Forecast]` publishes Forecast's schema; `-> str` publishes none."""
    returns = get_type_hints(fn).get("return")
    if returns is str:
        return None
    if get_origin(returns) is Reply:
        (model,) = get_args(returns)
        if isinstance(model, type) and issubclass(model, BaseModel):
            return model
    raise TypeError(f"{fn.__name__} must return str or Reply[SomeModel], not {returns!r}")


def _context_parameter(fn: Callable[..., Any]) -> str | None:
    """The parameter annotated as the SDK's Context, which the tool receives instead of the model."""
    for name, hint in get_type_hints(fn).items():
        kind = get_origin(hint) or hint
        if name != "return" and isinstance(kind, type) and issubclass(kind, Context):
            return name
    return None


def _arguments_model(fn: Callable[..., Any], skip: str | None) -> type[BaseModel]:
    """A strict, closed model of the function's parameters: the exact contract published to the model."""
    hints = get_type_hints(fn, include_extras=True)
    fields: dict[str, Any] = {}
    for name, parameter in inspect.signature(fn).parameters.items():
        if name == skip:
            continue
        default = ... if parameter.default is inspect.Parameter.empty else parameter.default
        fields[name] = (hints[name], default)
    config = ConfigDict(extra="forbid", strict=True)
    model: type[BaseModel] = create_model(f"{fn.__name__}_arguments", __config__=config, **fields)
    return model


def installed_version() -> str:
    """The version of the distribution the servers were installed from; "0.0.0" in a bare checkout."""
    for distribution in [*metadata.packages_distributions().get("servers", []), "mcp-surface-suite"]:
        try:
            return metadata.version(distribution)
        except metadata.PackageNotFoundError:
            continue
    return "0.0.0"


class ToolServer(MCPServer[Any]):
    """An MCPServer whose tools all follow the rules above, and which answers unknown tools per spec.

    It keeps its own tools and serves them through MCPServer's public `list_tools` and `call_tool`
    (see sdk.py for why, and what that relies on).
    """

    def __init__(
        self, name: str, *, namespaces: Sequence[str], version: str | None = None, **kwargs: Any
    ) -> None:
        verbs = [namespace for namespace in namespaces if namespace in COMMON_VERBS]
        if verbs:
            raise ValueError(
                f"namespace {verbs[0]!r} of {name} is a common verb, which any server's tools could start "
                "with; name the service instead (units_convert, not convert_units)"
            )
        super().__init__(name, version=version or installed_version(), **kwargs)
        self.namespaces = tuple(namespaces)
        self._strict_tools: dict[str, StrictTool] = {}

    def add_tool(
        self,
        fn: Callable[..., Any],
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        annotations: ToolAnnotations | None = None,
        icons: Any = None,
        meta: dict[str, Any] | None = None,
        structured_output: bool | None = None,
        *,
        max_chars: int | None = None,
        time_limit: float = DEFAULT_TIME_LIMIT_SECONDS,
        narrow_hint: str = "ask for less",
        hints: Mapping[str, str] | None = None,
        formats: Mapping[str, str] | None = None,
    ) -> None:
        """Register `fn` as a strict tool; refuse anything a model could not read well.

        `hints` give an argument's next step after a bad value; `formats` say in words what an
        argument's text pattern allows; `time_limit` bounds each call, in seconds.
        """
        name = name or fn.__name__
        description = unwrap(description or fn.__doc__ or "")
        self._check_metadata(name, title, description, annotations)
        context_kwarg = _context_parameter(fn)
        arguments_model = _arguments_model(fn, context_kwarg)
        schema = clean_schema(arguments_model.model_json_schema())
        undescribed = [p for p, s in schema.get("properties", {}).items() if not s.get("description")]
        if undescribed:
            raise ValueError(f"{name}: describe every parameter with Field(description=...): {undescribed}")
        output_model = _output_model(fn)
        definition = ToolDefinition(
            name=name,
            title=title,
            description=description,
            input_schema=schema,
            output_schema=clean_schema(output_model.model_json_schema()) if output_model else None,
            annotations=annotations,
            icons=icons,
            _meta=meta,
        )
        self._strict_tools[name] = StrictTool(
            fn=fn,
            definition=definition,
            arguments_model=arguments_model,
            output_model=output_model,
            context_kwarg=context_kwarg,
            max_chars=max_chars,
            time_limit=time_limit,
            narrow_hint=narrow_hint,
            hints=dict(hints or {}),
            formats=dict(formats or {}),
        )

    def tool(  # type: ignore[override]
        self,
        *,
        title: str,
        annotations: ToolAnnotations,
        name: str | None = None,
        max_chars: int | None = None,
        time_limit: float = DEFAULT_TIME_LIMIT_SECONDS,
        narrow_hint: str = "ask for less",
        hints: Mapping[str, str] | None = None,
        formats: Mapping[str, str] | None = None,
    ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """Decorator: `@server.tool(title=..., annotations=LOCAL_READ_ONLY)`; the docstring is the description."""

        def register(fn: Callable[..., Any]) -> Callable[..., Any]:
            self.add_tool(
                fn,
                name=name,
                title=title,
                annotations=annotations,
                max_chars=max_chars,
                time_limit=time_limit,
                narrow_hint=narrow_hint,
                hints=hints,
                formats=formats,
            )
            return fn

        return register

    async def list_tools(self) -> list[ToolDefinition]:
        return [tool.definition for tool in self._strict_tools.values()]

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult:
        # The spec makes an unknown tool a protocol error (-32602), not a result the model reads.
        tool = self._strict_tools.get(name)
        if tool is None:
            raise MCPError(code=INVALID_PARAMS, message=f"Unknown tool: {name[:RECEIVED_PREVIEW_CHARS]!r}")
        return await tool.run(arguments, context)

    def _check_metadata(
        self, name: str, title: str | None, description: str, annotations: ToolAnnotations | None
    ) -> None:
        if len(name) > MAX_NAME_LENGTH or not TOOL_NAME.match(name):
            raise ValueError(f"tool name {name!r} must be snake_case, at most {MAX_NAME_LENGTH} characters")
        if name.split("_", 1)[0] not in self.namespaces:
            raise ValueError(
                f"tool name {name!r} must start with a namespace of {self.name}: {self.namespaces}"
            )
        if not description:
            raise ValueError(f"{name}: a tool needs a description (what, when, when not, arguments, result)")
        if not title:
            raise ValueError(f"{name}: a tool needs a title")
        hints = annotations and (
            annotations.read_only_hint,
            annotations.destructive_hint,
            annotations.idempotent_hint,
            annotations.open_world_hint,
        )
        if not hints or None in hints:
            raise ValueError(f"{name}: set all four annotation hints; the spec's defaults are destructive")


def serve(server: MCPServer[Any]) -> None:
    """Run `server` as its command line asks: stdio by default, Streamable HTTP with `--transport http`.

    A setting that cannot work ends the process at once with one line on stderr. Logs go to stderr as
    plain lines, so stdout carries nothing but JSON-RPC. servers/surface/transport.py holds the
    options and both transports.
    """
    arguments = parse_arguments(server)
    try:
        max_result_chars()
    except ValueError as exc:
        sys.exit(f"{server.name}: {exc}")
    configure_logging()
    if arguments.transport == "http":
        run_http(server, host=arguments.host, port=arguments.port, stateless=arguments.stateless)
    else:
        run_stdio(server)
