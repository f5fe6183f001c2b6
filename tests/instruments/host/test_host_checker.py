"""The transcript checker on hand-made transcripts in both formats, including the tutorial's four defects."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from instruments.host.checker import ANTHROPIC, OPENAI, Unreadable, check, check_file

TRANSCRIPTS = Path(__file__).parent / "transcripts"


def defects(name: str) -> list[tuple[int, str | None]]:
    """(message index, call id) of each defect the checker finds in a transcript file."""
    return [(defect.message, defect.call_id) for defect in check_file(TRANSCRIPTS / name).defects]


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        # The tutorial's four defects, Anthropic shape.
        ("anthropic_bad_text_before_result.json", [(2, "toolu_01A")]),
        ("anthropic_bad_missing_result.json", [(1, "toolu_01B")]),
        ("anthropic_bad_wrong_id.json", [(1, "toolu_01B"), (2, "toolu_01X")]),
        ("anthropic_bad_message_in_between.json", [(3, "toolu_01A"), (3, "toolu_01B")]),
        ("anthropic_bad_unoffered_tool.json", [(1, "toolu_01B")]),
        # The same mistakes in OpenAI shape, where one message per result makes "text before" impossible.
        ("openai_bad_missing_result.json", [(2, "call_01B")]),
        ("openai_bad_wrong_id.json", [(2, "call_01B"), (4, "call_01X")]),
        ("openai_bad_message_in_between.json", [(4, "call_01A"), (5, "call_01B")]),
        ("openai_bad_arguments_not_json.json", [(2, "call_01B")]),
    ],
)
def test_each_defect_is_reported_at_its_message_and_call(name: str, expected: list[tuple[int, str]]) -> None:
    assert defects(name) == expected


@pytest.mark.parametrize(
    ("name", "kind", "pending"),
    [
        ("anthropic_good_two_parallel_calls.json", ANTHROPIC, ()),
        ("openai_good_two_parallel_calls.json", OPENAI, ()),
        # Ending on requests not yet run is a turn in progress, not a broken one.
        ("anthropic_good_pending_calls.json", ANTHROPIC, ("toolu_01A", "toolu_01B")),
        ("openai_good_pending_calls.json", OPENAI, ("call_01B",)),
    ],
)
def test_well_formed_transcripts_pass(name: str, kind: str, pending: tuple[str, ...]) -> None:
    verdict = check_file(TRANSCRIPTS / name)
    assert (verdict.format, verdict.defects, verdict.pending) == (kind, (), pending)
    assert verdict.calls == 2


def test_defect_text_says_what_is_wrong() -> None:
    [in_between] = check_file(TRANSCRIPTS / "openai_bad_message_in_between.json").defects[:1]
    assert "message 3 comes in between" in str(in_between)
    [text_first] = check_file(TRANSCRIPTS / "anthropic_bad_text_before_result.json").defects
    assert "tool_result blocks go first" in str(text_first)


def test_every_shape_of_input_is_read() -> None:
    body = json.loads((TRANSCRIPTS / "openai_good_two_parallel_calls.json").read_text())
    messages = body["messages"]
    assert check(messages).format == OPENAI  # a bare list
    assert check({"messages": messages}).format == OPENAI  # an object with messages only
    assert check(body).format == OPENAI  # a full request body, with model and tools


def test_a_repeated_result_is_a_defect() -> None:
    body = json.loads((TRANSCRIPTS / "anthropic_good_two_parallel_calls.json").read_text())
    results = body["messages"][2]["content"]
    results.append(dict(results[0]))
    assert [(d.message, d.call_id) for d in check(body).defects] == [(2, "toolu_01A")]


@pytest.mark.parametrize(
    "data",
    [
        {"model": "x"},
        [{"content": "no role"}],
        # Mixing the formats is not a transcript either API would accept or this checker could judge.
        [
            {"role": "assistant", "content": [{"type": "tool_use", "id": "a", "name": "t", "input": {}}]},
            {"role": "tool", "tool_call_id": "a", "content": "x"},
        ],
    ],
)
def test_input_in_neither_format_is_unreadable(data: object) -> None:
    with pytest.raises(Unreadable):
        check(data)


def run_checker(*files: Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "instruments.host", "check", *map(str, files)]
    return subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)


def test_command_exit_codes_and_one_line_per_defect(tmp_path: Path) -> None:
    good = TRANSCRIPTS / "anthropic_good_two_parallel_calls.json"
    bad = TRANSCRIPTS / "anthropic_bad_wrong_id.json"
    garbled = tmp_path / "garbled.json"
    garbled.write_text("{not json")

    clean = run_checker(good)
    assert clean.returncode == 0
    assert "well formed" in clean.stdout

    broken = run_checker(good, bad)
    assert broken.returncode == 1
    defect_lines = [line for line in broken.stdout.splitlines() if line.startswith(f"{bad}: message")]
    assert defect_lines == [
        f"{bad}: message 1 (toolu_01B): units_convert gets no tool_result; message 2 must answer every tool_use",
        f"{bad}: message 2 (toolu_01X): this result answers no request: no tool call has this id",
    ]

    unreadable = run_checker(bad, garbled)
    assert unreadable.returncode == 2
    assert f"{garbled}: unreadable: not JSON" in unreadable.stdout
    assert "Traceback" not in unreadable.stdout + unreadable.stderr
