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


def headings_and_prose(text: str) -> tuple[list[str], str]:
    """The Markdown headings, and the text outside fenced blocks and code spans."""
    headings: list[str] = []
    prose: list[str] = []
    fence = ""
    for line in text.splitlines():
        marker = re.match(r"\s*(`{3,}|~{3,})", line)
        if fence:
            if marker and marker.group(1)[0] == fence[0] and len(marker.group(1)) >= len(fence):
                fence = ""
            continue
        if marker:
            fence = marker.group(1)
            continue
        heading = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
        if heading:
            headings.append(heading.group(1))
        prose.append(line)
    return headings, re.sub(r"(`+)(?s:.+?)\1", "", "\n".join(prose))


def slugs(headings: list[str]) -> set[str]:
    """GitHub's anchors: lowercased, punctuation but - and _ dropped, spaces to -, repeats numbered."""
    seen: dict[str, int] = {}
    out: set[str] = set()
    for heading in headings:
        slug = re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        out.add(slug if count == 0 else f"{slug}-{count}")
    return out


@pytest.mark.parametrize("readme", ["README.md", "crates/skilldeck-py/README.md"])
def test_readme_links_stay_in_the_repository(readme: str) -> None:
    """Every relative link names a file of the repository, every #anchor a heading, and
    nothing points at the spec outside it (`../shared/SPEC.md`, "SPEC §n")."""
    path = REPO / readme
    text = path.read_text(encoding="utf-8")
    assert "../shared" not in text, f"{readme} links outside the repository: ../shared"
    assert "SPEC §" not in text, f"{readme} cites SPEC §n, a file outside the repository"
    headings, prose = headings_and_prose(text)
    anchors = slugs(headings)
    root = REPO.resolve()
    broken: list[str] = []
    for target in re.findall(r"\]\(\s*<?([^()\s<>]+)>?(?:\s+\"[^\"]*\")?\s*\)", prose):
        if re.match(r"(?i)(https?|mailto):", target):
            continue
        file, _, anchor = target.partition("#")
        if not file:
            if anchor not in anchors:
                broken.append(f"{target}: no heading has this anchor")
            continue
        resolved = (path.parent / file).resolve()
        if resolved != root and root not in resolved.parents:
            broken.append(f"{target}: outside the repository")
        elif not resolved.exists():
            broken.append(f"{target}: no such file")
        elif anchor and resolved.suffix == ".md":
            if anchor not in slugs(headings_and_prose(resolved.read_text(encoding="utf-8"))[0]):
                broken.append(f"{target}: no heading of {file} has this anchor")
    assert not broken, f"{readme}: " + "; ".join(broken)
