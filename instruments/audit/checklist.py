"""The per-tool checklist: what a model reads of one tool, against the tutorials' quick-start checklist.

Every rule is a heuristic a person can apply by hand. A pass carries the sentence or schema fact that
satisfied it; a failure says what is missing; "n/a" means the rule has nothing to look at.

- name_valid: the name matches ^[a-zA-Z0-9_-]{1,64}$, the subset Claude and OpenAI both accept.
- namespaced: the name has at least two words and its first word is a namespace: the server's own
  name, or any word that is not a generic verb (get, list, search, ...), which every server could use.
- says_what: the first sentence has at least 8 words, at least 4 of them content words not in the name.
- says_when: some sentence says when to use it ("Use it when ...", "whenever the user ...").
- says_when_not: some sentence says when not to ("Do not use it for ...", "not for ...").
- params_described: every top-level parameter has a description.
- schema_closed: the input schema sets additionalProperties: false.
- required_declared: every parameter without a default is listed in `required`.
- integers_bounded: every top-level integer parameter has a minimum and a maximum. Counts, sizes and
  indexes always have a range; other numbers may be any measured value, so they are exempt.
- closed_sets_enum: no string parameter describes a fixed set of options ("one of ...",
  "'celsius' or 'fahrenheit'") without an enum.
- title_set: a title is set (on the tool or in its annotations).
- annotations_set: readOnlyHint, destructiveHint, idempotentHint and openWorldHint are all set.
- output_schema: an outputSchema is present, or the description does not promise structured results.
- no_hijack: the description and parameter descriptions carry no emphasis words ("important"), standing
  orders ("always call"), instructions about other tools or the model's earlier instructions, and no
  other audited server's tool names (names with _ or -, so plain words do not count).
"""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import Any

from mcp_types import Tool

from instruments.audit.findings import Check, Status
from instruments.audit.schemas import accepted_types, members, properties, required
from instruments.audit.tfidf import STOP_WORDS

CLIENT_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
# fmt: off
# Verbs any server's tools could start with, so as a prefix they say nothing about whose tool it is.
GENERIC_VERBS = frozenset({
    "get", "set", "list", "create", "delete", "update", "remove", "add", "fetch", "search", "find",
    "read", "write", "run", "call", "convert", "make", "do", "send", "query", "check", "show",
    "execute", "open", "close", "start", "stop", "load", "save", "lookup", "describe"
})
# fmt: on
WHAT_MIN_WORDS, WHAT_MIN_NEW_WORDS = 8, 4

SENTENCE_BREAK = re.compile(r"(?<=[.!?])\s+(?=[A-Z])|\n+")
WHEN = re.compile(
    r"\b(use (it|this|this tool) (when|whenever|for|if|to)|use when|call (it|this|this tool) (when|whenever|for|if|to)"
    r"|when(ever)? (the |a )?user|if the user|when you need)\b",
    re.IGNORECASE,
)
WHEN_NOT = re.compile(
    r"\b(do not|don't|never|not) (use|call)\b|\bnot (for|meant for|intended for|suitable for)\b"
    r"|\b(instead|rather),? (use|call)\b",
    re.IGNORECASE,
)
CLOSED_SET = re.compile(
    r"\bone of\b|\b(allowed|valid|possible|accepted|supported) values\b|\boptions are\b"
    r"|['\"]\w+['\"](?:, ['\"]\w+['\"])*,? or ['\"]\w+['\"]",
    re.IGNORECASE,
)
STRUCTURED = re.compile(
    r"\b(returns?|responds?|answers?)\b[^.]*\b(JSON|object|fields|dictionary)\b", re.IGNORECASE
)
HIJACK = (
    (
        re.compile(r"\b(important|crucial|critical|mandatory)\b|<\s*important\s*>", re.IGNORECASE),
        "emphasis word",
    ),
    (re.compile(r"\balways (call|use|run|invoke|prefer)\b", re.IGNORECASE), "standing order"),
    (
        re.compile(
            r"\b(before|instead of) (calling|using) (any|every|all|other)\b|\b(any|every) other tool\b",
            re.IGNORECASE,
        ),
        "instruction aimed at other tools",
    ),
    (
        re.compile(r"\b(do not|don't|never) (tell|inform|mention|show|reveal)\b", re.IGNORECASE),
        "secrecy order",
    ),
    (
        re.compile(
            r"\b(ignore|disregard|forget|override)\b[^.]{0,40}\binstructions?\b"
            r"|\b(were|was|have been) (told|advised|instructed)\b|\bnow grants? you\b",
            re.IGNORECASE,
        ),
        "override of the model's earlier instructions",
    ),
)

