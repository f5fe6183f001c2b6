"""The audit against servers and inputs that misbehave: a clear message or finding, never a traceback."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp_types import Tool
from rich.console import Console

from instruments.audit import tfidf
from instruments.audit.report import render
from instruments.audit.run import Reading, audit_readings
from tests.support import ctrl_c_delivered, run_audit, serving_over_http

REPO = Path(__file__).resolve().parents[3]
ROGUE = Path(__file__).with_name("rogue_server.py")


def rogue(*modes: str) -> str:
    return f"python {ROGUE} {' '.join(modes)}"


def test_a_tool_without_an_input_schema_is_a_finding_not_a_traceback() -> None:
    done = run_audit("--json", "--server", rogue("no-schema", "bad-schema"))
    assert done.returncode == 0, done.stderr
    (server,) = json.loads(done.stdout)["servers"]
    found = {
        tool["name"]: next(c for c in tool["checks"] if c["id"] == "input_schema") for tool in server["tools"]
    }
    assert found["rogue_bare"]["status"] == "fail"
    assert found["rogue_bare"]["evidence"] == "the definition has no inputSchema, which MCP requires"
    assert found["rogue_bad"]["status"] == "fail"
    assert found["rogue_lookup"]["status"] == "pass"


def test_control_characters_from_a_server_are_escaped_in_every_report() -> None:
    text = run_audit("--server", rogue("escapes"))
    as_json = run_audit("--json", "--server", rogue("escapes"))
    for done in (text, as_json):
        assert done.returncode == 0, done.stderr
        assert "\x1b" not in done.stdout
        assert "\r" not in done.stdout
        assert "\x07" not in done.stdout
    assert "rogue\\x1b[2J\\rname" in text.stdout


def test_stray_stdout_is_a_finding() -> None:
    done = run_audit("--json", "--server", rogue("stray"))
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    (server,) = json.loads(done.stdout)["servers"]
    (check,) = [c for c in server["checks"] if c["id"] == "stdout_clean"]
    assert check["status"] == "fail"
    assert "'Server starting up, hello!'" in check["evidence"]


def test_a_server_that_exits_on_server_discover_is_read_over_the_initialize_handshake() -> None:
    done = run_audit("--json", "--server", rogue("old-sdk"))
    assert done.returncode == 0, done.stderr
    (server,) = json.loads(done.stdout)["servers"]
    assert [tool["name"] for tool in server["tools"]] == ["rogue_lookup"]
    (check,) = [c for c in server["checks"] if c["id"] == "answers_discover"]
    assert check["status"] == "fail"
    ordinary = json.loads(run_audit("--json", "--server", rogue()).stdout)["servers"][0]
    assert "answers_discover" not in [c["id"] for c in ordinary["checks"]]


def test_a_ten_megabyte_description_is_not_echoed_into_the_report() -> None:
    done = run_audit("--json", "--server", rogue("huge"))
    assert done.returncode == 0, done.stderr
    assert len(done.stdout) < 200_000


def test_the_timeout_bounds_the_whole_start_up() -> None:
    done = run_audit("--timeout", "1", "--server", rogue("slow-start"))
    assert done.returncode == 2
    assert "it did not complete the MCP handshake within 1 s (--timeout)" in done.stderr


@pytest.mark.parametrize("value", ["nan", "inf", "-1", "0", "soon"])
def test_a_timeout_that_is_not_a_positive_number_is_refused(value: str) -> None:
    done = run_audit("--timeout", value, "--server", rogue())
    assert done.returncode == 2
    assert "is not a number of seconds above 0; try --timeout 20" in done.stderr
    assert "Traceback" not in done.stderr


def test_the_callers_environment_reaches_the_server_but_credentials_only_when_named() -> None:
    caller = {"AUDIT_PLAIN": "kept", "FAKE_API_TOKEN": "secret1", "FAKE_SERVICE_TOKEN": "secret2"}
    done = run_audit(
        "--json",
        "--env",
        "AUDIT_GIVEN=yes",
        "--env",
        "FAKE_SERVICE_TOKEN",
        "--server",
        rogue("env"),
        env=caller,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    description = report["servers"][0]["tools"][0]["checks"]
    seen = next(c["evidence"] for c in description if c["id"] == "says_what")
    assert '"AUDIT_GIVEN": "yes"' in seen
    assert '"AUDIT_PLAIN": "kept"' in seen
    assert '"FAKE_SERVICE_TOKEN": "secret2"' in seen
    assert "FAKE_API_TOKEN" not in seen
    assert any(
        "Withheld from the servers' environment as credentials:" in note and "FAKE_API_TOKEN" in note
        for note in report["notes"]
    )
    assert all("secret1" not in note for note in report["notes"])


def test_a_command_with_its_own_double_dash_is_one_server() -> None:
    done = run_audit("--json", "--", sys.executable, "--", str(ROGUE))
    assert done.returncode == 0, done.stderr
    assert [s["label"] for s in json.loads(done.stdout)["servers"]] == ["rogue"]
    repeated = run_audit("--json", "--server", f"python -- {ROGUE}", "--server", rogue())
    assert [s["label"] for s in json.loads(repeated.stdout)["servers"]] == ["rogue", "rogue #2"]


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (b"\xff\xfe not text\n", "line 1: not UTF-8 text. Save the file as UTF-8."),
        (b"[" * 100_000 + b"\n", 'line 1: expected {"text": "...", "tool": "tool_name" or null}'),
        (b'{"text": "a", "tool": null, "n": ' + b"9" * 5000 + b"}\n", 'line 1: expected {"text"'),
    ],
    ids=["not-utf8", "deep", "huge-integer"],
)
def test_an_unreadable_request_file_exits_2_naming_the_line(
    tmp_path: Path, line: bytes, expected: str
) -> None:
    requests = tmp_path / "requests.jsonl"
    requests.write_bytes(line)
    done = run_audit("--requests", str(requests), "--server", rogue())
    assert done.returncode == 2
    assert expected in done.stderr
    assert "Traceback" not in done.stderr


def pid_gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    # A zombie whose parent has not reaped it yet has stopped running too.
    with open(f"/proc/{pid}/stat") as stat:
        return stat.read().split()[2] == "Z"


def wait_until_gone(pid: int, what: str) -> None:
    """Only a guard against a hang: the audit has already stopped the process when this is called."""
    deadline = time.monotonic() + 30
    while not pid_gone(pid):
        assert time.monotonic() < deadline, f"{what} was left running"
        time.sleep(0.1)


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_an_interrupted_audit_ends_quietly_and_stops_its_server(
    tmp_path: Path, signum: int, code: int
) -> None:
    pid_file = tmp_path / "pid"
    audits_temp = tmp_path / "tmp"  # where the audit makes the server's TMPDIR and HOME
    audits_temp.mkdir()
    process = subprocess.Popen(
        [sys.executable, "-m", "instruments.audit", "--timeout", "600", "--server", rogue("stall", "home")],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "ROGUE_PID_FILE": str(pid_file), "TMPDIR": str(audits_temp)},
        preexec_fn=ctrl_c_delivered,
    )
    # The first call stalls forever, so the audit is inside a call when the signal comes.
    deadline = time.monotonic() + 60
    while not pid_file.exists() or not pid_file.read_text():
        assert time.monotonic() < deadline, "the server never started"
        time.sleep(0.1)
    time.sleep(1)
    process.send_signal(signum)
    _stdout, stderr = process.communicate(timeout=60)
    assert process.returncode == code
    assert stderr == ""
    wait_until_gone(int(pid_file.read_text()), "the server")
    assert list(audits_temp.iterdir()) == []  # the server's home and scratch, with what it wrote, are gone


def test_a_process_the_server_leaves_running_is_stopped_and_reported(tmp_path: Path) -> None:
    pid_file = tmp_path / "daemon"
    done = run_audit("--json", "--server", rogue("daemon"), env={"ROGUE_DAEMON_PID_FILE": str(pid_file)})
    assert done.returncode == 0, done.stderr
    wait_until_gone(int(pid_file.read_text()), "the server's daemon")
    (server,) = json.loads(done.stdout)["servers"]
    (check,) = [c for c in server["checks"] if c["id"] == "stops_cleanly"]
    assert check["status"] == "fail"
    assert "time.sleep(300)" in check["evidence"]


@pytest.fixture
def convert_with_a_token() -> Iterator[str]:
    with serving_over_http("servers.convert", {"MCP_BEARER_TOKEN": "s3cret-token"}) as url:
        yield url


def test_a_401_is_named_and_a_bearer_token_opens_the_door(convert_with_a_token: str) -> None:
    refused = run_audit("--url", convert_with_a_token)
    assert refused.returncode == 2
    assert "it answered 401 Unauthorized, so it needs credentials" in refused.stderr
    allowed = run_audit(
        "--json",
        "--bearer-token-env",
        "AUDIT_TOKEN",
        "--url",
        convert_with_a_token,
        env={"AUDIT_TOKEN": "s3cret-token"},
    )
    assert allowed.returncode == 0, allowed.stderr
    assert json.loads(allowed.stdout)["servers"][0]["score"]["value"] == 100.0
    header = run_audit(
        "--json", "--header", "Authorization: Bearer s3cret-token", "--url", convert_with_a_token
    )
    assert header.returncode == 0, header.stderr


def many_tools(count: int) -> list[Tool]:
    """Tools as a generator would write them: words all share, words groups of ten share, and each one's own."""
    return [
        Tool(
            name=f"bulk_item_{i}",
            description=f"Read item number {i} of the bulk store, tagged t{i} and group g{i % (count // 10)}, as text.",
            input_schema={
                "type": "object",
                "properties": {"id": {"type": "integer", "minimum": 0, "maximum": 9}},
            },
        )
        for i in range(count)
    ]


