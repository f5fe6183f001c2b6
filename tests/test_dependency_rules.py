"""The layout's rules, read from the imports themselves (every import statement, at any depth).

- A server imports, of this project, only the surface package and its own folder, so that its folder
  plus servers/surface/ is a whole copy.
- The surface package imports only the standard library and the SDK (mcp and what mcp itself
  requires), so that it runs wherever the SDK does.
- The instruments import no server, except the demo and the benchmark, which exist to run them.
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Iterator
from functools import cache
from importlib import metadata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SERVERS = sorted(path.parent.name for path in (ROOT / "servers").glob("*/server.py"))
# The instruments that exist to run our servers.
RUNNERS = ("instruments.demo", "instruments.bench")


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path) -> Iterator[str]:
    """Every module the file at `path` imports, relative imports made absolute."""
    package = module_name(path) if path.name == "__init__.py" else module_name(path).rpartition(".")[0]
    return imported(path.read_text(encoding="utf-8"), package)


def imported(source: str, package: str) -> Iterator[str]:
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                yield f"{base}.{node.module}" if node.module else base
            elif node.module:
                yield node.module


def sources(folder: str) -> list[Path]:
    return sorted((ROOT / folder).rglob("*.py"))


def within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


@cache
def sdk_modules() -> frozenset[str]:
    """Top-level modules of the SDK and of every distribution it requires, all the way down."""
    providers = metadata.packages_distributions()
    by_distribution: dict[str, set[str]] = {}
    for module, distributions in providers.items():
        for distribution in distributions:
            by_distribution.setdefault(normalise(distribution), set()).add(module)
    seen: set[str] = set()
    pending = ["mcp"]
    while pending:
        distribution = normalise(pending.pop())
        if distribution in seen:
            continue
        try:
            requirements = metadata.requires(distribution) or []
        except metadata.PackageNotFoundError:  # required only elsewhere (a marker excluded it here)
            continue
        seen.add(distribution)
        for requirement in requirements:
            if "extra ==" in requirement:
                continue
            pending.append(re.split(r"[\s;<>=!~\[(]", requirement, maxsplit=1)[0])
    return frozenset(module for distribution in seen for module in by_distribution.get(distribution, ()))


def normalise(distribution: str) -> str:
    return re.sub(r"[-_.]+", "-", distribution).lower()


def test_the_layout_is_what_the_rules_speak_of() -> None:
    assert SERVERS == ["basics", "convert", "weather"]
    assert not (
        ROOT / "servers" / "__init__.py"
    ).exists()  # a namespace: servers/X + servers/surface copy whole
    assert {path.name for path in (ROOT / "servers").iterdir() if path.is_dir()} >= {"surface", *SERVERS}
    assert sdk_modules() >= {"mcp", "mcp_types", "pydantic", "pydantic_core", "anyio", "starlette", "uvicorn"}


@pytest.mark.parametrize("server", SERVERS)
def test_a_server_imports_only_the_surface_package_and_its_own_folder(server: str) -> None:
    allowed = ("servers.surface", f"servers.{server}")
    strays = {
        f"{path.relative_to(ROOT)}: {module}"
        for path in sources(f"servers/{server}")
        for module in imports(path)
        if (within(module, "servers") and not any(within(module, ok) for ok in allowed))
        or within(module, "instruments")
        or within(module, "tests")
    }
    assert not strays


def test_the_surface_package_imports_only_the_standard_library_and_the_sdk() -> None:
    allowed = sys.stdlib_module_names | sdk_modules() | {"servers"}
    strays = {
        f"{path.relative_to(ROOT)}: {module}"
        for path in sources("servers/surface")
        for module in imports(path)
        if module.partition(".")[0] not in allowed
        or (within(module, "servers") and not within(module, "servers.surface"))
    }
    assert not strays


def test_the_instruments_import_no_server_except_the_demo_and_the_benchmark() -> None:
    strays = {
        f"{path.relative_to(ROOT)}: {module}"
        for path in sources("instruments")
        if not any(within(module_name(path), runner) for runner in RUNNERS)
        for module in imports(path)
        if within(module, "servers") or within(module, "tests")
    }
    assert not strays


def test_the_reader_sees_imports_inside_functions_and_relative_ones() -> None:
    source = "def later():\n    from ..weather import server\n    from . import units\n    import instruments.tokens\n"
    assert set(imported(source, "servers.convert")) == {
        "servers.weather",
        "servers.convert",
        "instruments.tokens",
    }
