"""`make new-server NAME=...`, `python -m instruments.new NAME`; the work is in generator.py."""

from typing import NoReturn

from instruments.console import run_command, signals_end_at_once


def main() -> NoReturn:
    with signals_end_at_once():  # the imports take about a second: Ctrl-C meanwhile ends it quietly
        from instruments.new.generator import main as generate
    run_command(generate)


if __name__ == "__main__":
    main()
