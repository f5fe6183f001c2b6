"""The corpus: audit pinned real MCP servers from PyPI and npm, each in a throwaway sandbox, and write the table.

`make audit-corpus` runs `python -m instruments.audit.corpus`. It needs the network (PyPI and npm) the
first time and is not part of CI. Steps:

1. Install the servers pinned in `corpus.json` into the cache directory (default .cache/audit-corpus):
   a virtual environment per PyPI server (its package and the pins `requires` adds, such as mcp<2)
   and a local npm install per npm server. Each step is skipped when its stamp says the same pins
   are already installed.
2. For each server: make a fresh sandbox (a `files/` folder with one text file; a git repository
   for the git server), the caller's HOME inside it. First a control session: start the server there,
   list its tools, hash every file, stop it, hash again; what changed is the server's own starting
   and stopping (a database created, a cache flushed at exit), which the audit may cause. So are
   files that a session's own start created (a log named for that session). Then the
   audit: start, list, hash, probe (safe by default), stop, hash again. Any other difference is a
   side effect of the probe, and is reported. The audit gives the server a temporary folder (TMPDIR)
   and a home folder (HOME) of its own and removes them afterwards; what the server left in each is
   reported as well, the home's less what the control session wrote there. Where
   strace is installed, each session runs under it and every connect() the server makes to an
   address off this machine is reported too, for the control session and the probe apart.
3. Audit our three servers the same way, side by side.
4. Write docs/audit-corpus.md; with --record, also write each server's tools/list and probe
   replies to tests/instruments/audit/recordings/, which the tests judge offline.
"""

from __future__ import annotations

if __name__ == "__main__":  # the imports below take about a second: Ctrl-C meanwhile ends it quietly
    from instruments.console import signals_end_at_once

    with signals_end_at_once():
        from instruments.audit import corpus
    corpus.main()

import argparse
import dataclasses
import hashlib
import ipaddress
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import anyio

from instruments.audit.connect import Session, Target, Unreachable, files_under, server_environment
from instruments.audit.findings import ServerAudit
from instruments.audit.probe import Permission
from instruments.audit.report import rollup
from instruments.audit.run import Reading, audit_readings, read_all
from instruments.console import printable, run_command

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
CORPUS = HERE / "corpus.json"
OURS = ("convert", "basics", "weather")
TIMEOUT = 60.0


@dataclass(frozen=True)
class Row:
    """One server's line of the table; a server that could not be audited has only its error."""

    name: str
    package: str
    tools: int = 0
    tokens: int = 0
    score: float = 0.0
    probe: str = ""
    calls_sent: int = 0
    calls_skipped: int = 0
    changed: list[str] = field(default_factory=list)
    """Paths the probe changed in the sandbox: side effects."""
    start_stop: list[str] = field(default_factory=list)
    """Paths the control session changed, and what it left running: the server's own starting and stopping."""
    scratch_left: list[str] = field(default_factory=list)
    home_left: list[str] = field(default_factory=list)
    """Files the probe session wrote in the home the audit gave the server, less the control session's."""
    left_running: list[str] = field(default_factory=list)
    """Processes the server started that outlived it during the probe session (stopped by the audit)."""
    network: list[str] | None = None
    """Addresses off this machine the server tried during the probe; None when not traced."""
    start_stop_network: list[str] | None = None
    findings: list[str] = field(default_factory=list)
    seconds: float = 0.0
    error: str = ""


def install(cache: Path, servers: list[dict[str, Any]]) -> None:
    """The pinned packages into `cache`; a step whose stamp matches its pins is skipped."""
    # One environment per server: in a shared one, adding a server can change which version of a
    # common dependency (zod, pydantic, mcp itself) another server gets, and with it its schemas.
    for server in servers:
        folder = cache / server["registry"] / server["name"]
        if server["registry"] == "npm":
            pins = [f"{server['package']}@{server['version']}"]
            _step(folder, pins, lambda d=folder, p=pins: _npm(d, p))
        else:
            pins = [f"{server['package']}=={server['version']}", *server.get("requires", [])]
            _step(folder, pins, lambda d=folder, p=pins: _pip(d, p))


