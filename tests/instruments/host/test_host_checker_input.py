"""`mcp-host check` on input that is not a transcript: exit 2 ("unreadable") with a reason, never a
traceback, a stall or a file read without bound; text from the file is printed escaped."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from instruments.host.checker import MAX_FILE_BYTES, Unreadable, check, main


def checked(path: Path | str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    status = main([str(path)])
    return status, capsys.readouterr().out


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        ("[" * 100_000 + "]" * 100_000, "its JSON is nested too deeply to be a transcript"),
        ('[{"role": "user", "content": ' + "9" * 5_000 + "}]", "a number in it has more than 4,300 digits"),
        ("[{]", "not JSON (line 1, column 3"),
    ],
    ids=["100k deep", "5000 digits", "broken JSON"],
)
def test_hostile_json_is_unreadable_not_a_crash(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, reason: str
) -> None:
    path = tmp_path / "transcript.json"
    path.write_text(content)
    status, output = checked(path, capsys)
    assert status == 2
    assert output.startswith(f"{path}: unreadable: {reason}")


def test_a_file_over_the_cap_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "huge.json"
    path.write_text("[" + " " * MAX_FILE_BYTES + "]")
    status, output = checked(path, capsys)
    assert status == 2
    assert "larger than 8 MB, the most this checker reads" in output


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
def test_a_fifo_is_refused_without_waiting_for_a_writer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    status, output = checked(fifo, capsys)  # opening it would block until something writes
    assert status == 2
    assert output == f"{fifo}: unreadable: not a regular file; save the transcript to a file and check that\n"


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero here")
def test_an_endless_device_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    status, output = checked("/dev/zero", capsys)
    assert status == 2
    assert "not a regular file" in output


def test_ids_with_escape_sequences_and_lone_surrogates_are_printed_escaped(tmp_path: Path) -> None:
    # JSON escapes keep the file valid UTF-8; parsed, the id holds ESC [2J (clear screen) and a lone surrogate.
    call = {"type": "tool_use", "id": "\\u001b[2J\\ud800", "name": "units_convert", "input": {}}
    text = json.dumps([{"role": "assistant", "content": [call]}, {"role": "user", "content": "hi"}])
    path = tmp_path / "hostile.json"
    path.write_text(text.replace("\\\\u", "\\u"))
    done = subprocess.run(
        [sys.executable, "-m", "instruments.host", "check", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, "PYTHONIOENCODING": "utf-8"},
    )
    assert done.returncode == 1, done.stderr
    assert done.stderr == ""
    assert "message 0 (\\x1b[2J\\ud800): units_convert gets no tool_result" in done.stdout
    assert "\x1b" not in done.stdout


def test_a_reader_that_leaves_early_ends_the_checker_quietly(tmp_path: Path) -> None:
    calls = [{"type": "tool_use", "id": f"call{n}", "name": "t", "input": {}} for n in range(20_000)]
    path = tmp_path / "many.json"
    path.write_text(json.dumps([{"role": "assistant", "content": calls}, {"role": "user", "content": "x"}]))
    checker = subprocess.Popen(
        [sys.executable, "-m", "instruments.host", "check", str(path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert checker.stdout is not None
    assert checker.stderr is not None
    checker.stdout.readline()  # like `| head -1`: read one line, then close the pipe
    checker.stdout.close()
    errors = checker.stderr.read()
    checker.wait(timeout=60)
    assert errors == b""
    assert checker.returncode == 0


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=4),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=12,
)
ROLES = st.sampled_from(["user", "assistant", "tool", "system"])
BLOCK = st.fixed_dictionaries(
    {"type": st.sampled_from(["tool_use", "tool_result", "text"])},
    optional={"id": JSON, "name": JSON, "input": JSON, "tool_use_id": JSON},
)
MESSAGE = st.fixed_dictionaries(
    {"role": ROLES},
    optional={"content": st.lists(BLOCK | JSON, max_size=3) | JSON, "tool_calls": JSON, "tool_call_id": JSON},
)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(MESSAGE, max_size=4)
    | st.fixed_dictionaries({"messages": st.lists(MESSAGE, max_size=4)}, optional={"tools": JSON})
)
def test_any_shape_gets_a_verdict_or_a_reason(data: object) -> None:
    try:
        verdict = check(data)
    except Unreadable as unreadable:
        reason = str(unreadable)
    else:
        reason = verdict.summary()
    assert reason
