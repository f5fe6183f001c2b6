"""Every command of the suite answers --help, and asking for help writes nothing anywhere."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPOSITORY = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent

COMMANDS = [
    [str(BIN / "mcp-host")],
    [str(BIN / "mcp-host"), "run"],
    [str(BIN / "mcp-host"), "check"],
    [str(BIN / "mcp-surface-audit")],
    [str(BIN / "mcp-convert")],
    [str(BIN / "mcp-basics")],
    [str(BIN / "mcp-weather")],
    [sys.executable, "-m", "instruments.host"],
    [sys.executable, "-m", "instruments.audit"],
    [sys.executable, "-m", "instruments.bench"],
    [sys.executable, "-m", "instruments.demo"],
    [sys.executable, "-m", "instruments.demo.replay"],
    [sys.executable, "-m", "instruments.new"],
    [sys.executable, "-m", "instruments.tooldocs"],
]


# Not walked at all: after `make audit-corpus`, .cache alone holds some 750,000 files.
SKIPPED = {
    ".venv",
    ".git",
    ".cache",
    ".pytest_cache",
    ".mypy_cache",
    ".ruff_cache",
    ".hypothesis",
    "__pycache__",
}


def tree(root: Path) -> dict[str, int]:
    """Every file under `root` (the virtual environment and caches aside) with its modification time."""
    found: dict[str, int] = {}
    for folder, subfolders, files in os.walk(root):
        subfolders[:] = [name for name in subfolders if name not in SKIPPED]
        for name in files:
            path = Path(folder, name)
            found[str(path.relative_to(root))] = path.stat().st_mtime_ns
    return found


@pytest.mark.parametrize(
    "command",
    COMMANDS,
    ids=lambda command: " ".join([Path(command[0]).name, *command[1:]]),
)
def test_help_is_answered_and_writes_nothing(tmp_path: Path, command: list[str]) -> None:
    repository_before = tree(REPOSITORY)
    done = subprocess.run(
        [*command, "--help"], cwd=tmp_path, capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("usage: "), done.stdout
    assert done.stderr == ""
    assert not any(tmp_path.iterdir()), "help wrote into the current folder"
    assert tree(REPOSITORY) == repository_before, "help changed a file of the repository"
