"""The audit's verdicts made again from recorded servers, and how far they agree with hand labels.

A failing finding is right when the hand label fails too; a real failing (a hand label's fail) is
found when the audit fails it. Figures for the labelled set, a batch, or one check:

    .venv/bin/python -m tests.instruments.audit.rejudging
    .venv/bin/python -m tests.instruments.audit.rejudging LABELS.json --snapshots FOLDER --disagreements
    .venv/bin/python -m tests.instruments.audit.rejudging LABELS.json --snapshots FOLDER --reasons REASONS.md

With reasons (hand-label-reasons.md for the labelled set), the figures are split into the calls the
readers were sure of and the ones they marked close ("close pass" or "close fail").

labelling-brief.md in recordings/ is what the labellers worked from; docs/audit.md tells the rounds.
"""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

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
from instruments.console import run_command

RECORDINGS = Path(__file__).with_name("recordings")
EXPECTED = RECORDINGS / "expected-verdicts.json"
LABELS = RECORDINGS / "hand-labels.json"
REASONS = RECORDINGS / "hand-label-reasons.md"
HELD_OUT = RECORDINGS / "held-out"

Verdicts = dict[str, dict[str, dict[str, str]]]
"""server -> tool -> check (probe criteria as "probe/criterion") -> "pass", "fail" or another status."""


def recorded(folder: Path = RECORDINGS) -> dict[str, dict[str, Any]]:
    return {
        path.stem: json.loads(path.read_text())
        for path in sorted(folder.glob("*.json"))
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


def verdicts(recordings: dict[str, dict[str, Any]] | None = None) -> Verdicts:
    found: Verdicts = {}
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


@dataclass
class Agreement:
    flagged: int = 0
    flagged_right: int = 0
    real: int = 0
    real_found: int = 0

    @property
    def right(self) -> float:
        return self.flagged_right / self.flagged if self.flagged else 1.0

    @property
    def found(self) -> float:
        return self.real_found / self.real if self.real else 1.0

    def __str__(self) -> str:
        return (
            f"{self.right:6.1%} right ({self.flagged_right}/{self.flagged})"
            f"  {self.found:6.1%} found ({self.real_found}/{self.real})"
        )


def labelled_verdicts(labels: Verdicts, found: Verdicts) -> Iterator[tuple[str, str, str, str, str]]:
    """(server, tool, check, the audit's status, the label) for every labelled verdict."""
    for server, tools in labels.items():
        for tool, checks in tools.items():
            for check, truth in checks.items():
                yield server, tool, check, found[server][tool][check], truth


def close_calls(reasons: str) -> set[tuple[str, str, str]]:
    """(server, tool, check) of every reason line that marks its verdict a close call."""
    marked = re.compile(r"^([^/\s]+)/(.+)/(\w+): close (?:pass|fail)\b", re.MULTILINE)
    return {(server, tool, check) for server, tool, check in marked.findall(reasons)}


def agreement(
    labels: Verdicts,
    found: Verdicts,
    check: str | None = None,
    only: Callable[[tuple[str, str, str]], bool] | None = None,
) -> Agreement:
    tally = Agreement()
    for server, tool, labelled_check, said, truth in labelled_verdicts(labels, found):
        if check is not None and labelled_check != check:
            continue
        if only is not None and not only((server, tool, labelled_check)):
            continue
        tally.flagged += said == "fail"
        tally.flagged_right += said == "fail" and truth == "fail"
        tally.real += truth == "fail"
        tally.real_found += truth == "fail" and said == "fail"
    return tally


def all_labels() -> Verdicts:
    labels: Verdicts = json.loads(LABELS.read_text())["labels"]
    return labels


def labelled_recordings() -> dict[str, dict[str, Any]]:
    """The corpus recordings and the held-out snapshots: what the hand labels judge."""
    return {**recorded(), **recorded(HELD_OUT)}


def all_verdicts() -> Verdicts:
    return verdicts(labelled_recordings())


def main() -> None:
    parser = argparse.ArgumentParser(
        prog="python -m tests.instruments.audit.rejudging",
        description="How far the audit's verdicts agree with hand labels, overall and by check.",
    )
    parser.add_argument(
        "labels", nargs="?", type=Path, help="a labels file {server: {tool: {check: verdict}}}; default: all"
    )
    parser.add_argument("--snapshots", type=Path, help="the folder of the labelled tools/list snapshots")
    parser.add_argument("--disagreements", action="store_true", help="list every verdict that differs")
    parser.add_argument(
        "--reasons", type=Path, help="the labels' reasons file, to split clear calls from close ones"
    )
    options = parser.parse_args()
    reasons = options.reasons
    if options.labels is None:
        labels, found = all_labels(), all_verdicts()
        reasons = reasons or REASONS
    else:
        try:
            labels = json.loads(options.labels.read_text())
        except (OSError, ValueError) as error:
            raise SystemExit(f"labels: cannot read {options.labels} as JSON ({error}).") from None
        labels = labels.get("labels", labels)
        snapshots = recorded(options.snapshots) if options.snapshots else labelled_recordings()
        found = verdicts({name: snapshots[name] for name in labels if name in snapshots})
    missing = sorted(set(labels) - set(found))
    if missing:
        raise SystemExit(f"No snapshot for {', '.join(missing)}: give its folder with --snapshots.")
    print(f"all checks       {agreement(labels, found)}")
    if reasons is not None:
        try:
            close = close_calls(reasons.read_text(encoding="utf-8"))
        except OSError as error:
            raise SystemExit(f"reasons: cannot read {reasons} ({error.strerror}).") from None
        print(f"clear calls      {agreement(labels, found, only=lambda key: key not in close)}")
        print(f"close calls      {agreement(labels, found, only=lambda key: key in close)}")
    for check in sorted(
        {check for tools in labels.values() for checks in tools.values() for check in checks}
    ):
        print(f"{check:<16} {agreement(labels, found, check)}")
    if options.disagreements:
        for server, tool, check, said, truth in labelled_verdicts(labels, found):
            if (said == "fail") != (truth == "fail"):
                print(f"{'false finding' if said == 'fail' else 'missed':<13} {server}/{tool}/{check}")


if __name__ == "__main__":
    run_command(main)
