"""One score per server, from 0 to 100: weighted pass rates per check, so that what matters most counts most.

    C = sum(w_k * r_k) / sum(w_k) over checklist checks k that apply to at least one tool
    P = sum(w_k * r_k) / sum(w_k) over probe criteria k with at least one scored verdict
    score = 100 * (2C + P) / 3       (100 * C without probes: --no-probe, or an environment failure)

r_k is the share of the server's tools that pass check k, counting only tools where it applies
("n/a" and "inconclusive" count neither way, and probes skipped for safety send nothing to judge).
Averaging per check rather than per verdict keeps one check that fails on fifty tools from drowning
the rest, and keeps the score comparable between a 2-tool and a 50-tool server. The weights:

- 3, what a model cannot work without: a valid name and inputSchema, says what it does, every
  parameter described, no hijacking words; probes: error result, names the argument, survives,
  refuses first (a call that only the server's refusal keeps from running).
- 2, what makes calls right the first time: says when and when not, namespaced, schema closed,
  required declared, numbers bounded, closed sets as enums; probes: short, no internals, no splicing,
  keeps to its closed world.
- 1, what hosts and clients use: title, annotations, outputSchema; probes: no echo.

The checklist weighs twice the probe because it applies to every tool, while the probe, being safe
by default, only judges what could be sent. The score is rounded down to one decimal, so 100.0 means
every verdict that applies passed. A server without tools scores 0.

Set-level checks (tool count, near-duplicates, name collisions) are reported beside the score, not
in it: they depend on which servers are audited together.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable

from instruments.audit.findings import Check, Score, ToolAudit

# fmt: off
WEIGHTS = {
    "name_valid": 3, "input_schema": 3, "says_what": 3, "params_described": 3, "no_hijack": 3,
    "says_when": 2, "says_when_not": 2, "namespaced": 2, "schema_closed": 2, "required_declared": 2,
    "numbers_bounded": 2, "closed_sets_enum": 2, "title_set": 1, "annotations_set": 1, "output_schema": 1,
    "error_result": 3, "names_argument": 3, "survives": 3, "refuses_first": 3, "short": 2, "keeps_closed_world": 2, "no_internals": 2, "no_splicing": 2,
    "no_echo": 1,
}
# fmt: on
CHECKLIST_WEIGHT, PROBE_WEIGHT = 2, 1


def _rates(checks_per_tool: Iterable[Iterable[Check]]) -> tuple[float | None, int, int]:
    """The weighted mean of per-check pass rates, and the passed and scored verdict counts."""
    passed: dict[str, int] = defaultdict(int)
    scored: dict[str, int] = defaultdict(int)
    for checks in checks_per_tool:
        for check in checks:
            if check.status in ("pass", "fail"):
                scored[check.id] += 1
                passed[check.id] += check.status == "pass"
    if not scored:
        return None, 0, 0
    total = sum(WEIGHTS.get(key, 1) for key in scored)
    mean = sum(WEIGHTS.get(key, 1) * passed[key] / scored[key] for key in scored) / total
    return mean, sum(passed.values()), sum(scored.values())


def score(tools: list[ToolAudit], probed: bool) -> Score:
    checklist, checklist_passed, checklist_applicable = _rates(tool.checks for tool in tools)
    probe, probe_passed, probe_applicable = _rates(
        [check for result in tool.probes for check in result.checks] for tool in tools
    )
    if checklist is None:
        value = 0.0
    elif probed and probe is not None:
        value = (
            100 * (CHECKLIST_WEIGHT * checklist + PROBE_WEIGHT * probe) / (CHECKLIST_WEIGHT + PROBE_WEIGHT)
        )
    else:
        value = 100 * checklist
    return Score(
        # The epsilon keeps float noise (69.99999...) from costing a tenth.
        value=math.floor(value * 10 + 1e-9) / 10,
        checklist_passed=checklist_passed,
        checklist_applicable=checklist_applicable,
        probe_passed=probe_passed,
        probe_applicable=probe_applicable,
        probed=probed and probe is not None,
    )
