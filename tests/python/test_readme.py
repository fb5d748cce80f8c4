"""The READMEs' Python examples run as written."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def python_blocks(readme: Path) -> list[str]:
    return re.findall(r"```python\n(.*?)```", readme.read_text(encoding="utf-8"), re.DOTALL)


@pytest.mark.parametrize("readme", ["crates/skilldeck-py/README.md", "README.md"])
def test_python_examples_run(readme: str) -> None:
    blocks = python_blocks(REPO / readme)
    if readme == "README.md" and not blocks:
        pytest.skip("README.md has no Python example yet")
    assert blocks, f"{readme} has no Python example"
    for block in blocks:
        done = subprocess.run([sys.executable, "-c", block], capture_output=True, text=True)
        assert done.returncode == 0, f"{readme}:\n{block}\n{done.stderr}"
        assert done.stdout
