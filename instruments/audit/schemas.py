"""Reading a tool's published JSON Schema: local `$ref`s, the JSON types a node accepts, its properties."""

from __future__ import annotations

from typing import Any

JSON_TYPES = ("string", "integer", "number", "boolean", "array", "object", "null")


def resolve(root: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    """Follow a local `$ref` such as "#/$defs/Place"; keywords beside the `$ref` win over the target's."""
    reference = node.get("$ref")
    if not isinstance(reference, str) or not reference.startswith("#/"):
        return node
    target: Any = root
    for part in reference[2:].split("/"):
        target = target.get(part, {}) if isinstance(target, dict) else {}
    rest = {key: value for key, value in node.items() if key != "$ref"}
    return {**resolve(root, target), **rest} if isinstance(target, dict) else rest


def members(root: dict[str, Any], node: dict[str, Any]) -> list[dict[str, Any]]:
    """The alternatives a node allows: its anyOf/oneOf members, or the node itself."""
    node = resolve(root, node)
    options = node.get("anyOf") or node.get("oneOf")
    if isinstance(options, list):
        return [member for option in options for member in members(root, option)]
    return [node]


def accepted_types(root: dict[str, Any], node: dict[str, Any]) -> set[str]:
    """JSON types the node accepts; an integer-valued number counts, so "number" implies "integer"."""
    found: set[str] = set()
    for member in members(root, node):
        kind = member.get("type")
        if isinstance(kind, str):
            found.add(kind)
        elif isinstance(kind, list):
            found.update(k for k in kind if isinstance(k, str))
        elif "enum" in member or "const" in member:
            values = member.get("enum", [member.get("const")])
            found.update(json_type(value) for value in values)
        else:
            return set(JSON_TYPES)  # no type given: anything goes
    if "number" in found:
        found.add("integer")
    return found


def json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def properties(schema: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Top-level properties, each with its `$ref` resolved."""
    found = schema.get("properties")
    if not isinstance(found, dict):
        return {}
    return {name: resolve(schema, node) for name, node in found.items() if isinstance(node, dict)}


def required(schema: dict[str, Any]) -> list[str]:
    names = schema.get("required")
    return [name for name in names if isinstance(name, str)] if isinstance(names, list) else []
