"""Keyboard-only use: the editor is filled and saved, and a box of the agent grid is
ticked and submitted, with Tab, Space, Enter and typed text only: no click, no fill."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect

from conftest import Setup
from support import AGENTS_UPDATED, SAVED, Pages, flash, run_cli, skill_md

NAME = "keyboard-skill"
TEXT = skill_md(NAME, "Written with the keyboard only.", "Typed, not pasted.")


def tab_to(page: Any, selector: str, limit: int = 80) -> None:
    """Press Tab until the focused element matches SELECTOR; fail when it never does
    (unreachable by keyboard) or focus stops moving (a keyboard trap)."""
    seen = []
    for _ in range(limit):
        page.keyboard.press("Tab")
        if page.evaluate("s => document.activeElement && document.activeElement.matches(s)", selector):
            return
        seen.append(page.evaluate("() => (document.activeElement?.outerHTML ?? 'none').slice(0, 80)"))
        if len(seen) >= 3 and seen[-1] == seen[-2] == seen[-3] and not seen[-1].startswith("<body"):
            raise AssertionError(f"focus is trapped on {seen[-1]} while tabbing to {selector}")
    raise AssertionError(f"{selector} not reached with {limit} Tabs; focus went through {seen}")


def test_editor_and_grid_by_keyboard(sqlite_setup: Setup, context: Any, pages: Pages) -> None:
    s = sqlite_setup
    base = s.studio.url
    page = pages.watch(context.new_page())

    page.goto(base + "/skills/new")
    tab_to(page, 'form#editor input[name="name"]')
    page.keyboard.press("Control+A")
    page.keyboard.type(NAME)
    tab_to(page, "#content")
    page.keyboard.press("Control+A")
    page.keyboard.press("Delete")
    page.keyboard.type(TEXT)
    assert page.input_value("#content") == TEXT, "typing in the editor did not give the typed text"
    tab_to(page, "button#save")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert page.url == base + f"/skills/{NAME}"
    assert flash(page) == SAVED
    assert "Typed, not pasted." in run_cli("load", NAME, *s.sources).stdout
    pages.shot(page, "saved-by-keyboard")

    # An agent to give the skill to (made with the mouse: the grid is what is tested).
    page.goto(base + "/agents")
    page.fill('form#new-agent input[name="id"]', "bia")
    with page.expect_navigation():
        page.click("form#new-agent button")

    page.goto(base + f"/skills/{NAME}")
    # bia allows every skill, so its "allowed" box may well be ticked already: tick
    # "always-on", which no profile starts with.
    expect(page.locator("#eager-bia")).not_to_be_checked()
    tab_to(page, "#eager-bia")
    page.keyboard.press("Space")
    expect(page.locator("#eager-bia")).to_be_checked()
    tab_to(page, 'form#agents button, form#agents input[type="submit"]')
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert page.url == base + f"/skills/{NAME}"
    assert flash(page).startswith(AGENTS_UPDATED), flash(page)
    expect(page.locator("#eager-bia")).to_be_checked()
    pages.shot(page, "grid-by-keyboard")
    pages.check()
