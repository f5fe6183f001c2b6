"""The commands in README.md and docs/*.md run verbatim in a clone after `make install`, and every relative
link resolves.

Each ```sh block runs in the repository root with bash (`set -euo pipefail`), the virtual environment
*not* on PATH, as a person's fresh shell would have it. A block that cannot run here (it needs the
network, an API key or another program; it serves until stopped; it writes into the repository) is
preceded by `<!-- not run: REASON -->`, and the test insists that every block is one or the other.
In ```text blocks, a line `$ COMMAND` is run too and what follows it, up to the next `$` line or the
end of the block, must be exactly its output.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

REPOSITORY = Path(__file__).resolve().parents[1]
PAGES = [REPOSITORY / "README.md", *sorted((REPOSITORY / "docs").glob("*.md"))]
FENCE = re.compile(r"^( *)```(\w*)\n(.*?)^\1```$", re.MULTILINE | re.DOTALL)
NOT_RUN = re.compile(r"<!-- not run: (?P<reason>[^>]+?) -->\s*$")
SHELL = {"sh", "bash", "shell"}
PATIENCE_SECONDS = 600  # a command's own time, on a loaded machine; not a bound on its speed


@dataclass(frozen=True)
class Block:
    page: Path
    line: int
    language: str
    text: str
    not_run: str | None  # the reason given, or None when the block runs

    def __str__(self) -> str:
        return f"{self.page.relative_to(REPOSITORY)}:{self.line}"


def blocks(page: Path) -> list[Block]:
    text = page.read_text(encoding="utf-8")
    found = []
    for fence in FENCE.finditer(text):
        before = text[: fence.start()].rstrip("\n").rsplit("\n", 1)[-1]
        marked = NOT_RUN.search(before)
        body = "\n".join(line.removeprefix(fence.group(1)) for line in fence.group(3).splitlines())
        line = text.count("\n", 0, fence.start()) + 1
        found.append(Block(page, line, fence.group(2), body, marked["reason"] if marked else None))
    return found


ALL = [block for page in PAGES for block in blocks(page)]
SHELL_BLOCKS = [block for block in ALL if block.language in SHELL]
TRANSCRIPTS = [block for block in ALL if block.language == "text" and block.text.startswith("$ ")]


def fresh_shell() -> dict[str, str]:
    """This environment as a new terminal has it: no virtual environment active."""
    venv = str(Path(sys.executable).parent)
    environment = {
        key: value for key, value in os.environ.items() if key not in ("VIRTUAL_ENV", "PYTHONPATH")
    }
    environment["PATH"] = os.pathsep.join(
        part for part in environment.get("PATH", "").split(os.pathsep) if part != venv
    )
    return environment


def run(command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-euo", "pipefail", "-c", command],
        cwd=REPOSITORY,
        env=fresh_shell(),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=PATIENCE_SECONDS,
        check=False,
    )


def test_every_block_is_run_or_says_why_not() -> None:
    assert len(SHELL_BLOCKS) >= 10, "too few shell blocks found: the fence pattern is wrong"
    marked = [block for block in SHELL_BLOCKS if block.not_run]
    assert all(len(block.not_run or "") >= 10 for block in marked), "each marker gives its reason"
    unlabelled = [str(block) for block in ALL if block.language == ""]
    assert not unlabelled, f"give these blocks a language (sh, text, json ...): {unlabelled}"


@pytest.mark.slow  # each block starts real servers: about 2 minutes in all
@pytest.mark.parametrize("block", [b for b in SHELL_BLOCKS if b.not_run is None], ids=str)
def test_shell_block_runs_verbatim(block: Block) -> None:
    done = run(block.text)
    assert done.returncode == 0, (
        f"{block} failed:\n{block.text}\n--- stdout\n{done.stdout}\n--- stderr\n{done.stderr}"
    )
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("block", TRANSCRIPTS, ids=str)
def test_shown_output_is_what_the_command_prints(block: Block) -> None:
    assert block.not_run is None, f"{block}: a transcript is run, not marked"
    for shown in re.split(r"^(?=\$ )", block.text, flags=re.MULTILINE):
        if not shown.strip():
            continue
        command, _, expected = shown.partition("\n")
        done = run(command.removeprefix("$ "))
        assert done.stdout.rstrip("\n") == expected.rstrip("\n"), f"{block}: {command}\n{done.stderr}"


LINK = re.compile(r"\]\((?!https?:|mailto:|#)([^)#\s]+)(?:#[^)]*)?\)")


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(REPOSITORY)))
def test_relative_links_resolve(page: Path) -> None:
    broken = [
        target
        for target in LINK.findall(page.read_text(encoding="utf-8"))
        if not (page.parent / target).exists()
    ]
    assert not broken, f"{page.relative_to(REPOSITORY)} links to missing files: {broken}"
