"""One score per server: the share of checklist and probe verdicts it passes.

    score = 100 * (C + P) / 2

C is checklist checks passed over checklist checks that apply, across all the server's tools; P is
probe criteria passed over probe criteria that apply. An "n/a" counts neither way. The two halves
weigh the same because they are the two halves of the contract: what the model reads before a
call, and what it gets back when its call is wrong. With --no-probe the score is 100 * C and is
marked checklist-only. The score is rounded down to one decimal, so 100.0 means every verdict that
applies passed. A server without tools scores 0: there is nothing to credit.

Set-level checks (tool count, near-duplicates, name collisions) are reported beside the score, not
in it: they depend on which servers are audited together.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from instruments.audit.findings import Check, Score, ToolAudit


def _tally(checks: Iterable[Check]) -> tuple[int, int]:
    applicable = [check for check in checks if check.status != "n/a"]
    return sum(check.status == "pass" for check in applicable), len(applicable)


def score(tools: list[ToolAudit], probed: bool) -> Score:
    checklist_passed, checklist_applicable = _tally(check for tool in tools for check in tool.checks)
    probe_passed, probe_applicable = _tally(
        check for tool in tools for result in tool.probes for check in result.checks
    )
    checklist = checklist_passed / checklist_applicable if checklist_applicable else 0.0
    if probed:
        probe = probe_passed / probe_applicable if probe_applicable else 0.0
        value = 100 * (checklist + probe) / 2
    else:
        value = 100 * checklist
    return Score(
        # The epsilon keeps float noise (69.99999...) from costing a tenth.
        value=math.floor(value * 10 + 1e-9) / 10,
        checklist_passed=checklist_passed,
        checklist_applicable=checklist_applicable,
        probe_passed=probe_passed,
        probe_applicable=probe_applicable,
        probed=probed,
    )
