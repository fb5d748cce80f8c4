"""The stubs and the tests agree: mypy --strict over the tests and the package."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def mypy(*args: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(HERE / "mypy.ini"), *args],
        capture_output=True,
        text=True,
        cwd=HERE,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_installed_package_checks_strictly() -> None:
    mypy("-p", "skilldeck")


def test_the_tests_check_strictly_against_the_stubs() -> None:
    mypy(str(HERE))


def test_a_type_error_is_caught() -> None:
    """The check can fail: a wrong use of the API is reported."""
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(HERE / "mypy.ini"), "-c", "import skilldeck\nx: int = skilldeck.load_skills().prompt()"],
        capture_output=True,
        text=True,
        cwd=HERE,
    )
    assert done.returncode == 1 and "Incompatible types in assignment" in done.stdout, done.stdout
