"""The tool surface every server in this suite shares. Copy this file along with any server.

A model never runs a tool: it reads each tool's name, description and JSON Schema, writes a JSON
request, and reads the result as more context. So this module makes the surface the contract:

1. The schema is the contract. Arguments are validated against exactly the published inputSchema
   (`additionalProperties: false`, no coercion of `"2"` to 2), and the schema carries no noise keys.
2. Errors teach. Bad arguments come back as `is_error` results, one short line per problem, naming
   the argument, what is allowed, what was received and what to do next. A tool signals a failure
   by raising `ToolFailure`; anything else is logged to stderr and reported generically.
3. Output is bounded. Result text is capped (`MCP_MAX_RESULT_CHARS`, or per tool) with a note that
   says what was cut and how to ask for less.
4. Metadata is honest. Every tool has a namespaced name, a description, a title and all four
   annotations set explicitly, or it is refused at registration.
"""

from __future__ import annotations

import difflib
import inspect
import json
import logging
import math
import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Generic, TypeVar, get_args, get_origin, get_type_hints

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.tools import Tool
from mcp.server.mcpserver.utilities.context_injection import find_context_parameter
from mcp.server.mcpserver.utilities.func_metadata import func_metadata
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS, CallToolResult, TextContent, ToolAnnotations
from pydantic import BaseModel, ConfigDict, ValidationError, create_model
from pydantic_core import ErrorDetails

from servers.surface.transport import parse_arguments, run_http, run_stdio

logger = logging.getLogger(__name__)

# Names every real client accepts: Claude Desktop and OpenAI both reject dots and names over 64.
TOOL_NAME = re.compile(r"^[a-z][a-z0-9]*(_[a-z0-9]+)+$")
MAX_NAME_LENGTH = 64
DEFAULT_MAX_RESULT_CHARS = 4000
MAX_RESULT_CHARS_ENV = "MCP_MAX_RESULT_CHARS"
RECEIVED_PREVIEW_CHARS = 24
ERROR_LINES_BUDGET = 500  # characters of problem lines; an error stays short whatever arrives

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


def max_result_chars() -> int:
    """The default bound on a result's text, from the environment when set."""
    raw = os.environ.get(MAX_RESULT_CHARS_ENV, "")
    return int(raw) if raw.isdigit() and int(raw) >= 200 else DEFAULT_MAX_RESULT_CHARS


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


def describe_allowed(schema: Mapping[str, Any]) -> str:
    """'an integer from 1 to 7', 'one of "metric", "imperial"', ... from a property's JSON Schema."""
    if "enum" in schema:
        return "one of " + ", ".join(json.dumps(option) for option in schema["enum"])
    if "anyOf" in schema:
        options = [describe_allowed(option) for option in schema["anyOf"]]
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
        text = "a text"
        if shortest is not None and longest is not None:
            text = f"a text of {shortest} to {longest} characters"
        elif longest is not None:
            text = f"a text of at most {longest} characters"
        if "pattern" in schema:
            text += f" matching {schema['pattern']}"
        return text
    if kind == "boolean":
        return "true or false"
    if kind == "array":
        fewest, most = schema.get("minItems"), schema.get("maxItems")
        count = f"{fewest} to {most} " if fewest is not None and most is not None else ""
        return f"a list of {count}items, each {describe_allowed(schema.get('items', {}))}"
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


def describe_errors(
    tool_name: str, schema: Mapping[str, Any], errors: Sequence[ErrorDetails], hints: Mapping[str, str]
) -> str:
    """One line per argument at fault: what is allowed, what arrived, what to do next."""
    known = list(schema.get("properties", {}))
    lines: dict[str, str] = {}
    for error in errors:
        if error["type"] == "extra_forbidden":
            name = str(error["loc"][-1])[:RECEIVED_PREVIEW_CHARS]
            close = difflib.get_close_matches(name, known, n=1)
            guess = f" Did you mean {close[0]}?" if close else ""
            lines.setdefault(
                name,
                f"{name} is not an argument of {tool_name}, which takes only {', '.join(known)}.{guess} "
                "Remove it and call again.",
            )
            continue
        path, node = _locate(schema, error["loc"])
        path = path or "arguments"
        argument = str(error["loc"][0]) if error["loc"] else path
        if error["type"] == "missing":
            lines.setdefault(
                path, f"{path} is required: {describe_allowed(node)}. Call again with {path} set."
            )
            continue
        received = error["input"]
        if isinstance(received, str) and node.get("type") in ("integer", "number", "boolean"):
            next_step = f"Send {path} as a bare JSON value, without quotes."
        elif error["type"].endswith("_type"):  # a wrong kind of value: a hint about limits would not help
            next_step = f"Call again with {path} corrected."
        else:
            next_step = hints.get(argument, f"Call again with {path} corrected.")
        lines.setdefault(
            path, f"{path} must be {describe_allowed(node)}; got {preview(received)}. {next_step}"
        )
    # A flood of bad arguments must not flood the context: the first few show what to fix.
    shown: list[str] = []
    for line in lines.values():
        if shown and len("\n".join([*shown, line])) > ERROR_LINES_BUDGET:
            shown.append(f"{len(lines) - len(shown)} more problems not shown; fix these and call again.")
            break
        shown.append(line)
    return "\n".join(shown)


# ---------------------------------------------------------------------------------------------------
# The strict tool: validation, error shaping and output bounds around one function.


