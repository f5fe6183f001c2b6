"""The command line: `mcp-surface-audit [options] --server 'COMMAND' [--server 'COMMAND']... [--url URL]...`.

A single server may also follow a `--`, as before: `mcp-surface-audit [options] -- COMMAND [ARGS...]`;
everything after that `--` is its command, `--` included, so `node -- server.js` works.

Exit codes: 0 audited; 1 a server scored under --fail-under; 2 a server could not be started or
reached, a request file could not be read, or the command line was wrong; 130 Ctrl-C; 143 SIGTERM.
"""

from __future__ import annotations

import argparse
import math
import os
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path

import anyio
from rich.console import Console

from instruments.audit.connect import Target, Unreachable, interpreter_command, server_environment
from instruments.audit.findings import Audit
from instruments.audit.probe import Permission
from instruments.audit.report import render, to_json
from instruments.audit.run import audit_readings, read_all
from instruments.audit.selection import Request, RequestFileError, read_requests
from instruments.console import printable

USAGE = "%(prog)s [options] (--server 'COMMAND' | --url URL)... | %(prog)s [options] -- COMMAND [ARGS...]"
EPILOG = (
    "Servers named together are audited together, as a model would see their tools. Only tools "
    "annotated readOnlyHint: true (and openWorldHint: false) are called with valid-looking "
    "arguments; every other tool gets only calls its own schema rejects. Example: "
    "%(prog)s --requests servers/convert/requests.jsonl --server 'python -m servers.convert'"
)


def positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds above 0; try --timeout 20")
    return value


def parser() -> argparse.ArgumentParser:
    parse = argparse.ArgumentParser(
        prog="mcp-surface-audit",
        usage=USAGE,
        description="Score MCP servers' tool surfaces the way a model experiences them.",
        epilog=EPILOG,
    )
    parse.add_argument(
        "--server",
        action="append",
        default=[],
        metavar="COMMAND",
        help="a stdio server's command line, split like a shell would (repeatable); a leading python "
        "means this audit's own interpreter",
    )
    parse.add_argument(
        "--url", action="append", default=[], help="a Streamable HTTP server to audit (repeatable)"
    )
    parse.add_argument(
        "--header",
        action="append",
        default=[],
        metavar="'NAME: VALUE'",
        help="an HTTP header for every --url request, e.g. 'Authorization: Bearer TOKEN' (repeatable)",
    )
    parse.add_argument(
        "--bearer-token-env",
        metavar="VAR",
        help="send the token in environment variable VAR as Authorization: Bearer to every --url",
    )
    parse.add_argument(
        "--env",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="set KEY for the servers started; a bare KEY passes the caller's value, which is how a "
        "credential reaches a server (repeatable)",
    )
    parse.add_argument(
        "--requests",
        action="append",
        type=Path,
        default=[],
        metavar="FILE",
        help='JSON lines {"text": ..., "tool": name or null} for the selection proxy (repeatable)',
    )
    parse.add_argument("--no-probe", action="store_true", help="make no tool calls at all")
    parse.add_argument(
        "--allow-network",
        action="store_true",
        help="also call read-only tools that may reach the network (openWorldHint not false)",
    )
    parse.add_argument(
        "--allow-side-effects",
        action="store_true",
        help="call every tool with valid-looking arguments, including ones that write or delete: "
        "only on a throwaway server",
    )
    parse.add_argument("--json", action="store_true", help="print the findings as JSON instead of tables")
    parse.add_argument(
        "--fail-under", type=float, metavar="SCORE", help="exit 1 if a server scores under SCORE"
    )
    parse.add_argument(
        "--timeout",
        type=positive_seconds,
        default=20.0,
        metavar="SECONDS",
        help="limit for the whole start-up of each server, and for each call (default 20)",
    )
    return parse