WHY = {
    "name_valid": "Claude and OpenAI reject names outside ^[a-zA-Z0-9_-]{1,64}$; such a tool may not load at all.",
    "namespaced": "Beside other servers' tools, a bare verb such as get_ says nothing about whose tool it is.",
    "says_what": "The model picks tools from text alone; a first sentence that restates the name gives it nothing.",
    "says_when": "Without a when-to-use sentence the model guesses when the tool applies.",
    "says_when_not": "Without a when-not sentence the model calls the tool for near-miss requests.",
    "params_described": "An undescribed parameter leaves the model to guess its meaning and format.",
    "schema_closed": "Without additionalProperties: false a misspelled argument is valid by the contract.",
    "required_declared": "A parameter with no default that is not required leaves the model unsure it may omit it.",
    "integers_bounded": "Without bounds, a wild count or index is valid by the contract and fails late, if at all.",
    "closed_sets_enum": "Options written in prose instead of an enum are not enforced, and the model misspells them.",
    "title_set": "Hosts show the title to people approving calls; without one they show the raw name.",
    "annotations_set": "An unset hint defaults to destructive and open-world, so hosts ask for needless approval.",
    "output_schema": "Structured results without an outputSchema cannot be validated or relied on by clients.",
    "no_hijack": "Text that orders the model about steers it away from the user's request (tool poisoning).",
}
LABELS = {
    "name_valid": "name valid for real clients",
    "namespaced": "name namespaced",
    "says_what": "says what it does",
    "says_when": "says when to use it",
    "says_when_not": "says when not to use it",
    "params_described": "every parameter described",
    "schema_closed": "schema closed (additionalProperties: false)",
    "required_declared": "required parameters declared",
    "integers_bounded": "integer parameters bounded",
    "closed_sets_enum": "closed sets given as enums",
    "title_set": "title set",
    "annotations_set": "all four annotations set",
    "output_schema": "outputSchema where results are structured",
    "no_hijack": "no words that hijack the model",
}


def check_tool(tool: Tool, server_name: str, other_servers_tools: Collection[str]) -> list[Check]:
    """All checklist verdicts for one tool, in the order of the module docstring."""
    description = tool.description or ""
    sentences = [s.strip() for s in SENTENCE_BREAK.split(description) if s.strip()]
    schema = tool.input_schema
    params = properties(schema)
    verdicts: list[tuple[str, Status, str]] = [
        ("name_valid", *_name_valid(tool.name)),
        ("namespaced", *_namespaced(tool.name, server_name)),
        ("says_what", *_says_what(tool.name, sentences)),
        ("says_when", *_first_match(WHEN, sentences, "no sentence says when to use it")),
        ("says_when_not", *_first_match(WHEN_NOT, sentences, "no sentence says when not to use it")),
        ("params_described", *_params_described(params)),
        ("schema_closed", *_schema_closed(schema)),
        ("required_declared", *_required_declared(schema, params)),
        ("integers_bounded", *_integers_bounded(schema, params)),
        ("closed_sets_enum", *_closed_sets(schema, params)),
        ("title_set", *_title(tool)),
        ("annotations_set", *_annotations(tool)),
        ("output_schema", *_output_schema(tool, sentences)),
        ("no_hijack", *_no_hijack(description, params, other_servers_tools)),
    ]
    return [Check(key, LABELS[key], status, evidence, WHY[key]) for key, status, evidence in verdicts]


def name_words(name: str) -> list[str]:
    return [word for word in re.split(r"[_\-]+", name) if word]


def _name_valid(name: str) -> tuple[Status, str]:
    if CLIENT_NAME.match(name):
        return "pass", f"{name} ({len(name)} characters)"
    return "fail", f"{name[:80]!r} has characters or a length outside ^[a-zA-Z0-9_-]{{1,64}}$"


def _namespaced(name: str, server_name: str) -> tuple[Status, str]:
    parts = name_words(name)
    if len(parts) < 2:
        return "fail", f"{name} is one word, with no prefix saying which service it belongs to"
    prefix = parts[0].lower()
    if prefix in {word.lower() for word in re.split(r"[^A-Za-z0-9]+", server_name)}:
        return "pass", f"prefix {prefix}_ is the server's name"
    if prefix in GENERIC_VERBS:
        return "fail", f"{name} starts with the verb {prefix}, which any server's tools could start with"
    return "pass", f"prefix {prefix}_ names a domain"


def _says_what(name: str, sentences: list[str]) -> tuple[Status, str]:
    if not sentences:
        return "fail", "no description"
    first = sentences[0]
    found = re.findall(r"[A-Za-z0-9']+", first)
    own = {word.lower() for word in name_words(name)}
    new = [word for word in found if word.lower() not in own and word.lower() not in STOP_WORDS]
    if len(found) >= WHAT_MIN_WORDS and len(new) >= WHAT_MIN_NEW_WORDS:
        return "pass", first
    counts = f"words: {len(found)} of {WHAT_MIN_WORDS}, beyond the name: {len(new)} of {WHAT_MIN_NEW_WORDS}"
    return "fail", f"first sentence too thin ({counts}): {first}"