def compared_pairs(count: int, monkeypatch: pytest.MonkeyPatch) -> int:
    calls = 0
    real = tfidf.TfIdf.similarity

    def counted(self: tfidf.TfIdf, first: int, second: int) -> float:
        nonlocal calls
        calls += 1
        return real(self, first, second)

    monkeypatch.setattr(tfidf.TfIdf, "similarity", counted)
    audit_readings([Reading("bulk", "bulk", many_tools(count), {}, probed=False)])
    return calls


def test_the_set_checks_grow_linearly_with_the_number_of_tools(monkeypatch: pytest.MonkeyPatch) -> None:
    # Every pair of 2,000 tools would be 2 million comparisons; only pairs joined by a rarer word are
    # made, here the 45 pairs inside each group of ten.
    small, large = compared_pairs(1000, monkeypatch), compared_pairs(2000, monkeypatch)
    assert (small, large) == (100 * 45, 200 * 45)


def test_a_report_of_a_big_server_stays_bounded_by_its_findings() -> None:
    huge = Tool(
        name="bulk_huge", description="Read. " + "padding " * 125_000, input_schema={"type": "object"}
    )
    audited = audit_readings([Reading("bulk", "bulk", [huge], {}, probed=False)])
    out = io.StringIO()
    render(audited, Console(file=out, width=200))
    assert len(out.getvalue()) < 50_000


def test_a_server_gets_a_fresh_home_unless_env_names_home(tmp_path: Path) -> None:
    marker = tmp_path / "home-was"
    env = {"ROGUE_HOME_FILE": str(marker)}
    fresh = run_audit("--json", "--server", rogue("home"), env=env)
    assert fresh.returncode == 0, fresh.stderr
    report = json.loads(fresh.stdout)
    assert {".rogue/calls.log", ".rogue/settings.yaml"} <= set(report["servers"][0]["home_left"])
    assert any("fresh home folder" in note and "--env HOME" in note for note in report["notes"])
    assert not Path(marker.read_text()).exists()
    mine = tmp_path / "mine"
    mine.mkdir()
    given = run_audit("--json", "--env", f"HOME={mine}", "--server", rogue("home"), env=env)
    assert given.returncode == 0, given.stderr
    assert (mine / ".rogue" / "settings.yaml").exists()
    assert not any("fresh home folder" in note for note in json.loads(given.stdout)["notes"])
