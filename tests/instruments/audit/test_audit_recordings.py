"""The audit's judging on real servers, offline: recorded tools/list and probe replies of the corpus.

`make audit-corpus` records each server into recordings/NAME.json. Here every verdict is made again
from those recordings and compared with expected-verdicts.json, so a change in a check shows up as
a diff of that file (regenerate it with `.venv/bin/python -m tests.instruments.audit.test_audit_recordings`
and read the diff). hand-labels.json holds verdicts made by hand from Anthropic's tool-writing
guidance and the MCP spec; the audit must agree with them to the issue's bar. The held-out servers
were labelled blind from the tools/list snapshots in held-out/, which are what their labels are
judged against (a corpus install of the same pins can differ: another Python dedents docstrings,
another zod writes other schemas); hand-label-reasons.md gives the reason for each label, and
rejudging.py prints the figures by check.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.instruments.audit.rejudging import (
    EXPECTED,
    HELD_OUT,
    agreement,
    all_labels,
    all_verdicts,
    verdicts,
)

pytestmark = pytest.mark.skipif(not EXPECTED.exists(), reason="no recordings yet: run make audit-corpus")


def test_every_verdict_on_the_recorded_servers_is_as_expected() -> None:
    assert verdicts() == json.loads(EXPECTED.read_text())


def test_the_audit_agrees_with_the_hand_labels() -> None:
    """Hand labels: {server: {tool: {check: "pass" or "fail"}}}; the issue's bar is 95% / 90%."""
    tally = agreement(all_labels(), all_verdicts())
    assert tally.flagged
    assert tally.real
    assert tally.right >= 0.95, f"{tally.flagged_right} of {tally.flagged} failing findings right"
    assert tally.found >= 0.90, f"{tally.real_found} of {tally.real} real failings found"


def rejudge(folder: Path, labels: dict[str, Any], *options: str) -> subprocess.CompletedProcess[str]:
    """The batch command docs/audit.md gives, run in `folder` on `labels` and agentation's snapshot."""
    (folder / "labels.json").write_text(json.dumps(labels))
    (folder / "snapshots").mkdir(exist_ok=True)
    shutil.copy(HELD_OUT / "agentation.json", folder / "snapshots")
    return subprocess.run(
        [sys.executable, "-m", "tests.instruments.audit.rejudging", "labels.json", *options],
        cwd=folder,
        env={"PYTHONPATH": str(Path.cwd())},
        capture_output=True,
        text=True,
    )


def test_a_batch_of_labels_is_measured_by_check_with_its_disagreements(tmp_path: Path) -> None:
    """The command docs/audit.md gives for measuring a new batch against its snapshots."""
    labels = {"agentation": all_labels()["agentation"]}
    labels["agentation"]["agentation_list_sessions"]["namespaced"] = "fail"  # a known pass, relabelled
    measured = rejudge(tmp_path, labels, "--snapshots", "snapshots", "--disagreements")
    assert measured.returncode == 0, measured.stderr
    shown = measured.stdout.splitlines()
    namespaced = next(line for line in shown if line.startswith("namespaced"))
    assert namespaced.split()[1:] == ["100.0%", "right", "(0/0)", "0.0%", "found", "(0/1)"]
    assert "missed        agentation/agentation_list_sessions/namespaced" in shown
    (tmp_path / "elsewhere").mkdir()
    unknown = rejudge(tmp_path, labels, "--snapshots", "elsewhere")
    assert unknown.returncode == 1
    assert unknown.stderr.strip() == "No snapshot for agentation: give its folder with --snapshots."


def test_a_batch_is_split_into_the_calls_its_reader_was_sure_of_and_the_close_ones(tmp_path: Path) -> None:
    """docs/audit.md's first-contact figures that leave out the readers' close calls."""
    labels = {"agentation": all_labels()["agentation"]}
    labels["agentation"]["agentation_list_sessions"]["namespaced"] = "fail"
    labels["agentation"]["agentation_get_session"]["namespaced"] = "fail"
    (tmp_path / "reasons.md").write_text(
        "## Batch Z (agentation) - a labeller\n"
        "agentation/agentation_list_sessions/namespaced: close fail - a product prefix, or a verb?\n"
        "agentation/agentation_get_session/namespaced: fail - no prefix\n"
    )
    measured = rejudge(tmp_path, labels, "--snapshots", "snapshots", "--reasons", "reasons.md")
    assert measured.returncode == 0, measured.stderr
    shown = measured.stdout.splitlines()
    whole = agreement(
        labels, verdicts({"agentation": json.loads((HELD_OUT / "agentation.json").read_text())})
    )
    clear = next(line for line in shown if line.startswith("clear calls")).split()
    close = next(line for line in shown if line.startswith("close calls")).split()
    assert close[2:] == ["100.0%", "right", "(0/0)", "0.0%", "found", "(0/1)"]
    assert clear[-1] == f"({whole.real_found}/{whole.real - 1})"


if __name__ == "__main__":
    EXPECTED.write_text(json.dumps(verdicts(), indent=1, sort_keys=True) + "\n")
