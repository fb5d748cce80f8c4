"""The Studio's whole authoring flow in a real browser, on SQLite and on PostgreSQL:
create a skill from the template, see a validation error appear on its line while
typing, save, edit, see the versions and the diff, restore, create agents and give
the skill to one as eager (always in its prompt) (checked with `skilldeck inject` and the agent's
preview, whose level 1 is `skilldeck prompt`'s), narrow another's allowlist, specialise it for
another (checked with `skilldeck load --agent`), remove the specialisation, and hit
the conflict of two pages editing one skill. Every page is screenshotted and run
through axe-core; no dialog may open and no script may fail on the way."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from playwright.sync_api import expect

from conftest import DISK_SKILL, Setup
from support import AGENTS_UPDATED, REMOVED, SAVED, Pages, conflict_text, flash, run_cli, skill_md, validate_lines

NAME = "flow-skill"
V1 = skill_md(NAME, "First version of the flow skill.", "# Flow\n\nStep one: read the input.")
V2 = skill_md(NAME, "Second version of the flow skill.", "# Flow\n\nStep one: read the input.\nStep two: check it.")
V3 = skill_md(NAME, "Third version of the flow skill.", "# Flow\n\nStep one: read the input.\nStep three: write the report.")
# A YAML error on line 4 (an unclosed flow sequence): `validate` reports it there.
INVALID = f"---\nname: {NAME}\ndescription: Broken on purpose.\nlicense: [unclosed\n---\n\nBody.\n"
INVALID_LINE = 4


def submit(page: Any, selector: str) -> Any:
    """Click SELECTOR and wait for the page it leads to; that response (after redirects)."""
    with page.expect_navigation() as nav:
        page.click(selector)
    return nav.value


def save_editor(page: Any, text: str) -> Any:
    page.fill("#content", text)
    return submit(page, "button#save")


def history_items(page: Any) -> Any:
    return page.locator("#history li")


def inject_labels(s: Setup, agent: str, message: str) -> tuple[str, list[dict[str, str]]]:
    out = json.loads(run_cli("inject", *s.sources, "--agent", agent, "--message", message, "--json").stdout)
    return out["content"], out["labels"]


def test_authoring_flow(setup: Setup, context: Any, pages: Pages, tmp_path: Path) -> None:
    s = setup
    base = s.studio.url
    page = pages.watch(context.new_page())

    # The list: `/` sends to /skills, which shows the disk skill with its origin.
    page.goto(base + "/")
    assert page.url == base + "/skills"
    row = page.locator("table#skills tr", has=page.locator(f'a[href="/skills/{DISK_SKILL}"]'))
    expect(row).to_have_count(1)
    expect(row).to_contain_text("A skill read from the --root directory.")
    expect(row).to_contain_text("fs")
    pages.shot(page, "list")

    # A new skill from Insika's template.
    submit(page, "a#new-skill")
    assert page.url == base + "/skills/new"
    template = page.input_value("#content")
    assert "description: one sentence about when to use this skill\n---\n" in template, template
    pages.shot(page, "new")

    # Invalid frontmatter: the diagnostic appears on its line while typing, nothing is saved.
    oracle = validate_lines(NAME, INVALID, tmp_path / "oracle")
    assert INVALID_LINE in oracle, oracle
    page.fill('input[name="name"]', NAME)
    page.fill("#content", INVALID)
    on_line = page.locator(f'#diagnostics li[data-line="{INVALID_LINE}"]')
    expect(on_line).to_have_count(1, timeout=10_000)
    for message in oracle[INVALID_LINE]:
        expect(on_line).to_contain_text(message)
    assert page.url == base + "/skills/new", "the live check must not navigate"
    status, listing = s.studio.get("/skills")
    assert status == 200 and f"/skills/{NAME}" not in listing, "typing saved the skill"
    pages.shot(page, "live-diagnostic")

    # Fixed: the diagnostic goes away, and the save lands.
    page.fill("#content", V1)
    expect(page.locator(f'#diagnostics li[data-line="{INVALID_LINE}"]')).to_have_count(0, timeout=10_000)
    response = submit(page, "button#save")
    assert response.status == 200 and page.url == base + f"/skills/{NAME}"
    assert flash(page) == SAVED
    assert page.input_value("#content") == V1
    pages.shot(page, "saved")

    # Two edits: two earlier versions in the history.
    for text in (V2, V3):
        response = save_editor(page, text)
        assert response.status == 200 and page.url == base + f"/skills/{NAME}", response.status
        assert flash(page) == SAVED, f"saving an edit: {flash(page)!r}"
        assert page.input_value("#content") == text
    expect(history_items(page)).to_have_count(2)
    expect(page.locator(f'#history a[href="/skills/{NAME}/versions/0"]')).to_have_count(1)
    expect(page.locator(f'#history a[href="/skills/{NAME}/versions/1"]')).to_have_count(1)
    pages.shot(page, "history")

    # The diff of version 1 (V1) against the current text (V3): the line only V1 has
    # and the line only V3 has, one deleted and the other inserted.
    submit(page, f'#history a[href="/skills/{NAME}/versions/1"]')
    diff = page.locator("div.diff")
    only_v1, only_v3 = "description: First version of the flow skill.", "Step three: write the report."
    ins, dele = diff.locator("ins").all_inner_texts(), diff.locator("del").all_inner_texts()
    assert any(only_v1 in t for t in ins + dele) and any(only_v3 in t for t in ins + dele), (ins, dele)
    assert any(only_v1 in t for t in ins) != any(only_v1 in t for t in dele), "V1's line must be on one side only"
    assert any(only_v1 in t for t in dele) == any(only_v3 in t for t in ins), "the two lines must be on opposite sides"
    assert not any("Step one: read the input." in t for t in ins + dele), "an unchanged line was marked"
    pages.shot(page, "diff")

    # Restore version 1 from the editor's history.
    page.goto(base + f"/skills/{NAME}")
    saved_at = page.locator(f'#history form[action="/skills/{NAME}/versions/1/restore"] input[name="at"]').input_value()
    expect(page.locator("#history li").nth(1)).to_contain_text(f"Saved {saved_at}, the oldest kept")
    submit(page, f'#history form[action="/skills/{NAME}/versions/1/restore"] button.restore')
    assert page.url == base + f"/skills/{NAME}"
    assert flash(page) == f"The version saved {saved_at} is the current text again."
    assert page.input_value("#content") == V1
    expect(history_items(page)).to_have_count(3)
    pages.shot(page, "restored")

    # Two agents, each a profile allowing every skill.
    page.goto(base + "/agents")
    for agent in ("bia", "chef"):
        page.fill('form#new-agent input[name="id"]', agent)
        response = submit(page, "form#new-agent button")
        assert response.status == 200, f"adding agent {agent}: {response.status}"
        page.goto(base + "/agents")
        expect(page.locator(f'a[href="/agents/{agent}"]')).to_have_count(1)
    pages.shot(page, "agents")

    # The grid: allowed and always-on for bia only. chef allows every skill, so it is
    # left intact (Insika's "left intact" part).
    page.goto(base + f"/skills/{NAME}")
    grid = page.locator(f'form#agents[action="/skills/{NAME}/agents"]')
    for agent in ("bia", "chef"):
        expect(grid.locator(f"#allowed-{agent}")).to_have_count(1)
        expect(grid.locator(f"#eager-{agent}")).to_have_count(1)
    pages.shot(page, "grid")
    grid.locator("#allowed-bia").check()
    grid.locator("#eager-bia").check()
    grid.locator("#allowed-chef").uncheck()
    grid.locator("#eager-chef").uncheck()
    with page.expect_navigation():
        grid.locator('button, input[type="submit"]').first.click()
    assert page.url == base + f"/skills/{NAME}"
    updated = flash(page)
    assert updated.startswith(AGENTS_UPDATED), updated
    assert "1 agent(s) with 'all' skills were left intact" in updated, updated
    expect(page.locator("#allowed-bia")).to_be_checked()
    expect(page.locator("#eager-bia")).to_be_checked()
    expect(page.locator("#eager-chef")).not_to_be_checked()
    pages.shot(page, "grid-saved")

    # The real CLI on the same store: `--agent bia` reads the profile the store keeps,
    # so bia gets the body injected, labelled eager; chef does not.
    content, labels = inject_labels(s, "bia", "hello there")
    assert {"name": NAME, "reason": "eager"} in labels, labels
    assert "Step one: read the input." in content, content
    _, chef_labels = inject_labels(s, "chef", "hello there")
    assert {"name": NAME, "reason": "eager"} not in chef_labels, chef_labels

    # bia's page previews the same: the message injects the skill, labelled eager.
    page.goto(base + "/agents/bia")
    page.fill('form#preview [name="budget"]', "2000c")
    page.fill('form#preview [name="message"]', "hello there")
    submit(page, "form#preview button")
    # The level-1 text is the CLI's `prompt` for the same agent, format and budget
    # (so the eager skill is not in it: it is injected, not listed).
    fmt = page.input_value("#format")
    cli_prompt = run_cli("prompt", *s.sources, "--agent", "bia", "--format", fmt, "--budget", "2000c").stdout
    assert page.locator("pre#level1").inner_text().strip() == cli_prompt.strip()
    assert DISK_SKILL in cli_prompt
    expect(page.locator("#report")).not_to_be_empty()
    injected = page.locator("#inject li", has_text=NAME)
    expect(injected).to_have_count(1)
    expect(injected).to_contain_text("eager")
    pages.shot(page, "agent-preview")

    # chef's allowlist: only this skill, no longer every skill.
    page.goto(base + "/agents/chef")
    page.locator("#all_skills").uncheck()
    page.locator(f'form#allowlist input[name="skills"][value="{NAME}"]').check()
    submit(page, "form#allowlist button")
    assert flash(page) == "Skills updated."
    expect(page.locator("#all_skills")).not_to_be_checked()
    expect(page.locator(f'form#allowlist input[name="skills"][value="{NAME}"]')).to_be_checked()
    pages.shot(page, "allowlist")
    chef_prompt = run_cli("prompt", *s.sources, "--agent", "chef", "--format", "insika").stdout
    assert NAME in chef_prompt and DISK_SKILL not in chef_prompt, chef_prompt
    page.goto(base + f"/skills/{NAME}")

    # Specialise for chef: seeded from the shared text, with the pill.
    page.locator('form#specialize select[name="agent_id"]').select_option("chef")
    submit(page, "form#specialize button")
    assert page.url == base + f"/agents/chef/skills/{NAME}"
    assert flash(page) == "Specialized for chef."
    expect(page.locator("span.pill")).to_have_text("specialized for chef")
    assert page.input_value("#content") == V1, "the specialisation is seeded from the shared text"
    pages.shot(page, "specialized")
    chef_text = skill_md(NAME, "Chef's own version.", "# Flow\n\nChef's own steps.")
    save_editor(page, chef_text)
    assert flash(page) == "Specialization saved."
    assert "Chef's own steps." in run_cli("load", NAME, *s.sources, "--agent", "chef").stdout
    assert "Chef's own steps." not in run_cli("load", NAME, *s.sources).stdout
    page.goto(base + f"/skills/{NAME}")
    expect(page.locator(f'form#agents a[href="/agents/chef/skills/{NAME}"]')).to_have_count(1)
    pages.shot(page, "own-version-link")

    # Remove the specialisation: chef falls back to the shared skill.
    page.goto(base + f"/agents/chef/skills/{NAME}")
    submit(page, "form#remove-specialization button")
    assert page.url == base + f"/skills/{NAME}"
    assert flash(page) == REMOVED
    chef_load = run_cli("load", NAME, *s.sources, "--agent", "chef").stdout
    assert "Chef's own steps." not in chef_load and "Step one: read the input." in chef_load
    expect(page.locator(f'a[href="/agents/chef/skills/{NAME}"]')).to_have_count(0)
    pages.shot(page, "specialization-removed")

    # Two pages edit the same skill: the first save lands, the second is refused
    # with the conflict, and the second page keeps its text.
    first, second = pages.watch(context.new_page()), pages.watch(context.new_page())
    first.goto(base + f"/skills/{NAME}")
    second.goto(base + f"/skills/{NAME}")
    mine = skill_md(NAME, "Saved from the first page.", "# Flow\n\nFirst page's text.")
    theirs = skill_md(NAME, "Saved from the second page.", "# Flow\n\nSecond page's text.")
    assert save_editor(first, mine).status == 200 and flash(first) == SAVED
    refused = save_editor(second, theirs)
    assert refused.status == 409, refused.status
    alert = second.locator('div.flash.error[role="alert"]')
    expect(alert).to_contain_text(conflict_text(NAME))
    assert second.input_value("#content") == theirs, "the refused page lost the user's text"
    pages.shot(second, "conflict")
    shared = run_cli("load", NAME, *s.sources).stdout
    assert "First page's text." in shared and "Second page's text." not in shared

    pages.check()