class StrictTool(Tool):
    """A tool whose arguments are checked against exactly what it publishes, with shaped results."""

    arguments_model: type[BaseModel]
    output_model: type[BaseModel] | None
    max_chars: int | None
    narrow_hint: str
    hints: dict[str, str]

    @cached_property
    def output_schema(self) -> dict[str, Any] | None:
        if self.output_model is None:
            return None
        schema: dict[str, Any] = clean_schema(self.output_model.model_json_schema())
        return schema

    async def run(
        self, arguments: dict[str, Any], context: Context[Any, Any], convert_result: bool = False
    ) -> CallToolResult:
        try:
            validated = self.arguments_model.model_validate(
                whole_numbers_as_integers(self.parameters, arguments)
            )
        except ValidationError as exc:
            logger.info("%s rejected arguments: %s", self.name, sorted({str(e["loc"]) for e in exc.errors()}))
            return failure(describe_errors(self.name, self.parameters, exc.errors(), self.hints))
        kwargs = {field: getattr(validated, field) for field in type(validated).model_fields}
        if self.context_kwarg is not None:
            kwargs[self.context_kwarg] = context
        try:
            answer = await self.fn(**kwargs) if self.is_async else self.fn(**kwargs)
            return self._shape(answer)
        except ToolFailure as exc:
            logger.info("%s failed: %s", self.name, exc.message)
            return failure(str(exc))
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
        data = answer.data.model_dump(mode="json", by_alias=True)
        if len(json.dumps(data)) > limit:
            # Structured content cannot be cut and stay valid against the outputSchema, so refuse instead.
            return failure(
                f"The result is larger than the {limit}-character limit. To get it, {self.narrow_hint}."
            )
        return CallToolResult(
            content=[TextContent(type="text", text=bound_text(answer.text, limit, self.narrow_hint))],
            structured_content=data,
        )


def unwrap(docstring: str) -> str:
    """Join a docstring's wrapped lines; a line that ends a sentence keeps its break."""
    lines = inspect.cleandoc(docstring).splitlines()
    text = ""
    for line in lines:
        joiner = "\n" if text.endswith((".", "!", "?", ':"', '."', ".)")) else " "
        text = f"{text}{joiner}{line.strip()}" if text else line.strip()
    return text


def whole_numbers_as_integers(schema: Mapping[str, Any], arguments: dict[str, Any]) -> dict[str, Any]:
    """JSON Schema counts 3.0 as an integer and strict validation would not, so 3.0 becomes 3 first."""
    properties = schema.get("properties", {})
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


class ToolServer(MCPServer[Any]):
    """An MCPServer whose tools all follow the rules above, and which answers unknown tools per spec."""

    def __init__(self, name: str, *, namespaces: Sequence[str], **kwargs: Any) -> None:
        super().__init__(name, **kwargs)
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
        narrow_hint: str = "ask for less",
        hints: Mapping[str, str] | None = None,
    ) -> None:
        """Register `fn` as a strict tool; refuse anything a model could not read well."""
        name = name or fn.__name__
        description = unwrap(description or fn.__doc__ or "")
        self._check_metadata(name, title, description, annotations)
        context_kwarg = find_context_parameter(fn)
        arguments_model = _arguments_model(fn, context_kwarg)
        schema = clean_schema(arguments_model.model_json_schema())
        undescribed = [p for p, s in schema.get("properties", {}).items() if not s.get("description")]
        if undescribed:
            raise ValueError(f"{name}: describe every parameter with Field(description=...): {undescribed}")
        tool = StrictTool(
            fn=fn,
            name=name,
            title=title,
            description=description,
            parameters=schema,
            fn_metadata=func_metadata(fn, skip_names=[context_kwarg or ""], structured_output=False),
            is_async=inspect.iscoroutinefunction(fn),
            context_kwarg=context_kwarg,
            annotations=annotations,
            icons=icons,
            meta=meta,
            arguments_model=arguments_model,
            output_model=_output_model(fn),
            max_chars=max_chars,
            narrow_hint=narrow_hint,
            hints=dict(hints or {}),
        )
        # The SDK only builds tools from functions; ours carries its own contract, so it goes in directly.
        self._tool_manager._tools[name] = tool
        self._strict_tools[name] = tool

    def tool(  # type: ignore[override]
        self,
        *,
        title: str,
        annotations: ToolAnnotations,
        name: str | None = None,
        max_chars: int | None = None,
        narrow_hint: str = "ask for less",
        hints: Mapping[str, str] | None = None,
    ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """Decorator: `@server.tool(title=..., annotations=LOCAL_READ_ONLY)`; the docstring is the description."""

        def register(fn: Callable[..., Any]) -> Callable[..., Any]:
            self.add_tool(
                fn,
                name=name,
                title=title,
                annotations=annotations,
                max_chars=max_chars,
                narrow_hint=narrow_hint,
                hints=hints,
            )
            return fn

        return register

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> Any:
        # The spec makes an unknown tool a protocol error (-32602), not a result the model reads.
        if name not in self._strict_tools:
            raise MCPError(code=INVALID_PARAMS, message=f"Unknown tool: {name[:RECEIVED_PREVIEW_CHARS]!r}")
        return await super().call_tool(name, arguments, context)

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

    servers/surface/transport.py holds the options and both transports; take it along with this file. Over
    stdio the SDK logs to stderr, so stdout carries nothing but JSON-RPC.
    """
    arguments = parse_arguments(server)
    if arguments.transport == "http":
        run_http(server, host=arguments.host, port=arguments.port, stateless=arguments.stateless)
    else:
        run_stdio(server)