def _step(where: Path, pins: list[str], run: Any) -> None:
    stamp = where / ".pins"
    if stamp.exists() and stamp.read_text() == "\n".join(pins):
        return
    what = f"{len(pins)} pinned packages" if len(pins) > 1 else pins[0]
    print(f"installing {what} into {where} (a minute or two) ...", flush=True)
    run()
    stamp.write_text("\n".join(pins))


def _pip(venv: Path, pins: list[str]) -> None:
    subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True)
    subprocess.run([str(venv / "bin/python"), "-m", "pip", "install", "--quiet", *pins], check=True)


def _npm(folder: Path, pins: list[str]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "package.json").write_text('{"name": "audit-corpus", "private": true}\n')
    # No browser download: the audit needs playwright's and puppeteer's tool lists, not a browser.
    env = {**os.environ, "PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD": "1", "PUPPETEER_SKIP_DOWNLOAD": "1"}
    subprocess.run(
        ["npm", "install", "--no-audit", "--no-fund", "--loglevel=error", "--save-exact", *pins],
        cwd=folder,
        env=env,
        check=True,
    )


def sandbox(cache: Path, name: str, fixture: str | None, files: dict[str, str]) -> Path:
    """A fresh directory for one server: `files` are what it needs to start (a dummy OAuth client)."""
    place = cache / "sandbox" / name
    shutil.rmtree(place, ignore_errors=True)
    (place / "files").mkdir(parents=True)
    (place / "home").mkdir()
    (place / "files" / "hello.txt").write_text("hello world\n")
    for relative, text in files.items():
        (place / relative).parent.mkdir(parents=True, exist_ok=True)
        (place / relative).write_text(text)
    if fixture == "git-repo":
        (place / "README.md").write_text("# sandbox\n")
        git = ["git", "-C", str(place), "-c", "user.name=audit", "-c", "user.email=audit@example.invalid"]
        subprocess.run([*git, "init", "--quiet"], check=True)
        subprocess.run([*git, "add", "README.md"], check=True)
        subprocess.run([*git, "commit", "--quiet", "-m", "sandbox"], check=True)
    return place


def fingerprint(place: Path) -> dict[str, str]:
    """Every file under `place` with its SHA-256; symlinks by their target."""
    found = {}
    for path in sorted(place.rglob("*")):
        relative = str(path.relative_to(place))
        if path.is_symlink():
            found[relative] = f"-> {os.readlink(path)}"
        elif path.is_file():
            found[relative] = hashlib.sha256(path.read_bytes()).hexdigest()
        elif path.is_dir():
            found[relative + "/"] = "dir"
    return found


def changes(before: dict[str, str], after: dict[str, str]) -> list[str]:
    added = [f"+{path}" for path in after if path not in before]
    removed = [f"-{path}" for path in before if path not in after]
    edited = [f"~{path}" for path in after if path in before and before[path] != after[path]]
    return added + removed + edited


def expand(words: Sequence[str], places: dict[str, str]) -> list[str]:
    return [word.format(**places) for word in words]


async def audit_one(target: Target, place: Path | None) -> SandboxRun:
    """A control session (start, list, stop), then the audit: what each changed and tried."""

    async def session(probe: bool) -> tuple[Reading, list[str], set[str], list[str]]:
        started = fingerprint(place) if place else {}
        before: dict[str, str] = {}
        listed = 0.0
        home_at_listing: set[str] = set()

        def snapshot(session: Session) -> None:
            nonlocal listed
            before.update(fingerprint(place) if place else {})
            listed = time.time()
            home_at_listing.update(files_under(session.home) if session.home else [])

        with traced(target) as (run, trace):
            (reading,) = await read_all(
                [run], probe=probe, timeout=TIMEOUT, permission=Permission(), before_probe=snapshot
            )
        # The server is stopped by now, so whatever it wrote has landed. A file this session's own
        # start created (a log named for the session, a lock) is the server's, not the probe's doing;
        # so is a connection made before its tools were listed (an update check at start-up, made
        # again by each session because each gets a fresh home).
        created = set(before) - set(started)
        tried = off_machine("".join(trace), since=listed if probe else 0.0)
        if probe:  # what the start-up wrote before the tools were listed is not the probe's doing either
            reading = dataclasses.replace(
                reading, home_left=[path for path in reading.home_left if path not in home_at_listing]
            )
        return reading, changes(before, fingerprint(place) if place else {}), created, tried

    control, start_stop, _, start_stop_network = await session(probe=False)
    reading, changed, created, network = await session(probe=True)
    own = {path[1:] for path in start_stop} | created
    start_stop += [f"left running: {command}" for command in control.left_running]
    start_stop += [f"~{path}" for path in control.home_left]
    return SandboxRun(
        reading,
        [path for path in changed if path[1:] not in own],
        [path for path in reading.home_left if path not in control.home_left],
        start_stop,
        network if STRACE else None,
        start_stop_network if STRACE else None,
    )


