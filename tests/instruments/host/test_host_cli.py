"""`python -m instruments.host run`: try a server with a model from the command line; errors are one clear line."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from instruments.host.__main__ import main


@pytest.fixture(autouse=True)
def server_logs_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each run keeps its servers' log in a temporary file; keep the test's in its own folder."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))


CONVERT = ["--server", "python -m servers.convert"]
MILES = ["--call", 'units_convert {"value": 12, "from_unit": "mi", "to_unit": "km"}']


def test_run_prints_the_transcript_the_bill_and_the_verdict(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["run", *CONVERT, *MILES, "How far is 12 miles in km?"])
    output = capsys.readouterr().out
    assert status == 0, output
    assert "result for toolu_01: 12 mi = 19.312128 km" in output
    # The scripted model's answer quotes what came back.
    assert "units_convert returned: 12 mi = 19.312128 km" in output
    assert "Token bill, 2 requests to the model" in output
    assert "Checker: well formed (Anthropic Messages, 4 messages, 1 tool call)" in output


def test_the_iteration_cap_is_a_stop_reason_not_a_crash(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["run", *CONVERT, *MILES, "--max-requests", "1", "How far is 12 miles in km?"])
    output = capsys.readouterr().out
    assert status == 1
    assert "Stopped: The model still asked for tools after 1 request," in output
    assert "1 still awaiting its result" in output


def test_a_missing_api_key_is_one_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    status = main(["run", *CONVERT, "--model", "openai:gpt-5", "How far is 12 miles in km?"])
    assert status == 1
    assert capsys.readouterr().err == "error: openai:gpt-5 needs OPENAI_API_KEY set in the environment.\n"


def test_a_server_that_does_not_start_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["run", "--server", "python -m servers.nothing_here", "A question?"])
    error = capsys.readouterr().err
    assert status == 1
    assert error.startswith("error: Could not connect to the server ")
    assert error.count("\n") == 1


def test_a_malformed_call_is_refused_before_anything_starts(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit:
        main(["run", *CONVERT, "--call", "units_convert {value: 12}", "A question?"])
    assert exit.value.code == 2
    assert "--call takes a tool name and a JSON object" in capsys.readouterr().err
