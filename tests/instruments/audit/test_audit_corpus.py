"""The corpus runner's sandbox check, and the temporary and home folders the audit gives every server it starts.

The rogue server in "writes" mode behaves like a server with state: it writes state.txt when it
starts and rewrites it when it stops, and its read-only tool (which lies) writes called.txt and
leaves a file in TMPDIR. The runner must blame the probe for called.txt only. In "home" mode it
keeps settings and telemetry in ~/.rogue, as astro-airflow-mcp does in ~/.astro.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from instruments.audit.connect import Target, fresh_home_environment
from instruments.audit.corpus import (
    STRACE,
    audit_one,
    changes,
    corpus_command,
    fingerprint,
    off_machine,
    sandbox,
)
from instruments.audit.run import audit_readings, read_all

ROGUE = Path(__file__).with_name("rogue_server.py")


def writer(place: Path) -> Target:
    return Target(command=(sys.executable, str(ROGUE), "writes"), env=dict(os.environ), cwd=str(place))


async def test_the_probe_is_blamed_only_for_what_starting_and_stopping_do_not_change(tmp_path: Path) -> None:
    sandboxed = await audit_one(writer(tmp_path), tmp_path)
    assert sandboxed.start_stop == ["~state.txt"]
    assert sandboxed.changed == ["+called.txt"]
    assert sandboxed.reading.probes["rogue_lookup"]


def test_a_sandbox_holds_the_files_its_server_needs_to_start(tmp_path: Path) -> None:
    keys = '{"installed": {"client_id": "dummy"}}\n'
    place = sandbox(
        tmp_path, "google-calendar", None, {"gcp-oauth.keys.json": keys, "home/.claude/projects/.keep": ""}
    )
    assert (place / "gcp-oauth.keys.json").read_text() == keys
    assert (place / "home" / ".claude" / "projects").is_dir()
    assert (place / "home").is_dir()  # HOME for the server, inside the sandbox


def can_trace() -> bool:
    return STRACE is not None and subprocess.run([STRACE, "-o", os.devnull, "true"]).returncode == 0


@pytest.mark.skipif(not can_trace(), reason="strace is not installed, or may not trace here")
async def test_a_connection_off_the_machine_during_the_probe_is_reported(tmp_path: Path) -> None:
    target = Target(command=(sys.executable, str(ROGUE), "network"), env=dict(os.environ), cwd=str(tmp_path))
    sandboxed = await audit_one(target, tmp_path)
    assert sandboxed.network == ["192.0.2.1:9"]
    assert sandboxed.start_stop_network == []


def test_only_addresses_off_the_machine_count() -> None:
    trace = "\n".join(
        [
            '12 connect(3, {sa_family=AF_INET, sin_port=htons(443), sin_addr=inet_addr("140.82.112.3")}, 16) = 0',
            '12 connect(4, {sa_family=AF_INET, sin_port=htons(8000), sin_addr=inet_addr("127.0.0.1")}, 16) = 0',
            "13 connect(5, {sa_family=AF_INET6, sin6_port=htons(53), sin6_flowinfo=htonl(0), "
            'inet_pton(AF_INET6, "2001:4860:4860::8888", &sin6_addr), sin6_scope_id=0}, 28) = 0',
            "13 connect(6, {sa_family=AF_INET6, sin6_port=htons(80), sin6_flowinfo=htonl(0), "
            'inet_pton(AF_INET6, "::1", &sin6_addr), sin6_scope_id=0}, 28) = 0',
            '14 connect(7, {sa_family=AF_UNIX, sun_path="/run/nscd/socket"}, 110) = -1 ENOENT',
            '12 connect(3, {sa_family=AF_INET, sin_port=htons(443), sin_addr=inet_addr("140.82.112.3")}, 16) = 0',
        ]
    )
    assert off_machine(trace) == ["140.82.112.3:443", "2001:4860:4860::8888:53"]


def test_a_connection_made_before_the_tools_were_listed_is_not_the_probe_s() -> None:
    trace = "\n".join(
        [
            '12 1764633600.100000 connect(3, {sa_family=AF_INET, sin_port=htons(53), sin_addr=inet_addr("10.0.0.53")}'
            ", 16) = 0",
            '13 1764633601.500000 connect(4, {sa_family=AF_INET, sin_port=htons(443), sin_addr=inet_addr("192.0.2.7")}'
            ", 16) = -1 ENETUNREACH",
        ]
    )
    assert off_machine(trace) == ["10.0.0.53:53", "192.0.2.7:443"]
    assert off_machine(trace, since=1764633601.0) == ["192.0.2.7:443"]


async def test_a_server_s_scratch_goes_to_a_folder_of_its_own_that_is_removed(tmp_path: Path) -> None:
    (reading,) = await read_all([writer(tmp_path)], probe=True, timeout=10)
    given = Path((tmp_path / "called.txt").read_text())
    assert given.name.startswith("mcp-surface-audit-")
    assert not given.exists()
    assert reading.scratch_left == ["rogue-scratch.txt"]
    (server,) = audit_readings([reading]).servers
    assert server.scratch_left == ["rogue-scratch.txt"]


def in_home(tmp_path: Path, fresh_home: bool = True) -> tuple[Target, Path]:
    """The rogue in "home" mode, in a sandbox with a HOME of its own; and the sandbox."""
    place = tmp_path / "sandbox"
    (place / "home").mkdir(parents=True)
    env = {**os.environ, "HOME": str(place / "home"), "ROGUE_HOME_FILE": str(tmp_path / "home-was")}
    command = (sys.executable, str(ROGUE), "home")
    return Target(command=command, env=env, cwd=str(place), fresh_home=fresh_home), place


async def test_what_a_server_writes_in_its_home_lands_in_a_fresh_one_that_is_removed(tmp_path: Path) -> None:
    target, place = in_home(tmp_path)
    (reading,) = await read_all([target], probe=True, timeout=10)
    given = Path((tmp_path / "home-was").read_text())
    assert given.name.startswith("mcp-surface-audit-home-")
    assert not given.exists()
    assert list((place / "home").iterdir()) == []
    assert [path for path in reading.home_left if "session-" not in path] == [
        ".rogue/calls.log",
        ".rogue/settings.yaml",
    ]
    (server,) = audit_readings([reading]).servers
    assert server.home_left == reading.home_left


async def test_the_corpus_shows_home_writes_apart_from_the_sandbox_s_changes(tmp_path: Path) -> None:
    target, place = in_home(tmp_path)
    sandboxed = await audit_one(target, place)
    assert sandboxed.changed == []
    assert sandboxed.home_left == [".rogue/calls.log"]  # not the log its own start wrote, named for it
    assert "~.rogue/settings.yaml" in sandboxed.start_stop


async def test_without_a_fresh_home_the_server_writes_in_the_one_it_was_given(tmp_path: Path) -> None:
    target, place = in_home(tmp_path, fresh_home=False)
    (reading,) = await read_all([target], probe=True, timeout=10)
    assert (place / "home" / ".rogue" / "calls.log").read_text().startswith("call\n")
    assert reading.home_left == []


def test_the_launchers_caches_stay_the_caller_s_and_the_xdg_folders_follow_home() -> None:
    caller = {"HOME": "/home/ada", "XDG_CONFIG_HOME": "/home/ada/.config", "UV_CACHE_DIR": "/fast/uv"}
    env = fresh_home_environment(caller, "/tmp/fresh")
    assert env["HOME"] == "/tmp/fresh"
    assert "XDG_CONFIG_HOME" not in env  # so settings are read and written under the fresh HOME
    assert env["npm_config_cache"] == "/home/ada/.npm"
    assert env["npm_config_userconfig"] == "/home/ada/.npmrc"
    assert env["npm_config_logs_dir"] == "/tmp/fresh/.npm/_logs"
    assert env["UV_CACHE_DIR"] == "/fast/uv"  # the caller's own choice stands
    assert env["UV_PYTHON_INSTALL_DIR"] == "/home/ada/.local/share/uv/python"


def test_changes_name_what_was_added_removed_and_edited(tmp_path: Path) -> None:
    (tmp_path / "kept.txt").write_text("same")
    (tmp_path / "edited.txt").write_text("before")
    (tmp_path / "gone.txt").write_text("x")
    before = fingerprint(tmp_path)
    (tmp_path / "edited.txt").write_text("after")
    (tmp_path / "gone.txt").unlink()
    (tmp_path / "new").mkdir()
    assert changes(before, fingerprint(tmp_path)) == ["+new/", "-gone.txt", "~edited.txt"]


def test_an_unknown_server_name_is_refused_before_anything_is_installed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stopped:
        corpus_command(["--cache", str(tmp_path / "cache"), "--only", "sqllite"])
    assert stopped.value.code == 2
    assert "--only sqllite: corpus.json pins no server of that name; the names are time, fetch" in (
        capsys.readouterr().err
    )
    assert not (tmp_path / "cache").exists()
