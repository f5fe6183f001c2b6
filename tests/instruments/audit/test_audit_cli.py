"""The audit's command line, end to end: real server processes, exit codes, and messages a person can act on."""

from __future__ import annotations

import json
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from instruments.audit.cli import split_commands
from tests.support import free_port, run_audit, serving_over_http

REPO = Path(__file__).resolve().parents[3]
OURS = ("convert", "basics", "weather")

SLOPPY_SERVER = textwrap.dedent(
    """
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("sloppy")

    @server.tool(description="Searches.")
    def search(query: str, limit: int = 10) -> str:
        return query * limit

    server.run("stdio")
    """
)


def test_our_three_servers_audited_together_score_perfectly() -> None:
    requests = [arg for name in OURS for arg in ("--requests", f"servers/{name}/requests.jsonl")]
    commands = [arg for name in OURS for arg in ("--server", f"python -m servers.{name}")]
    done = run_audit("--json", "--fail-under", "100", *requests, *commands)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert [(s["label"], s["score"]["value"]) for s in report["servers"]] == [(name, 100.0) for name in OURS]
    assert report["token_method"] == "cl100k_base"
    assert all(check["status"] == "pass" for check in report["combined_checks"])
    # What each request carries is every definition once, plus a token or so of list punctuation each.
    tools = [tool for server in report["servers"] for tool in server["tools"]]
    definitions = sum(tool["cost"]["anthropic"] for tool in tools)
    assert definitions <= report["combined_cost"]["anthropic"] <= definitions + len(tools) + 1
    assert report["selection"]["requests_needing_a_tool"] + report["selection"][
        "requests_needing_none"
    ] == len(
        [line for name in OURS for line in (REPO / f"servers/{name}/requests.jsonl").read_text().splitlines()]
    )


def test_a_flawed_server_falls_under_fail_under_with_each_finding_explained(tmp_path: Path) -> None:
    script = tmp_path / "sloppy.py"
    script.write_text(SLOPPY_SERVER)
    done = run_audit("--fail-under", "90", "--", sys.executable, str(script))
    assert done.returncode == 1
    assert done.stderr.startswith("mcp-surface-audit: sloppy scored ")
    assert done.stderr.rstrip().endswith("under --fail-under 90.")
    # The roll-up says each failing check once, with why it matters and the fix; then per-tool lines.
    assert "| says when to use it " in done.stdout
    assert done.stdout.count("says when to use it: Without a when-to-use sentence") == 1
    assert "  ✗ says when to use it: no sentence says when to use it" in done.stdout


def test_a_command_that_does_not_exist_exits_2_saying_so() -> None:
    done = run_audit("--", "no-such-mcp-server-command")
    assert done.returncode == 2
    assert done.stderr == (
        "mcp-surface-audit: Could not start no-such-mcp-server-command: there is no such command. "
        "Check that the command runs on its own and speaks MCP over stdio (it runs as given, without a shell).\n"
    )


def test_a_server_that_exits_at_start_exits_2_quoting_its_error_output() -> None:
    done = run_audit("--", sys.executable, "-c", "import sys; sys.exit('MY_API_KEY is not set')")
    assert done.returncode == 2
    assert "closed the connection before completing the MCP handshake" in done.stderr
    assert "Its last error output: MY_API_KEY is not set." in done.stderr
    assert (
        "fresh home folder of the audit's: if it needs settings or downloads kept in yours, pass --env HOME"
        in (done.stderr)
    )
    assert "Traceback" not in done.stderr


def test_an_unreachable_url_exits_2_saying_what_to_check() -> None:
    done = run_audit("--url", f"http://127.0.0.1:{free_port()}/mcp")
    assert done.returncode == 2
    assert "Could not reach" in done.stderr
    assert "Check that the server is running and that the URL includes its MCP path" in done.stderr


@pytest.fixture
def convert_over_http() -> Iterator[str]:
    with serving_over_http("servers.convert") as url:
        yield url


def test_a_streamable_http_server_is_audited_by_url(convert_over_http: str) -> None:
    done = run_audit("--json", "--url", convert_over_http)
    assert done.returncode == 0, done.stderr
    (server,) = json.loads(done.stdout)["servers"]
    assert (server["label"], server["target"], server["score"]["value"]) == (
        "convert",
        convert_over_http,
        100.0,
    )


def test_naming_no_server_is_a_usage_error() -> None:
    done = run_audit("--json")
    assert done.returncode == 2
    assert "name a server: --server 'COMMAND', a command after --, or --url URL" in done.stderr


def test_a_command_after_double_dash_keeps_its_own_double_dashes() -> None:
    options, commands = split_commands(["--json", "--", "node", "--", "server.js"])
    assert options == ["--json"]
    assert commands == [("node", "--", "server.js")]
