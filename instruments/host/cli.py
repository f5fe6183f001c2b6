"""`mcp-host run | check`: try servers with a model, or check tool-use transcripts."""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO

import anyio
from mcp import StdioServerParameters
from mcp_types import Tool

from instruments.host import checker
from instruments.host.formats import WIRE_NAMES, strict_refusal
from instruments.host.loop import SYSTEM_PROMPT, Limits, Turn, run_turn
from instruments.host.models import Model, ModelUnavailable, ScriptedModel, model_from_spec, quote_results
from instruments.host.report import print_outcome, transcript_printer
from instruments.host.toolbox import HostError, connect, quoted, server_log
from instruments.host.transcript import ToolCall

RUN_EXAMPLE = (
    'mcp-host run --server "python -m servers.convert" '
    '--call \'units_convert {"value": 12, "from_unit": "mi", "to_unit": "km"}\' "How far is 12 miles in km?"'
)
# The loopback fake Open-Meteo the demo uses, started as a program so that the host imports no server.
REPLAY = ("-m", "instruments.demo.replay")
REPLAY_VARIABLES = 2  # it prints the geocoding and the forecast URL, one NAME=value line each, then serves


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    arguments = parser.parse_args(argv)
    try:
        if arguments.command == "check":
            return checker.main(arguments.files)
        if arguments.call and arguments.model != "scripted":
            parser.error("--call scripts the scripted model; a real model chooses its own calls")
        model = (
            scripted_model(parser, arguments.call)
            if arguments.model == "scripted"
            else model_from_spec(arguments.model)
        )
        limits = Limits(max_requests=arguments.max_requests, token_budget=arguments.token_budget)
        with server_log(arguments.server_log) as log, replayed_weather(arguments.replay, log) as replay:
            environment = {**os.environ, **replay, **dict(arguments.env)}
            servers = [server_command(command, environment) for command in arguments.server]
            return anyio.run(run, model, servers, arguments.question, limits, log)
    except (HostError, ModelUnavailable) as problem:
        print(f"error: {problem}", file=sys.stderr)
        return 1


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="mcp-host", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)

    run_command = commands.add_parser(
        "run",
        help="ask a model a question with the tools of one or more MCP servers",
        description="Run the host loop once and print the transcript, the token bill and the checker's verdict. "
        f"Example: {RUN_EXAMPLE}",
    )
    run_command.add_argument("question", help="what the person asks")
    run_command.add_argument(
        "--server",
        action="append",
        required=True,
        metavar="COMMAND",
        help='a stdio server command, e.g. "python -m servers.weather"; repeat for more servers. '
        "A leading python means this interpreter. Servers get this command's environment.",
    )
    run_command.add_argument(
        "--env",
        action="append",
        default=[],
        type=variable,
        metavar="KEY=VALUE",
        help="an environment variable for the servers, e.g. MCP_MAX_RESULT_CHARS=2000; repeat for more",
    )
    run_command.add_argument(
        "--replay",
        action="store_true",
        help="serve the weather server recorded Open-Meteo responses from 127.0.0.1 (no network needed): "
        "the recording nearest the place asked for, with its own past dates and units",
    )
    run_command.add_argument(
        "--server-log",
        type=Path,
        metavar="FILE",
        help="write the servers' error output (their logs) to FILE; by default it is kept only in memory "
        "and its last line quoted if a server fails to start",
    )
    run_command.add_argument(
        "--model",
        default="scripted",
        help="scripted (default), anthropic:MODEL or openai:MODEL; a real model needs its API key in the environment",
    )
    run_command.add_argument(
        "--call",
        action="append",
        default=[],
        metavar="'TOOL JSON'",
        help="for the scripted model: a tool call it makes, e.g. 'units_convert {\"value\": 12, ...}'; "
        "repeat to ask for several in one reply",
    )
    run_command.add_argument(
        "--max-requests",
        type=positive,
        default=Limits.max_requests,
        help="iteration cap: most model requests",
    )
    run_command.add_argument(
        "--token-budget", type=positive, default=Limits.token_budget, help="most tokens all requests may read"
    )

    check_command = commands.add_parser(
        "check",
        help="check tool-use transcripts (Anthropic or OpenAI format)",
        description="Exit 0 when every file is well formed, 1 on defects, 2 when a file is unreadable.",
    )
    check_command.add_argument("files", nargs="+", metavar="FILE")
    return parser