@dataclass(frozen=True)
class SandboxRun:
    """What the audit read of one server, and what the probe and the control session left behind."""

    reading: Reading
    changed: list[str]
    home_left: list[str]
    """What the probe session wrote in the audit's fresh home for the server, less the control's."""
    start_stop: list[str]
    network: list[str] | None
    """None when strace is not installed, so nothing was traced."""
    start_stop_network: list[str] | None


STRACE = shutil.which("strace")
CONNECT = re.compile(
    r"^(?:\d+ +)?(?:(?P<time>\d+\.\d+) )?"  # strace -f's pid, -ttt's time
    r"connect\(\d+, \{sa_family=AF_INET6?, sin6?_port=htons\((?P<port>\d+)\)"
    r".*?(?:inet_addr\(\"(?P<v4>[^\"]+)\"\)|inet_pton\(AF_INET6, \"(?P<v6>[^\"]+)\")",
    re.MULTILINE,
)


@contextmanager
def traced(target: Target) -> Iterator[tuple[Target, list[str]]]:
    """The target run under strace, and (once the block ends) strace's record of its connect() calls.

    strace is Linux's; without it the target runs as it is and the record stays empty. The SDK stops
    a server by its process group, so strace and the server stop together.
    """
    record: list[str] = []
    if STRACE is None:
        yield target, record
        return
    with tempfile.TemporaryDirectory(prefix="corpus-trace-") as folder:
        log = Path(folder) / "connect.log"
        trace = (STRACE, "-f", "-qq", "-ttt", "-e", "trace=connect", "-e", "signal=none", "-o", str(log))
        yield dataclasses.replace(target, command=(*trace, *target.command)), record
        record.append(log.read_text(errors="replace") if log.exists() else "")


def off_machine(trace: str, since: float = 0.0) -> list[str]:
    """Each address:port connected to at `since` (seconds since the epoch) or later that is not this
    machine's own (loopback), in order, once."""
    found: dict[str, None] = {}
    for match in CONNECT.finditer(trace):
        host = match.group("v4") or match.group("v6") or ""
        late = float(match.group("time") or 0) >= since
        if late and not ipaddress.ip_address(host.removeprefix("::ffff:")).is_loopback:
            found[f"{host}:{match.group('port')}"] = None
    return list(found)


def row(name: str, package: str, server: ServerAudit, run: SandboxRun, seconds: float) -> Row:
    results = [result for tool in server.tools for result in tool.probes]
    sent = sum(result.reply not in ("skipped", "not applicable") for result in results)
    skipped = sum(result.reply == "skipped" for result in results)
    failing = sorted((r for r in rollup(server) if r[1]), key=lambda r: -r[1] / max(r[2], 1))
    findings = [f"{check.label} ({count}/{applicable})" for check, count, applicable, _ in failing[:3]]
    score = server.score
    if server.environment_failure:
        probe = "environment failure"
    else:
        probe = f"{score.probe_passed}/{score.probe_applicable}" if score.probed else "none scored"
    return Row(
        name,
        package,
        len(server.tools),
        server.cost.anthropic,
        score.value,
        probe,
        sent,
        skipped,
        run.changed,
        run.start_stop,
        server.scratch_left,
        run.home_left,
        run.reading.left_running,
        run.network,
        run.start_stop_network,
        findings,
        seconds,
    )