def _first_match(pattern: re.Pattern[str], sentences: list[str], missing: str) -> tuple[Status, str]:
    sentence = next((s for s in sentences if pattern.search(s)), None)
    return ("pass", sentence) if sentence else ("fail", missing)


def _params_described(params: dict[str, dict[str, Any]]) -> tuple[Status, str]:
    if not params:
        return "n/a", "takes no parameters"
    bare = [name for name, node in params.items() if not str(node.get("description", "")).strip()]
    if bare:
        return "fail", f"no description: {', '.join(bare)}"
    return "pass", f"all {len(params)} described"


def _schema_closed(schema: dict[str, Any]) -> tuple[Status, str]:
    if schema.get("additionalProperties") is False:
        return "pass", "additionalProperties: false"
    return "fail", "additionalProperties is not false"


def _required_declared(schema: dict[str, Any], params: dict[str, dict[str, Any]]) -> tuple[Status, str]:
    if not params:
        return "n/a", "takes no parameters"
    listed = set(required(schema))
    loose = [name for name, node in params.items() if name not in listed and "default" not in node]
    if loose:
        return "fail", f"neither required nor defaulted: {', '.join(loose)}"
    return "pass", f"required: {', '.join(sorted(listed)) or 'none'}; the rest have defaults"


def _integers_bounded(schema: dict[str, Any], params: dict[str, dict[str, Any]]) -> tuple[Status, str]:
    integers = {name: [m for m in members(schema, node) if _is_integer(m)] for name, node in params.items()}
    integers = {name: nodes for name, nodes in integers.items() if nodes}
    if not integers:
        return "n/a", "no integer parameters"
    unbounded = [
        name
        for name, nodes in integers.items()
        for node in nodes
        if not (
            {"minimum", "exclusiveMinimum"} & node.keys() and {"maximum", "exclusiveMaximum"} & node.keys()
        )
    ]
    if unbounded:
        return "fail", f"missing a minimum or maximum: {', '.join(dict.fromkeys(unbounded))}"
    return "pass", f"bounded: {', '.join(integers)}"


def _is_integer(node: dict[str, Any]) -> bool:
    kind = node.get("type")
    return kind == "integer" or (isinstance(kind, list) and "integer" in kind)


def _closed_sets(schema: dict[str, Any], params: dict[str, dict[str, Any]]) -> tuple[Status, str]:
    texts = {name: node for name, node in params.items() if "string" in accepted_types(schema, node)}
    if not texts:
        return "n/a", "no text parameters"
    for name, node in texts.items():
        has_enum = any("enum" in m or "const" in m for m in members(schema, node))
        cue = CLOSED_SET.search(str(node.get("description", "")))
        if cue and not has_enum:
            return "fail", f"{name} lists options in prose ({cue.group(0)!r}) but has no enum"
    enums = [name for name, node in texts.items() if any("enum" in m for m in members(schema, node))]
    return "pass", f"enums: {', '.join(enums)}" if enums else "no text parameter lists fixed options"


def _title(tool: Tool) -> tuple[Status, str]:
    title = tool.title or (tool.annotations.title if tool.annotations else None)
    return ("pass", title) if title else ("fail", "no title")


def _annotations(tool: Tool) -> tuple[Status, str]:
    hints = tool.annotations
    values = {
        "readOnlyHint": hints.read_only_hint if hints else None,
        "destructiveHint": hints.destructive_hint if hints else None,
        "idempotentHint": hints.idempotent_hint if hints else None,
        "openWorldHint": hints.open_world_hint if hints else None,
    }
    unset = [key for key, value in values.items() if value is None]
    if unset:
        return "fail", f"unset: {', '.join(unset)}"
    return "pass", ", ".join(f"{key}={str(value).lower()}" for key, value in values.items())


def _output_schema(tool: Tool, sentences: list[str]) -> tuple[Status, str]:
    if tool.output_schema:
        fields = list(properties(tool.output_schema))
        return "pass", f"outputSchema with {', '.join(fields) or 'no named fields'}"
    promise = next((s for s in sentences if STRUCTURED.search(s)), None)
    if promise:
        return "fail", f"promises structured results but has no outputSchema: {promise}"
    return "n/a", "results are described as text"


def _no_hijack(
    description: str, params: dict[str, dict[str, Any]], other_servers_tools: Collection[str]
) -> tuple[Status, str]:
    texts = [description, *(str(node.get("description", "")) for node in params.values())]
    sentences = [s.strip() for text in texts for s in SENTENCE_BREAK.split(text) if s.strip()]
    for sentence in sentences:
        for pattern, kind in HIJACK:
            if found := pattern.search(sentence):
                return "fail", f"{kind} {found.group(0)!r}: {sentence}"
        for name in other_servers_tools:
            if re.search(r"[_-]", name) and re.search(rf"\b{re.escape(name)}\b", sentence):
                return "fail", f"names another server's tool {name}: {sentence}"
    return "pass", "no emphasis words, standing orders or references to other servers' tools"