def positive(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, got {text!r}")
    return int(text)


def scripted_model(parser: argparse.ArgumentParser, calls: Sequence[str]) -> Model:
    """A scripted model that asks for the given calls in one reply, then quotes what came back."""
    scripted = []
    for number, text in enumerate(calls, 1):
        name, _, arguments = text.strip().partition(" ")
        try:
            parsed = json.loads(arguments or "{}")
        except json.JSONDecodeError:
            parsed = None
        if not name or not isinstance(parsed, dict):
            parser.error(
                f"--call takes a tool name and a JSON object, e.g. 'units_convert {{\"value\": 12}}'; got {text!r}"
            )
        scripted.append(ToolCall.of(f"toolu_{number:02d}", name, parsed))
    return ScriptedModel([scripted] if scripted else [], quote_results)


def variable(text: str) -> tuple[str, str]:
    key, equals, value = text.partition("=")
    if not equals or not key or key != key.strip():
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, e.g. MCP_MAX_RESULT_CHARS=2000; got {text!r}")
    return key, value


def server_command(command: str, environment: Mapping[str, str]) -> StdioServerParameters:
    try:
        words = shlex.split(command)
    except ValueError as error:  # an unclosed quote
        raise HostError(f"The --server command {command!r} cannot be read: {error}.") from None
    if not words:
        raise HostError('A --server command is empty; give one such as "python -m servers.convert".')
    if words[0] in ("python", "python3"):
        words[0] = sys.executable  # the interpreter this host runs in, with this project installed
    # The whole environment, not the SDK's short allow-list, so that settings such as
    # OPEN_METEO_FORECAST_URL or MCP_MAX_RESULT_CHARS reach the server as they would from a shell.
    return StdioServerParameters(command=words[0], args=words[1:], env=dict(environment))


@contextmanager
def replayed_weather(wanted: bool, log: TextIO) -> Iterator[dict[str, str]]:
    """With `wanted`, the variables that point the weather server at a replay running meanwhile; else none."""
    if not wanted:
        yield {}
        return
    with subprocess.Popen(
        [sys.executable, *REPLAY], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=log, text=True
    ) as replay:
        try:
            assert replay.stdout is not None  # asked for with stdout=PIPE
            lines = [replay.stdout.readline().strip() for _ in range(REPLAY_VARIABLES)]
            variables = dict(line.partition("=")[::2] for line in lines if "=" in line)
            if len(variables) < REPLAY_VARIABLES:
                raise HostError(
                    f"The weather replay ({shlex.join(REPLAY)}) stopped before serving.{quoted(log)}"
                )
            print(
                f"Weather: REPLAYED from recordings on 127.0.0.1 ({', '.join(variables)} set for the servers)."
            )
            yield variables
        finally:
            replay.terminate()


async def run(
    model: Model, servers: Sequence[StdioServerParameters], question: str, limits: Limits, log: TextIO
) -> int:
    turn, tools = await converse(model, servers, question, limits, log)
    print_outcome(turn, model.wire, tools)
    return 0 if turn.stop.reason == "answered" else 1


async def converse(
    model: Model, servers: Sequence[StdioServerParameters], question: str, limits: Limits, log: TextIO
) -> tuple[Turn, list[Tool]]:
    """Connect, show what the model is offered, and print the transcript as the turn runs."""
    async with connect(servers, errlog=log) as toolbox:
        print(f"Model: {model.name}; transcript in {WIRE_NAMES[model.wire]} format")
        if model.wire == "openai":
            for tool in toolbox.tools:
                refusal = strict_refusal(tool)
                if refusal:
                    print(f"OpenAI strict mode is off for {tool.name}: {refusal}.")
        printer = transcript_printer(model.wire, SYSTEM_PROMPT, toolbox.tools)
        turn = await run_turn(question, model=model, toolbox=toolbox, limits=limits, on_message=printer)
        return turn, toolbox.tools
