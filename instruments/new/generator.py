"""Create servers/NAME/ and its contract test from the files in template/.

The template files are the new server as it will be, with `${name}` wherever its name goes; they
end in .tmpl so that ruff and mypy leave them alone until they are filled in. The server they make
passes its own contract test and the audit as generated, so a copier starts from green.
"""

from __future__ import annotations

import argparse
import keyword
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from string import Template

TEMPLATE = Path(__file__).parent / "template"

# Each template file and where it goes under the target root.
FILES = {
    "__init__.py.tmpl": "servers/{name}/__init__.py",
    "__main__.py.tmpl": "servers/{name}/__main__.py",
    "server.py.tmpl": "servers/{name}/server.py",
    "requests.jsonl.tmpl": "servers/{name}/requests.jsonl",
    "test_contract.py.tmpl": "tests/servers/test_{name}_contract.py",
}

# What a copier takes along: said once here, written into the new server's docstring, and checked
# against docs/templates.md by the generator's tests.
COPY = (
    "Copy servers/{name}/ and servers/surface/ (and tests/servers/test_{name}_contract.py) into your project."
)

# One word, because surface.py takes a tool's namespace to be the text before its first underscore.
# At most 20 characters: the namespace is paid in every tool name, and the generated code must stay
# as ruff formats it.
SERVER_NAME = re.compile(r"[a-z][a-z0-9]{0,19}")


def name_problem(name: str, root: Path) -> str | None:
    """Why `name` cannot be a new server under `root`, in one line; None when it can."""
    if not SERVER_NAME.fullmatch(name):
        return (
            f"{name!r} cannot be a server name: use one lowercase word of letters and digits that starts "
            "with a letter, at most 20 characters (e.g. notes), since it is also the tools' namespace."
        )
    if keyword.iskeyword(name):
        return f"{name!r} is a Python keyword, so servers.{name} could not be imported: choose another name."
    targets = [f"servers/{name}", f"servers/{name}.py", *(path.format(name=name) for path in FILES.values())]
    taken = next((path for path in targets if (root / path).exists()), None)
    if taken:
        return f"{taken} already exists: choose another name."
    return None


def first_party_imports(name: str) -> str:
    """The contract test's imports of the suite, in the order ruff sorts them for this name."""
    return "\n".join(
        sorted(
            [
                f"from servers.{name}.server import mcp",
                "from servers.surface.testing import error_text, stdio_server",
            ]
        )
    )


def create_server(name: str, root: Path) -> list[Path]:
    """Write the new server's files under `root` and return their paths, relative to `root`."""
    created = []
    for source, target in FILES.items():
        path = Path(target.format(name=name))
        text = Template((TEMPLATE / source).read_text(encoding="utf-8")).substitute(
            name=name, first_party_imports=first_party_imports(name), copy=COPY.format(name=name)
        )
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")
        created.append(path)
    return created


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m instruments.new",
        description="Create servers/NAME/ with one example tool, its contract test and audit requests.",
    )
    parser.add_argument(
        "name", nargs="?", help="one lowercase word, e.g. notes: the package name and tool namespace"
    )
    parser.add_argument(
        "--root",
        type=Path,
        default=Path(),
        help="the repository to create it in (default: the current folder)",
    )
    arguments = parser.parse_args(argv)
    name, root = arguments.name, arguments.root
    if not name:
        parser.error(
            "give the new server a name: make new-server NAME=yourname (or python -m instruments.new yourname)"
        )
    if not (root / "servers" / "surface" / "__init__.py").is_file():
        sys.exit(f"error: {root} has no servers/surface/; --root must be a copy of this repository.")
    problem = name_problem(name, root)
    if problem:
        sys.exit(f"error: {problem}")
    created = create_server(name, root)
    print(f"Created the {name} server:")
    print("\n".join(f"  {path}" for path in created))
    print(
        "Next: check it passes as generated, then make the example tool your own (docs/templates.md):\n"
        f"  .venv/bin/python -m pytest -q tests/servers/test_{name}_contract.py\n"
        f"  .venv/bin/python -m instruments.audit --requests servers/{name}/requests.jsonl"
        f" -- .venv/bin/python -m servers.{name}\n"
        f"{COPY.format(name=name)}"
    )
