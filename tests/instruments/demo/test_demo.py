"""`make demo` end to end, offline: the worked example through the real servers, with recorded weather."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from instruments.demo.replay import RECORDINGS


def test_the_demo_runs_the_worked_example_on_replayed_weather_and_says_so(tmp_path: Path) -> None:
    log = tmp_path / "servers.log"
    command = [sys.executable, "-m", "instruments.demo", "--replay", "--server-log", str(log)]
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    environment = {**os.environ, "TMPDIR": str(temporary)}
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False, env=environment)
    output = done.stdout
    assert done.returncode == 0, output + done.stderr

    recorded = json.loads((RECORDINGS / "forecast_frederick_daily.json").read_text())["daily"]
    recording_day, tomorrow = recorded["time"][0], recorded["time"][1]
    # Replayed data is never presented as live.
    assert "REPLAYED, not live (as asked)" in output
    assert f"recorded on {recording_day}" in output
    assert "LIVE" not in output

    parallel, sequential = output.split("== The same question, one call per reply")
    # One reply asks for both tools; the host runs them together; the answer uses what came back.
    parts = [
        re.split(r"\s{2,}", line.strip())[1]
        for line in parallel.splitlines()
        if re.match(r" {1,2}\d  \S", line)
    ]
    assert parts == [
        "host",
        "person",
        "model",
        "model",
        "host → tools",
        "tool: weather",
        "tool: convert",
        "model",
    ]
    assert "ran 2 calls at once" in parallel
    answer = parallel.split("  7  model")[1]
    low, high = recorded["temperature_2m_min"][1], recorded["temperature_2m_max"][1]
    assert f"Tomorrow ({tomorrow})" in answer
    assert f"{low:g} to {high:g}" in answer
    assert "19.3 km" in answer

    # The bill: 2 requests in one reply, 3 with one call per reply, definitions re-read by each.
    assert "Token bill, 2 requests to the model" in parallel
    assert "Token bill, 3 requests to the model" in sequential
    assert "The tool definitions were read 3 times" in sequential
    assert output.count("Checker: well formed (Anthropic Messages") == 2
    assert "Traceback" not in output + done.stderr
    assert "geocoding_frederick.json" in log.read_text(), "the replay's own log names the recording it served"
    # tiktoken keeps its own cache there (data-gym-cache); the demo leaves no log of its own.
    assert not list(temporary.glob("*.log")), "the demo leaves no log in the temporary folder"
