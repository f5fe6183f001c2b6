"""The wheel carries what runs and nothing else, and the installed package never reaches into a checkout.

Slow (a build and a fresh environment), so it runs in the slow tier, which CI runs.
"""

from __future__ import annotations

import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--no-deps",
            "--disable-pip-version-check",
            "-w",
            str(out),
            str(ROOT),
        ],
        check=True,
        capture_output=True,
        timeout=600,
    )
    (built,) = out.glob("*.whl")
    return built


def test_the_wheel_holds_the_two_packages_and_the_files_they_read(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    tops = {name.split("/")[0] for name in names if not name.split("/")[0].endswith(".dist-info")}
    assert tops == {"servers", "instruments"}
    assert "servers/__init__.py" not in names  # a namespace, as in the checkout
    assert "servers/weather/recordings/forecast_frederick_daily.json" in names  # the demo's replay reads it
    assert "instruments/new/template/server.py.tmpl" in names
    assert not [name for name in names if "/tests/" in name or name.endswith((".pyc", ".log"))]


def test_the_installed_demo_runs_offline_from_any_folder(wheel: Path, tmp_path: Path) -> None:
    environment = tmp_path / "venv"
    venv.create(environment, with_pip=True)
    python = environment / "bin" / "python"
    subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", str(wheel)],
        check=True,
        capture_output=True,
        timeout=600,
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    demo = subprocess.run(
        [str(python), "-m", "instruments.demo", "--replay"],
        cwd=elsewhere,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert demo.returncode == 0, demo.stdout + demo.stderr
    assert "Weather: REPLAYED" in demo.stdout
    assert "12 mi = 19.312128 km" in demo.stdout
    assert not list(elsewhere.iterdir())  # it wrote nothing where it ran
