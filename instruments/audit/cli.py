"""The command line: `python -m instruments.audit [options] -- COMMAND [ARGS...] [-- COMMAND [ARGS...]]...`.

Exit codes: 0 audited; 1 a server scored under --fail-under; 2 a server could not be started or
reached, a request file could not be read, or the command line was wrong.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

import anyio
from rich.console import Console

from instruments.audit.connect import Target, Unreachable
from instruments.audit.findings import Audit
from instruments.audit.report import render, to_json
from instruments.audit.run import audit_readings, read_all
from instruments.audit.selection import Request, RequestFileError, read_requests

USAGE = "%(prog)s [options] [--url URL] -- COMMAND [ARGS...] [-- COMMAND [ARGS...]]..."
EPILOG = (
    "Each COMMAND after a -- starts one stdio server; servers named together are audited together, "
    "as a model would see their tools. Example: %(prog)s --requests servers/convert/requests.jsonl "
    "-- python -m servers.convert"
)


def parser() -> argparse.ArgumentParser:
    parse = argparse.ArgumentParser(
        prog="mcp-surface-audit",
        usage=USAGE,
        description="Score MCP servers' tool surfaces the way a model experiences them.",
        epilog=EPILOG,
    )
    parse.add_argument(
        "--url", action="append", default=[], help="a Streamable HTTP server to audit (repeatable)"
    )
    parse.add_argument(
        "--requests",
        action="append",
        type=Path,
        default=[],
        metavar="FILE",
        help='JSON lines {"text": ..., "tool": name or null} for the selection proxy (repeatable)',
    )
    parse.add_argument(
        "--no-probe", action="store_true", help="skip the bad-argument calls (tools with side effects)"
    )
    parse.add_argument("--json", action="store_true", help="print the findings as JSON instead of tables")
    parse.add_argument(
        "--fail-under", type=float, metavar="SCORE", help="exit 1 if a server scores under SCORE"
    )
    parse.add_argument(
        "--timeout",
        type=float,
        default=20.0,
        metavar="SECONDS",
        help="limit for start-up and each call (default 20)",
    )
    return parse


def split_commands(argv: Sequence[str]) -> tuple[list[str], list[tuple[str, ...]]]:
    """Options before the first `--`; after it, one command per `--`-separated group."""
    if "--" not in argv:
        return list(argv), []
    cut = list(argv).index("--")
    commands: list[tuple[str, ...]] = [()]
    for word in argv[cut + 1 :]:
        if word == "--":
            commands.append(())
        else:
            commands[-1] += (word,)
    return list(argv[:cut]), [command for command in commands if command]


def main(argv: Sequence[str] | None = None) -> None:
    options, commands = split_commands(sys.argv[1:] if argv is None else argv)
    parse = parser()
    args = parse.parse_args(options)
    targets = [Target(command=command) for command in commands] + [Target(url=url) for url in args.url]
    if not targets:
        parse.error("name a server: a command after --, or --url URL")
    try:
        requests = [request for path in args.requests for request in read_requests(path)] or None
        audit = anyio.run(_audit, targets, requests, not args.no_probe, args.timeout)
    except (Unreachable, RequestFileError) as exc:
        print(f"mcp-surface-audit: {exc}", file=sys.stderr)
        sys.exit(2)
    if args.json:
        print(to_json(audit))
    else:
        # Piped into a file, lines are left unwrapped so the Markdown tables paste into a document as they are.
        render(audit, Console() if sys.stdout.isatty() else Console(width=1000))
    low = [s for s in audit.servers if args.fail_under is not None and s.score.value < args.fail_under]
    if low:
        names = ", ".join(f"{s.label} scored {s.score.value:.1f}" for s in low)
        print(f"mcp-surface-audit: {names}, under --fail-under {args.fail_under:g}.", file=sys.stderr)
        sys.exit(1)


async def _audit(targets: list[Target], requests: list[Request] | None, probe: bool, timeout: float) -> Audit:
    readings = await read_all(targets, probe=probe, timeout=timeout)
    return audit_readings(readings, requests)
