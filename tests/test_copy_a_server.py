"""Copying a server is one step, proved the way a person would do it.

Take the server's folder, the surface package and the server's contract test into an empty project
outside this repository; write a pyproject.toml with the runtime dependencies the copy imports and
nothing else; install it into a fresh virtual environment; start the copied server over stdio and
call its tool; run its contract test there. Slow (two fresh environments from the package index), so
it runs in the slow tier, which CI runs.
"""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
import tomllib
import venv
from importlib import metadata
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters

from instruments.demo.replay import RECORDINGS, replay_open_meteo
from tests.test_dependency_rules import sdk_modules

ROOT = Path(__file__).resolve().parent.parent
# What running a copied contract test takes besides the copy itself: test tools, not the server's needs.
TEST_TOOLS = ["pytest", "pytest-asyncio", "inline-snapshot", "respx"]
PYTEST_SETTINGS = '[tool.pytest.ini_options]\nasyncio_mode = "auto"\n'

pytestmark = pytest.mark.slow


def copy_server(server: str, project: Path) -> list[str]:
    """The one documented step: the server's folder, servers/surface/ and its contract test."""
    ignore = shutil.ignore_patterns("__pycache__")
    for folder in (server, "surface"):
        shutil.copytree(ROOT / "servers" / folder, project / "servers" / folder, ignore=ignore)
    (project / "tests").mkdir()
    shutil.copy(ROOT / "tests" / "servers" / f"test_{server}_contract.py", project / "tests")
    return sorted(str(path.relative_to(project)) for path in project.rglob("*") if path.is_file())


def runtime_requirements(project: Path) -> list[str]:
    """The distributions the copied code imports, pinned as this project pins them; what only the SDK
    brings along (anyio, starlette, ...) comes with it."""
    pinned = {
        metadata_name(requirement): requirement
        for requirement in tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    }
    providers = metadata.packages_distributions()
    needed: set[str] = set()
    for path in (project / "servers").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = (
                [alias.name for alias in node.names]
                if isinstance(node, ast.Import)
                else [node.module]
                if isinstance(node, ast.ImportFrom) and node.module and not node.level
                else []
            )
            for name in names:
                top = name.partition(".")[0]
                if top not in sys.stdlib_module_names and top != "servers":
                    needed.update(
                        metadata_name(d)
                        for d in providers[top]
                        if top not in sdk_modules() or metadata_name(d) in pinned
                    )
    unpinned = needed - set(pinned)
    assert not unpinned, f"imported by the copy but not in pyproject.toml's dependencies: {unpinned}"
    return sorted(pinned[name] for name in needed)


def metadata_name(requirement: str) -> str:
    name = requirement.replace("_", "-").lower()
    for stop in "<>=!~[; ":
        name = name.split(stop)[0]
    return name


def install(project: Path, requirements: list[str]) -> Path:
    """A fresh virtual environment with the copy installed from its own pyproject.toml."""
    (project / "pyproject.toml").write_text(
        "[build-system]\n"
        'requires = ["hatchling>=1.25"]\n'
        'build-backend = "hatchling.build"\n\n'
        "[project]\n"
        'name = "my-server"\n'
        'version = "0.1.0"\n'
        'requires-python = ">=3.11"\n'
        f"dependencies = {json.dumps(requirements)}\n\n"
        "[tool.hatch.build.targets.wheel]\n"
        'packages = ["servers"]\n\n' + PYTEST_SETTINGS
    )
    environment = project / ".venv"
    venv.create(environment, with_pip=True)
    python = environment / "bin" / "python"
    pip = [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    subprocess.run([*pip, str(project)], check=True, capture_output=True, timeout=600)
    return python


def call_copied_server(
    python: Path, server: str, tool: str, arguments: dict[str, object], env: dict[str, str] | None = None
) -> str:
    """Start the installed copy over stdio, from a folder that is not the project, and call one tool."""
    command = StdioServerParameters(command=str(python), args=["-m", f"servers.{server}"], cwd="/", env=env)

    async def call() -> str:
        async with Client(command) as client:
            result = await client.call_tool(tool, arguments)
        assert not result.is_error, result.content
        return "".join(block.text for block in result.content if block.type == "text")

    return anyio.run(call)


def run_contract_test(python: Path, project: Path, server: str) -> str:
    """Install the test tools alone, then run the copied contract test where a copier would."""
    pip = [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    subprocess.run([*pip, *TEST_TOOLS], check=True, capture_output=True, timeout=600)
    environment = {key: value for key, value in os.environ.items() if not key.startswith("PYTEST")}
    done = subprocess.run(
        [
            str(python),
            "-m",
            "pytest",
            "-q",
            "-rs",
            "-p",
            "no:cacheprovider",
            f"tests/test_{server}_contract.py",
        ],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=600,
        env=environment,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_a_copied_convert_server_installs_runs_and_passes_its_contract_test(tmp_path: Path) -> None:
    project = tmp_path / "my-project"
    files = copy_server("convert", project)
    assert {path.split("/")[1] for path in files if path.startswith("servers/")} == {"convert", "surface"}
    requirements = runtime_requirements(project)
    assert {metadata_name(r) for r in requirements} == {"mcp", "pydantic", "pint"}
    python = install(project, requirements)
    installed = subprocess.run(
        [str(python), "-m", "pip", "list", "--format=json"], check=True, capture_output=True, text=True
    )
    names = {package["name"].lower() for package in json.loads(installed.stdout)}
    assert not names & {"pytest", "ruff", "mypy", "tiktoken", "rich", "mcp-surface-suite"}
    answer = call_copied_server(
        python, "convert", "units_convert", {"value": 12, "from_unit": "mi", "to_unit": "km"}
    )
    assert answer == "12 mi = 19.312128 km"
    outcome = run_contract_test(python, project, "convert")
    # Token counts come with the suite's instruments, which a copy does not take: that one test skips.
    assert "1 skipped" in outcome
    assert "token counts come with the suite's instruments" in outcome
    print(f"copied files: {files}\nrequirements: {requirements}\ncontract test: {outcome.splitlines()[-1]}")


def test_a_copied_weather_server_replays_its_recordings_and_passes_its_contract_test(tmp_path: Path) -> None:
    project = tmp_path / "my-project"
    files = copy_server("weather", project)
    assert any(path.startswith("servers/weather/recordings/") for path in files)
    requirements = runtime_requirements(project)
    assert {"mcp", "httpx"} <= {metadata_name(r) for r in requirements}
    python = install(project, requirements)
    with replay_open_meteo(RECORDINGS) as urls:
        answer = call_copied_server(
            python, "weather", "weather_get_forecast", {"city": "Berlin", "days": 1}, env=urls.environment()
        )
    assert answer.startswith('Forecast for "Berlin, Land Berlin, Germany"')
    outcome = run_contract_test(python, project, "weather")
    assert "1 skipped" in outcome
    assert "token counts come with the suite's instruments" in outcome
    print(
        f"copied files: {len(files)}\nrequirements: {requirements}\ncontract test: {outcome.splitlines()[-1]}"
    )
