"""A save never loses a skill (issue 26, item 1): every example skill is opened in the
Studio and saved unchanged, in a real browser, and `skilldeck load` (what the model is
served: body, base directory, file list) and `skilldeck show --json` (every frontmatter
key) print the same bytes before and after, on SQLite and PostgreSQL. Then the same for
skills a browser is most likely to change on the way: CRLF line breaks, a byte-order
mark, trailing blank lines and spaces, a very long line, YAML a rebuild would drop."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import STORES, Setup, start
from support import REPO, SAVED, McpStdio, Pages, flash, run_cli, write_disk_skill

EXAMPLES = REPO / "examples" / "skills"


@pytest.fixture(params=STORES)
def examples(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    s = start(request.param, tmp_path, EXAMPLES)
    try:
        yield s
    finally:
        s.close()


def served(s: Setup, name: str) -> tuple[str, str]:
    """What `load` and `show --json` print for NAME with the Studio's sources."""
    return run_cli("load", name, *s.sources).stdout, run_cli("show", name, "--json", *s.sources).stdout


def origin(s: Setup, name: str) -> str:
    listed = json.loads(run_cli("list", "--json", *s.sources).stdout)["skills"]
    return next(skill["origin"] for skill in listed if skill["name"] == name)


def open_and_save(s: Setup, page: Any, pages: Pages, name: str) -> None:
    """Open NAME's editor and press Save without touching the text."""
    page.goto(s.studio.url + f"/skills/{name}")
    with page.expect_navigation() as nav:
        page.click("button#save")
    assert nav.value.status == 200 and flash(page) == SAVED, (name, nav.value.status, flash(page))
    pages.shot(page, f"saved-{name}")


def test_every_example_skill_saves_unchanged(examples: Setup, context: Any, pages: Pages) -> None:
    s = examples
    page = pages.watch(context.new_page())
    names = sorted(p.name for p in EXAMPLES.iterdir() if (p / "SKILL.md").is_file())
    assert names == ["hello-world", "pdf-forms", "release-notes"], names
    for name in names:
        before = served(s, name)
        assert origin(s, name) == "fs"
        assert "<skill_files>" in before[0], f"{name} has files beside its SKILL.md: the test needs them"
        page.goto(s.studio.url + f"/skills/{name}")
        assert page.input_value("#content") == (EXAMPLES / name / "SKILL.md").read_text(), "the editor shows the file"
        open_and_save(s, page, pages, name)
        assert origin(s, name) == "store", f"{name}: the save did not reach the store"
        after = served(s, name)
        assert after[0] == before[0], f"{name}: load differs after an unchanged save"
        assert after[1] == before[1], f"{name}: show --json differs after an unchanged save"
    # The case, in its own words: pdf-forms keeps license and metadata, and the
    # reference its body names is still served.
    shown = json.loads(served(s, "pdf-forms")[1])
    assert shown["license"] == "MIT" and shown["metadata"] == {"author": "skilldeck examples"}, shown
    assert f"<file>{EXAMPLES / 'pdf-forms' / 'reference' / 'fields.md'}</file>" in served(s, "pdf-forms")[0]
    page.goto(s.studio.url + "/skills")
    row = page.locator("table#skills tr", has=page.locator('a[href="/skills/pdf-forms"]'))
    assert "store (over fs)" in row.inner_text()
    pages.shot(page, "list-after")
    pages.check()


AWKWARD = {
    # name: the exact bytes of its SKILL.md
    "crlf": b"---\r\nname: crlf\r\ndescription: Written on Windows.\r\nlicense: Apache-2.0\r\n---\r\n\r\nLine one.\r\nLine two.\r\n",
    "bom": b"\xef\xbb\xbf---\nname: bom\ndescription: Saved by an editor that writes a BOM.\n---\nBody.\n",
    "trailing": b"---\nname: trailing\ndescription: Ends in blank lines.\n---\n\nBody with trailing spaces.   \n\n\n",
    "long-line": b"---\nname: long-line\ndescription: One very long line.\n---\n" + b"word " * 800 + b"\n",
    "rich-yaml": (
        b"---\nname: rich-yaml\ndescription: >\n  Folded over\n  two lines.\ntriggers: [\"a, b\", c]\n"
        b"metadata:\n  version: \"1.0\"\n  tags: [x, y]\nallowed-tools: Bash(git:*) Read\n# a comment\n---\n# Body\n"
    ),
}


def test_awkward_skills_save_unchanged(context: Any, pages: Pages, tmp_path: Path) -> None:
    root = tmp_path / "awkward"
    for name, data in AWKWARD.items():
        (root / name).mkdir(parents=True)
        (root / name / "SKILL.md").write_bytes(data)
    write_disk_skill(root, "rich-yaml/scripts", "---\nname: nested\ndescription: A nested skill.\n---\n")
    s = start("sqlite", tmp_path, root)
    try:
        page = pages.watch(context.new_page())
        for name, data in AWKWARD.items():
            before = served(s, name)
            open_and_save(s, page, pages, name)
            assert origin(s, name) == "store"
            after = served(s, name)
            assert after == before, f"{name}: load or show --json differ after an unchanged save"
            versions = json.loads(run_cli("store", "versions", name, *s.sources).stdout)
            assert versions == [], f"{name}: one save, no earlier version"
        # The records are the files, byte for byte, as `serve` publishes them.
        server = McpStdio(s.sources)
        try:
            server.handshake()
            for name, data in AWKWARD.items():
                contents = server.request("resources/read", {"uri": f"skill://{name}/SKILL.md"})["contents"]
                assert contents[0]["text"].encode() == data, name
        finally:
            server.close()
        pages.check()
    finally:
        s.close()
