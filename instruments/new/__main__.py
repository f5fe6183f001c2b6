from instruments.console import run_command
from instruments.new.generator import main

run_command(main)
