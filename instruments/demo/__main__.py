"""`make demo`, `python -m instruments.demo`: the worked example in worked_example.py."""

from typing import NoReturn

from instruments.console import run_command, signals_end_at_once


def main() -> NoReturn:
    with signals_end_at_once():  # the imports take about a second: Ctrl-C meanwhile ends it quietly
        from instruments.demo.worked_example import main as demo
    run_command(demo)


if __name__ == "__main__":
    main()
