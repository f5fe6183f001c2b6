"""The audit's judging on real servers, offline: recorded tools/list and probe replies of the corpus.

`make audit-corpus` records each server into recordings/NAME.json. Here every verdict is made again
from those recordings and compared with expected-verdicts.json, so a change in a check shows up as
a diff of that file (regenerate it with `.venv/bin/python -m tests.instruments.audit.test_audit_recordings`
and read the diff). hand-labels.json holds verdicts made by hand from Anthropic's tool-writing
guidance and the MCP spec; the audit must agree with them to the issue's bar. The held-out servers
were labelled blind from the tools/list snapshots in held-out/, which are what their labels are
judged against (a corpus install of the same pins can differ: another Python dedents docstrings,
another zod writes other schemas); hand-label-reasons.md gives the reason for each label.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mcp_types import Tool

from instruments.audit.findings import ProbeResult
from instruments.audit.probe import (
    VALID_CALL,
    Permission,
    claims_closed_world,
    plans,
    probe_checks,
    run_refusal,
)
from instruments.audit.run import Reading, audit_readings

RECORDINGS = Path(__file__).with_name("recordings")
EXPECTED = RECORDINGS / "expected-verdicts.json"
LABELS = RECORDINGS / "hand-labels.json"
HELD_OUT = RECORDINGS / "held-out"


def recorded() -> dict[str, dict[str, Any]]:
    return {
        path.stem: json.loads(path.read_text())
        for path in sorted(RECORDINGS.glob("*.json"))
        if path.name not in (EXPECTED.name, LABELS.name)
    }


def rejudged(recording: dict[str, Any]) -> Reading:
    """The recorded replies judged again by today's code, against today's plans for each tool."""
    tools = [Tool.model_validate(entry) for entry in recording["tools"]]
    probes: dict[str, list[ProbeResult]] = {}
    for tool in tools:
        replies = {entry["probe"]: entry for entry in recording["probes"].get(tool.name, [])}
        results = []
        valid: bool | None = None
        may_run = not run_refusal(tool, Permission())
        closed = claims_closed_world(tool, Permission())
        for plan in plans(tool, may_run=may_run):
            entry = replies.get(plan.probe)
            if entry is None or plan.arguments is None or entry["reply"] in ("skipped", "not applicable"):
                reply = "skipped" if plan.skipped else "not applicable"
                results.append(ProbeResult(plan.probe, plan.argument, plan.sent, reply, "", []))  # type: ignore[arg-type]
                continue
            survived = all(c["status"] != "fail" for c in entry["checks"] if c["id"] == "survives")
            checks = (
                []
                if plan.probe == VALID_CALL
                else probe_checks(
                    plan, entry["reply"], entry["text"], survived, valid, not may_run, may_run and closed
                )
            )
            if plan.probe == VALID_CALL:
                valid = entry["reply"] == "success result"
            results.append(
                ProbeResult(plan.probe, plan.argument, plan.sent, entry["reply"], entry["text"], checks)
            )
        probes[tool.name] = results
    return Reading(recording["label"], recording["label"], tools, probes, probed=True)


def verdicts(recordings: dict[str, dict[str, Any]] | None = None) -> dict[str, dict[str, dict[str, str]]]:
    """server -> tool -> check (probe criteria as "probe/criterion") -> status."""
    found: dict[str, dict[str, dict[str, str]]] = {}
    for name, recording in (recordings if recordings is not None else recorded()).items():
        (server,) = audit_readings([rejudged(recording)]).servers
        found[name] = {
            tool.name: {
                **{check.id: check.status for check in tool.checks},
                **{f"{r.probe}/{c.id}": c.status for r in tool.probes for c in r.checks},
            }
            for tool in server.tools
        }
    return found


pytestmark = pytest.mark.skipif(not EXPECTED.exists(), reason="no recordings yet: run make audit-corpus")


def test_every_verdict_on_the_recorded_servers_is_as_expected() -> None:
    assert verdicts() == json.loads(EXPECTED.read_text())


def test_the_audit_agrees_with_the_hand_labels() -> None:
    """Hand labels: {server: {tool: {check: "pass" or "fail"}}}; the issue's bar is 95% / 90%."""
    labels = json.loads(LABELS.read_text())["labels"]
    labelled = {path.stem: json.loads(path.read_text()) for path in sorted(HELD_OUT.glob("*.json"))}
    found = {**verdicts(), **verdicts(labelled)}
    flagged_right = flagged = real = real_found = 0
    for server, tools in labels.items():
        for tool, checks in tools.items():
            for check, truth in checks.items():
                said = found[server][tool][check]
                flagged += said == "fail"
                flagged_right += said == "fail" and truth == "fail"
                real += truth == "fail"
                real_found += truth == "fail" and said == "fail"
    assert flagged
    assert real
    assert flagged_right / flagged >= 0.95, f"{flagged_right} of {flagged} failing findings right"
    assert real_found / real >= 0.90, f"{real_found} of {real} real failings found"


if __name__ == "__main__":
    EXPECTED.write_text(json.dumps(verdicts(), indent=1, sort_keys=True) + "\n")
