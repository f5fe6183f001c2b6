"""`mcp-host` and `python -m instruments.host`; the command line is in cli.py."""

from typing import NoReturn

from instruments.console import run_command, signals_end_at_once


def main() -> NoReturn:
    with signals_end_at_once():  # the imports take about a second: Ctrl-C meanwhile ends it quietly
        from instruments.host.cli import main as host
    run_command(host)


if __name__ == "__main__":
    main()
