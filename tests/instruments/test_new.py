"""`python -m instruments.new NAME`: a new server that passes its own contract test and lint as generated."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from instruments.new.generator import COPY, main

REPOSITORY = Path(__file__).resolve().parents[2]

# The checks `make lint` runs, on what a new server adds.
LINT = [
    ("ruff", "check", "servers", "tests"),
    ("ruff", "format", "--check", "servers", "tests"),
    ("mypy", "servers"),
    ("mypy", "--strict", "--allow-untyped-defs", "--allow-incomplete-defs", "tests"),
]


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A copy of the project's settings and the surface package to generate into; the real tree is never touched."""
    shutil.copy(REPOSITORY / "pyproject.toml", tmp_path / "pyproject.toml")
    shutil.copytree(REPOSITORY / "servers" / "surface", tmp_path / "servers" / "surface")
    return tmp_path


def run(directory: Path, *command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *command], cwd=directory, capture_output=True, text=True, timeout=120
    )


@pytest.mark.slow
def test_generated_server_passes_its_tests_and_lint(root: Path) -> None:
    main(["notes", "--root", str(root)])
    assert sorted(str(p.relative_to(root)) for p in (root / "servers" / "notes").iterdir()) == [
        "servers/notes/__init__.py",
        "servers/notes/__main__.py",
        "servers/notes/requests.jsonl",
        "servers/notes/server.py",
    ]
    tests = run(root, "pytest", "-q", "-p", "no:cacheprovider", "tests/servers/test_notes_contract.py")
    assert tests.returncode == 0, tests.stdout + tests.stderr
    for command in LINT:
        checked = run(root, *command)
        assert checked.returncode == 0, checked.stdout + checked.stderr


@pytest.mark.slow
def test_audit_gives_the_generated_server_a_perfect_score(root: Path) -> None:
    main(["notes", "--root", str(root)])
    requests = ("--requests", "servers/notes/requests.jsonl")
    audit = run(
        root,
        "instruments.audit",
        "--json",
        "--fail-under",
        "100",
        *requests,
        "--",
        sys.executable,
        "-m",
        "servers.notes",
    )
    assert audit.returncode == 0, audit.stdout + audit.stderr
    selection = json.loads(audit.stdout)["selection"]
    assert selection["top1_correct"] == selection["requests_needing_a_tool"]
    assert any(
        cutoff["needed_calls_skipped"] == cutoff["needless_calls_made"] == 0
        for cutoff in selection["cutoffs"]
    )


def test_the_template_and_the_docs_name_the_same_files_to_copy(root: Path) -> None:
    main(["notes", "--root", str(root)])
    line = COPY.format(name="notes")
    assert line in (root / "servers" / "notes" / "server.py").read_text()
    assert line in (REPOSITORY / "docs" / "templates.md").read_text()
    for path in ("servers/notes/", "servers/surface/", "tests/servers/test_notes_contract.py"):
        assert (root / path).exists(), f"{path} is in the list to copy but was not generated"


def test_a_missing_name_says_how_to_give_one(capsys: pytest.CaptureFixture[str], root: Path) -> None:
    with pytest.raises(SystemExit) as refusal:
        main(["--root", str(root)])
    assert refusal.value.code == 2
    assert "give the new server a name: make new-server NAME=yourname" in capsys.readouterr().err


def test_longest_allowed_name_still_formats_cleanly(root: Path) -> None:
    main(["a" * 20, "--root", str(root)])
    checked = run(root, "ruff", "format", "--check", ".")
    assert checked.returncode == 0, checked.stdout


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("Notes", "'Notes' cannot be a server name: use one lowercase word"),
        ("my_notes", "'my_notes' cannot be a server name"),
        ("my-notes", "'my-notes' cannot be a server name"),
        ("2fa", "'2fa' cannot be a server name"),
        ("a" * 21, f"'{'a' * 21}' cannot be a server name"),
        ("class", "'class' is a Python keyword"),
        ("surface", "servers/surface already exists: choose another name."),
    ],
)
def test_unusable_names_are_refused_without_writing(root: Path, name: str, message: str) -> None:
    before = sorted(root.rglob("*"))
    with pytest.raises(SystemExit) as refusal:
        main([name, "--root", str(root)])
    assert str(refusal.value.code).startswith(f"error: {message}")
    assert sorted(root.rglob("*")) == before


def test_an_existing_server_is_never_overwritten(root: Path) -> None:
    main(["notes", "--root", str(root)])
    server = root / "servers" / "notes" / "server.py"
    server.write_text("# my own work\n")
    refused = run(REPOSITORY, "instruments.new", "notes", "--root", str(root))
    assert refused.returncode != 0
    assert refused.stderr == "error: servers/notes already exists: choose another name.\n"
    assert server.read_text() == "# my own work\n"


def test_root_must_be_a_copy_of_the_suite(tmp_path: Path) -> None:
    with pytest.raises(SystemExit) as refusal:
        main(["notes", "--root", str(tmp_path)])
    assert "--root must be a copy of this repository" in str(refusal.value.code)
    assert not any(tmp_path.iterdir())
