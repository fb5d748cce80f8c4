"""Labels a newcomer can read, in the CLI's words (issue 26, item 4): the origins the
list shows are `skilldeck list --json`'s, the skill-list formats are `prompt --format`'s
values explained in words, eager and specialization are said and explained where they
appear, the new-skill template names the tool that serves it (`skill`; `load_skill` for
an agent's own skill), and the editor wraps long lines with each line number beside its
line. Every page is run through axe-core."""

from __future__ import annotations

import json
from typing import Any

from playwright.sync_api import expect

from conftest import DISK_SKILL, Setup
from support import SAVED, Pages, flash, run_cli, skill_md

NAME = "worded"


def submit(page: Any, selector: str) -> Any:
    with page.expect_navigation() as nav:
        page.click(selector)
    return nav.value


def test_labels_say_the_clis_words(sqlite_setup: Setup, context: Any, pages: Pages) -> None:
    s = sqlite_setup
    base = s.studio.url
    page = pages.watch(context.new_page())

    # The template names the tool that serves a shared skill.
    page.goto(base + "/skills/new")
    template = page.input_value("#content")
    assert template.endswith("loaded on demand by the `skill` tool.\n"), template
    assert "load_skill" not in template
    pages.shot(page, "new")
    page.fill('input[name="name"]', NAME)
    page.fill("#content", skill_md(NAME, "A skill to look at the words.", "Body."))
    assert submit(page, "button#save").status == 200 and flash(page) == SAVED
    # One record over the disk skill too, so that the list has every origin.
    page.goto(base + f"/skills/{DISK_SKILL}")
    assert submit(page, "button#save").status == 200 and flash(page) == SAVED

    # The list's origins are the CLI's.
    cli = {skill["name"]: skill["origin"] for skill in json.loads(run_cli("list", "--json", *s.sources).stdout)["skills"]}
    page.goto(base + "/skills")
    shown = {}
    for row in page.locator("table#skills tbody tr").all():
        cells = row.locator("td").all_inner_texts()
        shown[cells[0]] = cells[2]
    assert shown == {NAME: cli[NAME], DISK_SKILL: "store (over fs)"}, (shown, cli)
    assert cli[DISK_SKILL] == "store"
    expect(page.locator("#origins")).to_contain_text("fs, a SKILL.md under a --root directory")
    expect(page.locator("main")).not_to_contain_text("disk,")
    pages.shot(page, "list")

    # The grid: eager and specialization, each explained.
    page.goto(base + "/agents")
    page.fill('form#new-agent input[name="id"]', "bia")
    submit(page, "form#new-agent button")
    page.goto(base + f"/skills/{NAME}")
    grid = page.locator("section#grid")
    expect(grid.locator("thead")).to_contain_text("Eager (always in its prompt)")
    expect(grid).to_contain_text("the CLI's --eager")
    expect(grid.locator("h3#specialize-h")).to_have_text("Specialize for one agent")
    expect(grid).to_contain_text("Gives one agent its own copy of this skill to edit")
    expect(page.locator('label[for="agent_id"]')).to_have_text("Agent to get its own copy")
    for gone in ("Always on", "Own version"):
        expect(page.locator("main")).not_to_contain_text(gone)
    pages.shot(page, "grid")

    # The agent page: the formats are `prompt --format`'s values, said in words.
    page.goto(base + "/agents/bia")
    expect(page.locator("main")).to_contain_text("Eager skills: none.")
    expect(page.locator('section[aria-labelledby="preview-h"]')).to_contain_text("The skill list (level 1) is what goes into the model's system prompt")
    expect(page.locator('label[for="format"]')).to_have_text("Skill list format")
    options = page.locator("#format option")
    values = [options.nth(i).get_attribute("value") for i in range(options.count())]
    labels = options.all_inner_texts()
    assert values == ["insika", "toolnexus", "agentskills"], values
    for value, label in zip(values, labels):
        assert f"({value})" in label and len(label.split()) > 5, label
        run_cli("prompt", "--format", value, "--agent", "bia", *s.sources)
    pages.shot(page, "agent")

    # An agent's own skill starts from the template naming load_skill.
    page.goto(base + "/agents/bia/skills/bia-only")
    assert page.input_value("#content").endswith("loaded on demand by the `load_skill` tool.\n")
    pages.shot(page, "own-new")
    pages.check()


def test_the_editor_wraps_long_lines(sqlite_setup: Setup, context: Any, pages: Pages) -> None:
    s = sqlite_setup
    page = pages.watch(context.new_page())
    page.goto(s.studio.url + "/skills/new")
    long_line = "x" * 3000
    text = f"---\nname: wrapped\ndescription: {long_line}\n---\n\nShort.\n"
    page.fill("#content", text)
    page.wait_for_function("() => document.querySelectorAll('#gutter span').length === 7")
    sizes = page.evaluate(
        """() => {
            const c = document.getElementById('content');
            const style = getComputedStyle(c);
            const spans = [...document.querySelectorAll('#gutter span')].map(s => s.getBoundingClientRect().height);
            return {scrollWidth: c.scrollWidth, clientWidth: c.clientWidth, spans,
                    inner: c.scrollHeight - parseFloat(style.paddingTop) - parseFloat(style.paddingBottom)};
        }"""
    )
    assert sizes["scrollWidth"] <= sizes["clientWidth"], f"the editor scrolls sideways: {sizes}"
    one = sizes["spans"][1]
    assert sizes["spans"][2] > 10 * one, f"the long line's number is not as tall as its wrapped line: {sizes['spans']}"
    assert abs(sum(sizes["spans"]) - sizes["inner"]) < 2, f"the numbers do not run beside their lines: {sizes}"
    pages.shot(page, "wrapped")
    pages.check()