def markdown(rows: list[Row], ours: list[Row], total: float, before: dict[str, float]) -> str:
    lines = [
        "# The audit on real servers",
        "",
        "Written by `make audit-corpus` (`python -m instruments.audit.corpus`): every server pinned in",
        "`instruments/audit/corpus.json`, installed from PyPI and npm into `.cache/audit-corpus/`, audited",
        'alone in a throwaway sandbox with the default (safe) settings. "Sandbox" is what the probe changed',
        "there, from a hash of every file after the server had started and listed its tools and again after",
        "it had stopped, less what a control session (start, list, stop, no call) changed, which is the",
        'server\'s own starting and stopping, shown as "start/stop". "Scratch" is what the server left in the',
        'temporary folder the audit gives it and then removes; "home", what the probe session wrote in the',
        "home folder the audit gives it and then removes (what the control session wrote there is shown",
        "under start/stop, with a ~).",
        '"Network": the addresses off this machine the server connected to, or tried to, during the probe,',
        "from strace's record of its connect() calls; what it tried while starting and stopping is shown apart.",
        '"Left running": a process the server started that was still running after the server stopped',
        "(found by the private TMPDIR in its environment), which the audit then stopped.",
        '"Was": the audit before this rework, checklist only (its probe executed tools with side',
        "effects, so it was not run again). Scores: `instruments/audit/score.py`; checks: [audit.md](audit.md).",
        "",
    ]
    header = (
        "| Server | Package | Tools | Tokens | Score | Probe passed | Calls sent / skipped | Sandbox | Network"
        " | Top findings (tools failing) |"
    )
    rule = "|---|---|---:|---:|---:|---:|---:|---|---|---|"

    def line(r: Row) -> str:
        if r.error:
            return f"| {r.name} | {r.package} | | | | | | | | could not audit: {printable(r.error)[:160]} |"
        was = f" (was {before[r.name]:.1f})" if r.name in before else ""
        changed = "unchanged" if not r.changed else "CHANGED: " + ", ".join(r.changed[:3])
        if r.start_stop:
            changed += (
                f" (start/stop: {', '.join(r.start_stop[:2])}{', ...' if len(r.start_stop) > 2 else ''})"
            )
        if r.scratch_left:
            changed += f"; scratch: {len(r.scratch_left)} left, removed"
        if r.home_left:
            changed += (
                f"; home: {', '.join(r.home_left[:2])}{', ...' if len(r.home_left) > 2 else ''}, removed"
            )
        if r.left_running:
            changed += f"; LEFT RUNNING: {printable(r.left_running[0])[:80]} (stopped by the audit)"
        return (
            f"| {r.name} | {r.package} | {r.tools} | {r.tokens:,} | {r.score:.1f}{was} | {r.probe} | "
            f"{r.calls_sent} / {r.calls_skipped} | {changed} | {network(r)} | {'; '.join(r.findings) or '-'} |"
        )

    def network(r: Row) -> str:
        if r.network is None:
            return "not traced"
        said = "none" if not r.network else "TRIED: " + ", ".join(r.network[:3])
        if r.start_stop_network:
            said += f" (start/stop: {', '.join(r.start_stop_network[:2])})"
        return said

    lines += [header, rule, *(line(r) for r in rows), "", "## Side by side with our three servers", ""]
    lines += [header, rule, *(line(r) for r in ours)]
    audited = [r for r in rows if not r.error]
    lines += [
        "",
        f"{len(audited)} of {len(rows)} servers audited, {sum(r.tools for r in audited)} tools; "
        f"{sum(r.calls_sent for r in audited)} calls sent, {sum(r.calls_skipped for r in audited)} skipped for safety; "
        f"sandboxes changed by the probe: {sum(bool(r.changed) for r in audited)}; by starting and stopping: "
        f"{sum(bool(r.start_stop) for r in audited)}; servers that left scratch: "
        f"{sum(bool(r.scratch_left) for r in audited)}; servers whose probe wrote in their home: "
        f"{sum(bool(r.home_left) for r in audited)}; servers that left a process running: "
        f"{sum(bool(r.left_running) for r in audited)}; servers whose probe tried the network: "
        f"{sum(bool(r.network) for r in audited)}. Whole run: {total:.0f} s.",
        "",
    ]
    return "\n".join(lines)


