#!/usr/bin/env python3
"""toolnexus's own skill tests, run against skilldeck with only the imports changed.

Usage: SKILLDECK_TOOLNEXUS_REPO=<git dir of github.com/muthuishere/toolnexus> \
       python tests/python/toolnexus_compat.py

The repository's code cannot be committed here, so this script takes
``python/tests/test_unit.py`` and ``examples/skills`` from the given git directory
at the pinned commit into a temporary directory, moves the skill names of its
import lines from ``toolnexus`` to ``skilldeck`` (every other line untouched: the
names it still takes from ``toolnexus`` belong to tests of toolnexus's other parts,
which are not run), and runs the skill cases with pytest in this interpreter (which
needs skilldeck, toolnexus 0.21.0, pytest and pytest-asyncio). Exit status: pytest's.
The cases left out, and why, are in ``toolnexus_compat.md``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

#: The newest commit of the repository the fetch gave (tag v0.16.0, 2026-08-17);
#: its skill tests are the ones toolnexus 0.21.0 still passes.
COMMIT = "6cb8bd1937abcb7a2925497ea992adb0c949fd3c"

#: The skill cases of python/tests/test_unit.py that apply to a skill loader.
APPLICABLE = [
    "test_skills_discovery_prompt_and_block",
    "test_s4_on_disk_block_byte_identical",
    "test_s1_data_skill_logical_base_and_resources",
    "test_s1_instruction_only_has_no_files_block",
    "test_s1_dir_data_first_wins_dedupe",
    "test_s2_allowlist_droplist_unknown_nil",
    "test_s3_list_skills_typed_skips",
    "test_s5_sample_cap_and_disable",
    "test_skills_prompt_preamble_present_and_absent",
    "test_skill_discovery_follows_symlinked_dirs",
    "test_frontmatter_single_line_description",
    "test_frontmatter_folded_description",
    "test_frontmatter_literal_description",
    "test_frontmatter_empty_description",
    "test_frontmatter_real_folded_example_huddle",
]

#: The skill names the test file imports from toolnexus, moved to skilldeck.
SKILL_NAMES = ("SKILLS_PROMPT_PREAMBLE", "list_skills", "load_skills")


def retarget(source: str) -> str:
    """The test file with its skill imports taken from skilldeck; fails loudly if
    the upstream file no longer has the import lines this expects."""
    lines = source.split("\n")
    out: list[str] = []
    in_block = moved = singles = 0
    for line in lines:
        if line == "from toolnexus import (":
            in_block = 1
            out.append(line)
            continue
        if in_block and line == ")":
            in_block = 0
            out.append(line)
            out.append("from skilldeck import " + ", ".join(SKILL_NAMES))
            continue
        if in_block and line.strip().rstrip(",") in SKILL_NAMES:
            moved += 1
            continue
        if line.strip() == "from toolnexus import SkillDef":
            singles += 1
            out.append(line.replace("from toolnexus import SkillDef", "from skilldeck import SkillDef"))
            continue
        if line.strip() == "from toolnexus import SkillDef  # noqa: F401 (import parity)":
            singles += 1
            out.append(line.replace("from toolnexus", "from skilldeck"))
            continue
        out.append(line)
    if moved != len(SKILL_NAMES) or singles == 0:
        sys.exit(f"toolnexus_compat: the test file's imports changed upstream (moved {moved}, SkillDef {singles})")
    return "\n".join(out)


def main() -> int:
    repo = os.environ.get("SKILLDECK_TOOLNEXUS_REPO", "")
    if not repo or not Path(repo).exists():
        print("SKIPPED: SKILLDECK_TOOLNEXUS_REPO does not name a git directory of github.com/muthuishere/toolnexus")
        return 0
    git = ["git", f"--git-dir={repo}"] if not (Path(repo) / ".git").exists() else ["git", "-C", repo]
    with tempfile.TemporaryDirectory() as tmp:
        source = subprocess.run(
            [*git, "show", f"{COMMIT}:python/tests/test_unit.py"], check=True, capture_output=True, text=True
        ).stdout
        tests = Path(tmp, "python", "tests")
        tests.mkdir(parents=True)
        (tests / "test_unit.py").write_text(retarget(source), encoding="utf-8")
        archive = subprocess.run([*git, "archive", COMMIT, "examples/skills"], check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
        selected = [f"python/tests/test_unit.py::{name}" for name in APPLICABLE]
        return subprocess.call(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "asyncio_mode=auto", "-o", "asyncio_default_fixture_loop_scope=function", *selected],
            cwd=tmp,
        )


if __name__ == "__main__":
    sys.exit(main())
