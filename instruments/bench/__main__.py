"""`make bench`, `python -m instruments.bench`; the run is in run.py."""

from typing import NoReturn

from instruments.console import run_command, signals_end_at_once


def main() -> NoReturn:
    with signals_end_at_once():  # the imports take about a second: Ctrl-C meanwhile ends it quietly
        from instruments.bench.run import main as bench
    run_command(bench)


if __name__ == "__main__":
    main()
