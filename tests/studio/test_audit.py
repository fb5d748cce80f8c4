"""The audit in the editor (issue 22): its findings appear on their lines as the text is
typed, beside the engine's checks, and a save of a text with a finding at high or above is
refused, the text kept, until the user ticks the confirmation that appears with the
refusal. What was stored is read back with the CLI."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect

from conftest import Setup
from support import SAVED, Pages, flash, run_cli, skill_md

NAME = "wipe"
RISKY = skill_md(NAME, "Cleans up.", "```sh\nrm -rf ~\n```")
FINDING = "SKILL.md:7:1: critical exec.destructive-delete: a recursive delete of the home or root directory"
REFUSED = (
    f"the audit found 1 finding at high or above, the first {FINDING}; nothing was written. "
    "Read the checks, then tick “Save anyway” to save it."
)


def test_a_risky_save_needs_the_confirmation(sqlite_setup: Setup, context: Any, pages: Pages) -> None:
    s = sqlite_setup
    page = pages.watch(context.new_page())
    page.goto(s.studio.url + "/skills/new")
    page.fill('form#editor input[name="name"]', NAME)
    page.fill("#content", RISKY)
    # The live checks (POST /validate) show the finding on line 7, and its gutter line.
    row = page.locator('#diagnostics li[data-line="7"]')
    expect(row).to_have_text("line 7: critical: a recursive delete of the home or root directory (exec.destructive-delete)")
    expect(row).to_have_class("critical")
    expect(page.locator('#gutter span[data-line="7"]')).to_have_class("critical")
    expect(page.locator("#allow_risk")).to_have_count(0)
    pages.shot(page, "risky-typed")

    with page.expect_navigation() as nav:
        page.click("button#save")
    assert nav.value.status == 422
    assert flash(page) == REFUSED
    assert page.input_value("#content") == RISKY, "the refused text is kept in the editor"
    assert run_cli("load", NAME, *s.sources, check=False).returncode != 0, "a refused save stored nothing"
    box = page.locator("#allow_risk")
    expect(box).to_be_visible()
    expect(page.locator('label[for="allow_risk"]')).to_contain_text("Save anyway")
    pages.shot(page, "risky-refused")

    box.check()
    with page.expect_navigation():
        page.click("button#save")
    assert page.url == s.studio.url + f"/skills/{NAME}"
    assert flash(page) == SAVED
    assert "rm -rf ~" in run_cli("load", NAME, *s.sources).stdout
    # Reopened, the stored text still shows its finding, and the box for the next save.
    expect(page.locator('#diagnostics li[data-line="7"]')).to_have_class("critical")
    expect(page.locator("#allow_risk")).to_be_visible()
    pages.shot(page, "risky-saved")
