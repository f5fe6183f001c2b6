"""Ctrl-C while a command's modules still import (its first second) ends it quietly: 130, no traceback.

Each command runs in a child whose import system sends the signal itself the moment a given heavy
module is first imported, so the interruption lands at a known point of the import on every run:
plainly, or inside a class being made, where Python 3.11 turns an exception raised into another one.
A console script is run as its installed wrapper runs it: import the module pyproject.toml names,
then call the function.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

REPOSITORY = Path(__file__).resolve().parents[1]
SCRIPTS = tomllib.loads((REPOSITORY / "pyproject.toml").read_text(encoding="utf-8"))["project"]["scripts"]

# Each `python -m` entry, and a module it imports at start (not lazily) that Python itself never loads.
HEAVY = {
    "servers.convert": "mcp",
    "servers.basics": "psutil",
    "servers.weather": "mcp",
    "instruments.audit": "rich",
    "instruments.audit.corpus": "anyio",
    "instruments.bench": "mcp",
    "instruments.demo": "mcp",
    "instruments.host": "mcp",
    "instruments.new": "argparse",
    "instruments.tooldocs": "mcp",
}
EXIT_CODES = {signal.SIGINT: 130, signal.SIGTERM: 143}

SIGNAL_ON_IMPORT = """
import signal, sys

# As when started from a terminal: a background job (CI, nohup) starts with Ctrl-C ignored.
signal.signal(signal.SIGINT, signal.default_int_handler)

class SendsTheSignal:
    def __set_name__(self, owner, name):
        signal.raise_signal({signal})

class SignalOnImport:
    sent = False

    def find_spec(self, name, path=None, target=None):
        if name == {heavy!r} and not self.sent:
            self.sent = True
            if {in_a_class}:
                type("Model", (), {{"field": SendsTheSignal()}})
            else:
                signal.raise_signal({signal})
        return None

sys.meta_path.insert(0, SignalOnImport())
"""
RUN_MODULE = """
import runpy
sys.argv = [{entry!r}, *{arguments!r}]
runpy.run_module({entry!r}, run_name="__main__", alter_sys=True)
"""
RUN_SCRIPT = """
import importlib
sys.argv = [{script!r}, *{arguments!r}]
sys.exit(getattr(importlib.import_module({module!r}), {function!r})())
"""


def entry_of(module: str) -> str:
    """The `python -m` entry a console script's module belongs to."""
    return next(entry for entry in HEAVY if module == entry or module.startswith(f"{entry}."))


def run(code: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def prelude(heavy: str, sent: signal.Signals | None, in_a_class: bool) -> str:
    if sent is None:
        return "import sys\n"
    return SIGNAL_ON_IMPORT.format(heavy=heavy, signal=int(sent), in_a_class=in_a_class)


def module_code(
    entry: str, arguments: list[str], sent: signal.Signals | None, in_a_class: bool = False
) -> str:
    return prelude(HEAVY[entry], sent, in_a_class) + RUN_MODULE.format(entry=entry, arguments=arguments)


def script_code(
    script: str, arguments: list[str], sent: signal.Signals | None, in_a_class: bool = False
) -> str:
    module, _, function = SCRIPTS[script].partition(":")
    run = RUN_SCRIPT.format(script=script, module=module, function=function, arguments=arguments)
    return prelude(HEAVY[entry_of(module)], sent, in_a_class) + run


# The signal lands as the heavy module starts loading, or inside a class being made there. The
# instruments end on SIGTERM with 143 too; a server killed by SIGTERM while it imports ends by the
# signal itself, without a traceback, as Python's default does.
def cases(entry: str) -> list[tuple[signal.Signals, bool]]:
    sigterm = [(signal.SIGTERM, False)] if entry.startswith("instruments.") else []
    return [(signal.SIGINT, False), (signal.SIGINT, True), *sigterm]


MODULE_CASES = [(entry, sent, in_a_class) for entry in HEAVY for sent, in_a_class in cases(entry)]
SCRIPT_CASES = [
    (script, sent, in_a_class)
    for script, target in SCRIPTS.items()
    for sent, in_a_class in cases(entry_of(target.partition(":")[0]))
]


def case_id(value: object) -> str:
    if isinstance(value, bool):
        return "in-a-class" if value else "at-import"
    return getattr(value, "name", str(value))


@pytest.mark.parametrize(("entry", "sent", "in_a_class"), MODULE_CASES, ids=case_id)
def test_python_m_entry_ends_quietly_when_signalled_while_importing(
    tmp_path: Path, entry: str, sent: signal.Signals, in_a_class: bool
) -> None:
    done = run(module_code(entry, [], sent, in_a_class), tmp_path)
    assert (done.returncode, done.stderr) == (EXIT_CODES[sent], "")


@pytest.mark.parametrize(("script", "sent", "in_a_class"), SCRIPT_CASES, ids=case_id)
def test_console_script_ends_quietly_when_signalled_while_importing(
    tmp_path: Path, script: str, sent: signal.Signals, in_a_class: bool
) -> None:
    done = run(script_code(script, [], sent, in_a_class), tmp_path)
    assert (done.returncode, done.stderr) == (EXIT_CODES[sent], "")


@pytest.mark.parametrize(
    "code",
    [module_code(entry, ["--help"], None) for entry in HEAVY]
    + [script_code(script, ["--help"], None) for script in SCRIPTS],
    ids=[*HEAVY, *SCRIPTS],
)
def test_each_entry_run_this_way_without_a_signal_answers_help(tmp_path: Path, code: str) -> None:
    done = run(code, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: ")
