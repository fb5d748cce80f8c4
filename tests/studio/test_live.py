"""Live: a save in the Studio reaches a running `skilldeck serve` on the same store.
Its client gets `notifications/resources/list_changed` and reads the new text."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from conftest import Setup
from support import SAVED, McpStdio, Pages, flash, run_cli, skill_md

NAME = "live-skill"


def read_text(server: McpStdio, uri: str) -> str:
    contents = server.request("resources/read", {"uri": uri})["contents"]
    return contents[0]["text"]


def test_studio_save_reaches_running_serve(setup: Setup, context: Any, pages: Pages, tmp_path: Path) -> None:
    s = setup
    base = s.studio.url
    page = pages.watch(context.new_page())
    first = skill_md(NAME, "Before the server saw an edit.", "First text.")
    second = skill_md(NAME, "Edited in the Studio while serving.", "Second text.")

    # The first text comes from the CLI (LF line ends); the Studio edits it after.
    (tmp_path / "first.md").write_text(first)
    run_cli("store", "write", NAME, "--file", str(tmp_path / "first.md"), *s.sources)
    page.goto(base + f"/skills/{NAME}")
    assert page.input_value("#content") == first

    server = McpStdio(s.sources)
    try:
        server.handshake()
        uri = f"skill://{NAME}/SKILL.md"
        assert read_text(server, uri) == first
        server.notifications.clear()
        page.fill("#content", second)
        with page.expect_navigation():
            page.click("button#save")
        # A form posts its text with CRLF line ends (the textarea's and the hidden
        # `began`'s): the edit must neither conflict with the LF text it began from
        # nor turn the file's line ends into CRLF.
        assert flash(page) == SAVED, flash(page)
        server.wait_notification("notifications/resources/list_changed")
        assert read_text(server, uri) == second
    finally:
        server.close()
    pages.shot(page, "live-saved")
    pages.check()
