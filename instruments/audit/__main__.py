"""`mcp-surface-audit` and `python -m instruments.audit`; the options are in cli.py."""

import sys
from typing import NoReturn

from instruments.console import run_command, signals_end_at_once


def main() -> NoReturn:
    with signals_end_at_once():  # the imports take about a second: Ctrl-C meanwhile ends it quietly
        from instruments.audit.cli import audit_command
    run_command(lambda: audit_command(sys.argv[1:]))


if __name__ == "__main__":
    main()