def recording(reading: Reading) -> dict[str, Any]:
    return {
        "label": reading.label,
        "tools": [tool.model_dump(by_alias=True, exclude_none=True, mode="json") for tool in reading.tools],
        "probes": {name: [asdict(result) for result in results] for name, results in reading.probes.items()},
    }


def corpus_command(argv: Sequence[str]) -> int:
    parse = argparse.ArgumentParser(
        prog="python -m instruments.audit.corpus", description=__doc__.split("\n")[0]
    )
    parse.add_argument(
        "--cache", type=Path, default=REPO / ".cache/audit-corpus", help="where servers install"
    )
    parse.add_argument(
        "--output", type=Path, default=REPO / "docs/audit-corpus.md", help="the table to write"
    )
    parse.add_argument(
        "--only", action="append", default=[], metavar="NAME", help="audit only NAME (repeatable)"
    )
    parse.add_argument(
        "--record", type=Path, metavar="DIR", help="write tools/list and replies per server to DIR"
    )
    parse.add_argument(
        "--before", type=Path, metavar="JSON", help="earlier scores {name: score} to show beside"
    )
    args = parse.parse_args(argv)
    args.cache = args.cache.resolve()  # servers start inside their sandboxes, so paths must not be relative
    pinned = json.loads(CORPUS.read_text())["servers"]
    servers = [s for s in pinned if not args.only or s["name"] in args.only]
    unknown = sorted(set(args.only) - {s["name"] for s in pinned})
    if unknown:
        parse.error(
            f"--only {unknown[0]}: corpus.json pins no server of that name; the names are "
            + ", ".join(s["name"] for s in pinned)
        )
    started = time.monotonic()
    install(args.cache, servers)
    before = json.loads(args.before.read_text()) if args.before else {}
    rows = []
    for server in servers:
        place = sandbox(args.cache, server["name"], server.get("fixture"), server.get("files", {}))
        here = {
            "venv": str(args.cache / "pypi" / server["name"]),
            "node_modules": str(args.cache / "npm" / server["name"] / "node_modules"),
            "sandbox": str(place),
        }
        given = {key: value.format(**here) for key, value in server.get("env", {}).items()}
        environment, _ = server_environment(os.environ, {**given, "HOME": str(place / "home")})
        target = Target(command=tuple(expand(server["command"], here)), env=environment, cwd=str(place))
        package = f"{server['package']}@{server['version']}"
        rows.append(_audit_row(server["name"], package, target, place, args.record))
        print(
            f"{server['name']:<20} {rows[-1].score:5.1f} {rows[-1].seconds:6.1f} s {rows[-1].error[:80]}",
            flush=True,
        )
    ours = []
    for name in OURS:
        target = Target(
            command=(sys.executable, "-m", f"servers.{name}"), env=dict(os.environ), cwd=str(REPO)
        )
        ours.append(_audit_row(name, "this repository", target, None, None))
    total = time.monotonic() - started
    args.output.write_text(markdown(rows, ours, total, before))
    print(f"wrote {args.output} ({total:.0f} s)")
    return 0


def _audit_row(name: str, package: str, target: Target, place: Path | None, record: Path | None) -> Row:
    began = time.monotonic()
    try:
        sandboxed = anyio.run(audit_one, target, place)
    except Unreachable as exc:
        return Row(name, package, seconds=time.monotonic() - began, error=str(exc))
    reading = sandboxed.reading
    (server,) = audit_readings([reading]).servers
    if record:
        record.mkdir(parents=True, exist_ok=True)
        (record / f"{name}.json").write_text(
            json.dumps(recording(reading), indent=1, ensure_ascii=False) + "\n"
        )
    return row(name, package, server, sandboxed, time.monotonic() - began)


def main() -> None:
    run_command(lambda: corpus_command(sys.argv[1:]))
