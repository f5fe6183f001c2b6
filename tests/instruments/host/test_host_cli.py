"""`python -m instruments.host run`: try a server with a model from the command line; errors are one clear line."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest

from instruments.demo.replay import RECORDINGS, replay_open_meteo
from instruments.host.cli import main


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


def test_a_server_that_does_not_start_is_one_line_quoting_its_last_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    status = main(["run", "--server", "python -m servers.nothing_here", "A question?"])
    error = capsys.readouterr().err
    assert status == 1
    assert error.startswith("error: Could not connect to the server ")
    assert error.endswith("Its last error output: " + error.split("Its last error output: ")[1])
    assert "No module named servers.nothing_here." in error
    assert error.count("\n") == 1
    assert not list(tmp_path.iterdir()), "no log file is left in the temporary folder"


def test_the_servers_log_is_written_where_asked(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    log = tmp_path / "servers.log"
    status = main(["run", "--server", "python -m servers.nothing_here", "--server-log", str(log), "A?"])
    error = capsys.readouterr().err
    assert status == 1
    assert f"The servers' whole log is in {log}." in error
    assert "No module named servers.nothing_here" in log.read_text()


FREDERICK = ["--call", 'weather_get_forecast {"city": "Frederick, Maryland", "days": 1}']


def recorded_day() -> str:
    day: str = json.loads((RECORDINGS / "forecast_frederick_daily.json").read_text())["daily"]["time"][0]
    return day


def test_servers_get_the_callers_environment(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    with replay_open_meteo(RECORDINGS) as replay:
        for name, value in replay.environment().items():
            monkeypatch.setenv(name, value)
        status = main(["run", "--server", "python -m servers.weather", *FREDERICK, "Weather in Frederick?"])
    output = capsys.readouterr().out
    assert status == 0, output
    # Only the replay serves a day this old: the server read the variables the caller set.
    assert 'result for toolu_01: Forecast for "Frederick' in output
    assert recorded_day() in output


def test_env_sets_a_variable_for_the_servers(capsys: pytest.CaptureFixture[str]) -> None:
    with replay_open_meteo(RECORDINGS) as replay:
        variables = [f"--env={name}={value}" for name, value in replay.environment().items()]
        status = main(["run", "--server", "python -m servers.weather", *variables, *FREDERICK, "Frederick?"])
    output = capsys.readouterr().out
    assert status == 0, output
    assert recorded_day() in output


def test_replay_serves_recorded_weather_through_run(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["run", "--replay", "--server", "python -m servers.weather", *FREDERICK, "Frederick?"])
    output = capsys.readouterr().out
    assert status == 0, output
    assert output.startswith("Weather: REPLAYED from recordings on 127.0.0.1")
    assert 'result for toolu_01: Forecast for "Frederick' in output
    assert recorded_day() in output


@pytest.mark.parametrize("setting", ["NOEQUALS", "=value", " KEY=value"])
def test_a_malformed_env_is_refused_naming_the_option(
    capsys: pytest.CaptureFixture[str], setting: str
) -> None:
    with pytest.raises(SystemExit) as exit:
        main(["run", *CONVERT, f"--env={setting}", "A question?"])
    assert exit.value.code == 2
    assert "argument --env: expected KEY=VALUE, e.g. MCP_MAX_RESULT_CHARS=2000" in capsys.readouterr().err


def test_a_malformed_call_is_refused_before_anything_starts(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit:
        main(["run", *CONVERT, "--call", "units_convert {value: 12}", "A question?"])
    assert exit.value.code == 2
    assert "--call takes a tool name and a JSON object" in capsys.readouterr().err