def split_commands(argv: Sequence[str]) -> tuple[list[str], list[tuple[str, ...]]]:
    """Options before the first `--`; everything after it is one server's command, later `--` included."""
    if "--" not in argv:
        return list(argv), []
    cut = list(argv).index("--")
    command = tuple(argv[cut + 1 :])
    return list(argv[:cut]), [command] if command else []


def audit_command(argv: Sequence[str]) -> int:
    options, commands = split_commands(argv)
    parse = parser()
    args = parse.parse_args(options)
    try:
        commands += [tuple(shlex.split(line)) for line in args.server]
    except ValueError as exc:
        parse.error(f"--server: {exc} (quote the whole command once, e.g. --server 'node server.js')")
    if any(not command for command in commands):
        parse.error("--server needs a command, e.g. --server 'python -m servers.convert'")
    given = {}
    for item in args.env:
        key, sep, value = item.partition("=")
        if not key:
            parse.error(f"--env {item!r}: give KEY=VALUE, or KEY to pass the caller's value")
        given[key] = value if sep else os.environ.get(key, "")
    environment, withheld = server_environment(os.environ, given)
    headers = {}
    for item in args.header:
        name, sep, value = item.partition(":")
        if not sep or not name.strip():
            parse.error(f"--header {item!r}: give 'NAME: VALUE', e.g. 'Authorization: Bearer TOKEN'")
        headers[name.strip()] = value.strip()
    if args.bearer_token_env:
        token = os.environ.get(args.bearer_token_env, "").strip()
        if not token:
            parse.error(f"--bearer-token-env {args.bearer_token_env}: that variable is not set or is empty")
        headers["Authorization"] = f"Bearer {token}"
    fresh_home = "HOME" not in given
    targets = [
        Target(command=interpreter_command(list(c)), env=environment, fresh_home=fresh_home) for c in commands
    ] + [Target(url=url, headers=headers) for url in args.url]
    if not targets:
        parse.error("name a server: --server 'COMMAND', a command after --, or --url URL")
    permission = Permission(side_effects=args.allow_side_effects, network=args.allow_network)
    try:
        requests = [request for path in args.requests for request in read_requests(path)] or None
        audit = anyio.run(_audit, targets, requests, not args.no_probe, args.timeout, permission)
    except (Unreachable, RequestFileError) as exc:
        print(f"mcp-surface-audit: {printable(str(exc))}", file=sys.stderr)
        return 2
    audit.notes.extend(_notes(permission, withheld, bool(commands), fresh_home))
    if args.json:
        print(to_json(audit))
    else:
        # Piped into a file, lines are left unwrapped so the Markdown tables paste into a document as they are.
        render(audit, Console() if sys.stdout.isatty() else Console(width=1000))
    low = [s for s in audit.servers if args.fail_under is not None and s.score.value < args.fail_under]
    if low:
        names = ", ".join(f"{printable(s.label)} scored {s.score.value:.1f}" for s in low)
        print(f"mcp-surface-audit: {names}, under --fail-under {args.fail_under:g}.", file=sys.stderr)
        return 1
    return 0


def _notes(permission: Permission, withheld: list[str], started: bool, fresh_home: bool) -> list[str]:
    notes = []
    if permission.side_effects:
        notes.append(
            "WARNING: --allow-side-effects: every tool was called with valid-looking arguments, so tools "
            "that write, delete or send may have done so."
        )
    elif permission.network:
        notes.append("--allow-network: read-only tools that may reach the network were called.")
    if withheld and started:
        notes.append(
            f"Withheld from the servers' environment as credentials: {', '.join(withheld)} "
            "(pass one with --env NAME)."
        )
    if fresh_home and started:
        notes.append(
            "The servers ran with a fresh home folder of the audit's, removed after (--env HOME gives them "
            "yours, for a server that reads its settings there)."
        )
    return notes


async def _audit(
    targets: list[Target], requests: list[Request] | None, probe: bool, timeout: float, permission: Permission
) -> Audit:
    readings = await read_all(targets, probe=probe, timeout=timeout, permission=permission)
    return audit_readings(readings, requests)
