"""OpenAI strict mode for MCP tools: a schema the API accepts with `"strict": true`, or the reason it cannot.

With strict mode the model's arguments always match the schema, but the API accepts only a subset of JSON
Schema: every object closed (`additionalProperties: false`), every property required, optional ones made
nullable instead, no `default`, and a short list of keywords (OpenAI, "Structured Outputs: supported
schemas", platform.openai.com/docs/guides/structured-outputs; the SDK's own `to_strict_json_schema` in
openai-python `src/openai/lib/_pydantic.py` does the same closing and requiring). A schema that needs
anything else is sent with `strict: false` and the reason is reported, rather than silently weakened.

A property the conversion made nullable must not reach the server as `null`: a strict server rejects it.
`omit_added_nulls` removes exactly those nulls, so `null` means "not given", as the description says.
"""

from __future__ import annotations

import copy
import json
from typing import Any

# Keywords strict mode accepts. `default` is accepted here only to be removed.
STRUCTURE = {"type", "properties", "required", "additionalProperties", "items", "anyOf", "$ref", "$defs"}
VALUES = {"enum", "const", "description", "title", "default"}
CONSTRAINTS = {
    "pattern",
    "format",
    "multipleOf",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minItems",
    "maxItems",
}
SUPPORTED = STRUCTURE | VALUES | CONSTRAINTS


class NotStrict(ValueError):
    """The schema needs something strict mode does not support; the message says what and where."""


def strict_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """The strict-mode version of a tool's input schema; raises NotStrict naming the obstacle."""
    if schema.get("type") != "object" or "anyOf" in schema:
        raise NotStrict("the root of the schema must be a plain object, without anyOf")
    strict: dict[str, Any] = _strict(copy.deepcopy(schema), "")
    return strict


def omit_added_nulls(arguments: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    """Drop `null` from properties that are optional in the original schema and do not accept null there.

    Nested objects given inline are handled too; properties behind a `$ref` are passed on unchanged.
    """
    properties = schema.get("properties", {})
    required = set(schema.get("required", []))
    kept: dict[str, Any] = {}
    for name, value in arguments.items():
        declared = properties.get(name, {})
        if value is None and name not in required and not accepts_null(declared):
            continue
        if isinstance(value, dict) and "properties" in declared:
            value = omit_added_nulls(value, declared)
        kept[name] = value
    return kept


def accepts_null(schema: dict[str, Any]) -> bool:
    kind = schema.get("type")
    if kind == "null" or (isinstance(kind, list) and "null" in kind):
        return True
    if None in schema.get("enum", ()):
        return True
    return any(accepts_null(option) for option in schema.get("anyOf", []))


def _strict(node: Any, where: str) -> dict[str, Any]:
    if not isinstance(node, dict):
        raise NotStrict(f"{where or 'the schema'} is written in a form strict mode does not read")
    unsupported = sorted(set(node) - SUPPORTED)
    if unsupported:
        place = where or "the schema's root"
        raise NotStrict(f"{place} uses {', '.join(unsupported)}, which strict mode does not support")
    node.pop("default", None)
    for name, definition in node.get("$defs", {}).items():
        node["$defs"][name] = _strict(definition, f"definition {name}")
    if "items" in node:
        node["items"] = _strict(node["items"], f"{where}[]")
    if "anyOf" in node:
        node["anyOf"] = [_strict(option, where) for option in node["anyOf"]]
    if node.get("type") == "object" or "properties" in node:
        _close(node, where)
    return node


def _close(node: dict[str, Any], where: str) -> None:
    """Strict objects: closed, with every property required and the optional ones nullable."""
    if node.get("additionalProperties", False) is not False:
        raise NotStrict(f"{where or 'the arguments object'} accepts properties beyond those it lists")
    optional = set(node.get("properties", {})) - set(node.get("required", []))
    properties = {}
    for name, definition in node.get("properties", {}).items():
        default = definition.get("default")
        strict = _strict(definition, f"{where}.{name}" if where else name)
        if name in optional and not accepts_null(strict):
            strict = _nullable(strict, default)
        properties[name] = strict
    node["properties"] = properties
    node["required"] = list(properties)
    node["additionalProperties"] = False


def _nullable(schema: dict[str, Any], default: Any) -> dict[str, Any]:
    """Accept null as well, and tell the model in the description what null means."""
    meaning = (
        "null for the default, " + json.dumps(default) if default is not None else "null to leave it out"
    )
    description = schema.pop("description", "")
    description = f"{description} ({meaning}.)".strip()
    if isinstance(schema.get("type"), str) and "enum" not in schema and "const" not in schema:
        return {**schema, "type": [schema["type"], "null"], "description": description}
    return {"anyOf": [schema, {"type": "null"}], "description": description}
