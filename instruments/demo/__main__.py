"""`python -m instruments.demo [--replay] [--server-log FILE]`: the tutorial's worked example through the real servers."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from instruments.console import run_command
from instruments.demo import main as run_demo


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m instruments.demo", description="The tutorial's worked example through the real servers."
    )
    parser.add_argument(
        "--replay", action="store_true", help="use recorded Open-Meteo responses without trying the live service"
    )
    parser.add_argument(
        "--server-log",
        type=Path,
        metavar="FILE",
        help="write the servers' logs to FILE; by default they are dropped at the end",
    )
    arguments = parser.parse_args(argv)
    return run_demo(replay=arguments.replay, log_path=arguments.server_log)


if __name__ == "__main__":
    run_command(main)
