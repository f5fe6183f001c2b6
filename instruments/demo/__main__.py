"""`python -m instruments.demo [--replay]`: the tutorial's worked example through the real servers."""

import argparse
import sys

from instruments.demo import main

parser = argparse.ArgumentParser(
    prog="python -m instruments.demo", description="The tutorial's worked example through the real servers."
)
parser.add_argument(
    "--replay", action="store_true", help="use recorded Open-Meteo responses without trying the live service"
)
sys.exit(main(replay=parser.parse_args().replay))
