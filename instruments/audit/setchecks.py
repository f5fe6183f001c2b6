"""Checks on tools together, as a model sees them: how many, which look alike, which share a name.

- tool_count: at most 20 tools, OpenAI's soft guideline for the start of a turn; past it selection
  gets worse and every request pays for definitions it mostly does not use.
- near_duplicates: no two tools whose name and description have a TF-IDF cosine of 0.5 or more
  (see `tfidf.py`); between such a pair the model has to guess, and its guess is not reproducible.
  A pair whose names differ by opposite verbs (create/delete, set/delete, add/remove, read/write,
  open/close, ...) does opposite things however alike its text reads, so it is not a duplicate.
  Only pairs sharing a word are compared, through an index of words (in a set of over 200 tools,
  words that more than 50 tools share are left out of it; see `TfIdf.sharing_pairs`): the cost
  grows with the number of tools, not its square.
- name_collisions: no tool name (compared without case) offered by two audited servers; a host must
  rename one, or one shadows the other.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence

from mcp_types import Tool

from instruments.audit.findings import Check, Status
from instruments.audit.tfidf import TfIdf, name_and_description

MAX_TOOLS = 20
NEAR_DUPLICATE = 0.5
SHOWN_PAIRS = 5
# fmt: off
OPPOSITES = frozenset(frozenset(pair) for pair in (
    ("create", "delete"), ("set", "delete"), ("add", "remove"), ("add", "delete"), ("insert", "delete"),
    ("read", "write"), ("get", "set"), ("open", "close"), ("start", "stop"), ("enable", "disable"),
    ("lock", "unlock"), ("show", "hide"), ("push", "pull"), ("upload", "download"), ("attach", "detach"),
    ("connect", "disconnect"), ("subscribe", "unsubscribe"), ("install", "uninstall"), ("import", "export"),
    ("create", "remove"), ("save", "delete"), ("follow", "unfollow"), ("archive", "unarchive"),
    ("encode", "decode"), ("encrypt", "decrypt"), ("pause", "resume"), ("grant", "revoke"),
))
# fmt: on


def tool_count(count: int) -> Check:
    status: Status = "pass" if count <= MAX_TOOLS else "fail"
    return Check(
        "tool_count",
        f"at most {MAX_TOOLS} tools",
        status,
        f"{count} tool{'' if count == 1 else 's'}",
        "Selection gets worse as tools are added, and every request pays for every definition.",
    )


def near_duplicates(tools: Sequence[tuple[str, Tool]]) -> Check:
    """`tools` are (server label, tool) pairs: the set the model would see at once."""
    why = "Between two tools that read alike the model has to guess, and its guess is not reproducible."
    label = "no near-duplicate tools"
    if len(tools) < 2:
        return Check("near_duplicates", label, "n/a", "fewer than two tools", why)
    proxy = TfIdf([name_and_description(tool) for _, tool in tools])
    pairs = sorted(
        (
            (score, i, j)
            for (i, j), score in proxy.sharing_pairs().items()
            if not opposites(tools[i][1], tools[j][1])
        ),
        reverse=True,
    )

    def pair(i: int, j: int) -> str:
        return f"{tools[i][1].name} and {tools[j][1].name}"

    close = [(score, i, j) for score, i, j in pairs if score >= NEAR_DUPLICATE]
    if close:
        found = "; ".join(f"{pair(i, j)} ({score:.2f})" for score, i, j in close[:SHOWN_PAIRS])
        more = f"; and {len(close) - SHOWN_PAIRS} more pairs" if len(close) > SHOWN_PAIRS else ""
        return Check("near_duplicates", label, "fail", f"cosine ≥ {NEAR_DUPLICATE}: {found}{more}", why)
    if not pairs:
        return Check("near_duplicates", label, "pass", "no two tools share a word", why)
    score, i, j = pairs[0]
    return Check("near_duplicates", label, "pass", f"closest pair {pair(i, j)} at {score:.2f}", why)


def opposites(first: Tool, second: Tool) -> bool:
    """Names that differ by an opposite pair of verbs: set_note and delete_note do opposite things."""
    one = {w.lower() for w in re.split(r"[_\-.]+", first.name)}
    other = {w.lower() for w in re.split(r"[_\-.]+", second.name)}
    return any(frozenset((a, b)) in OPPOSITES for a in one - other for b in other - one)


def name_collisions(servers: Sequence[tuple[str, Sequence[Tool]]]) -> Check:
    why = "Two servers offering one name force the host to rename a tool, or one silently shadows the other."
    label = "no tool name offered by two servers"
    if len(servers) < 2:
        return Check("name_collisions", label, "n/a", "one server audited", why)
    owners: dict[str, list[str]] = defaultdict(list)
    for server, tools in servers:
        for tool in tools:
            owners[tool.name.lower()].append(server)
    shared = {name: found for name, found in owners.items() if len(found) > 1}
    if shared:
        found = "; ".join(f"{name} ({', '.join(found)})" for name, found in shared.items())
        return Check("name_collisions", label, "fail", found, why)
    return Check("name_collisions", label, "pass", f"{len(owners)} distinct names", why)
