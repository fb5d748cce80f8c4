"""Deleting, reverting, renaming, files and versions in a real browser (issue 26, item
3), with JavaScript on (every page through axe-core) and off (the forms alone): delete a
stored skill (`store delete`'s rule), revert a record over a disk skill to the disk one,
rename a stored skill with its history, list and read a skill's files, see which version
is the newest and the oldest with their times, and delete an agent (`store profile ID
--delete`'s rule). Each is checked with the CLI on the same store."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from conftest import DISK_SKILL, DISK_SKILL_MD, Setup
from support import SAVED, Pages, flash, run_cli, skill_md

SOLO = "solo"
DOOMED = "doomed"


@pytest.fixture(params=[True, False], ids=["js", "no-js"])
def js(request: pytest.FixtureRequest) -> bool:
    return request.param


@pytest.fixture
def any_context(browser: Any, js: bool) -> Iterator[Any]:
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, bypass_csp=True, java_script_enabled=js)
    ctx.set_default_timeout(15_000)
    yield ctx
    ctx.close()


def submit(page: Any, selector: str) -> Any:
    with page.expect_navigation() as nav:
        page.click(selector)
    return nav.value


def origin(s: Setup, name: str) -> str | None:
    listed = json.loads(run_cli("list", "--json", *s.sources).stdout)["skills"]
    return next((skill["origin"] for skill in listed if skill["name"] == name), None)


def store_write(s: Setup, tmp: Path, name: str, text: str) -> None:
    (tmp / f"{name}.md").write_text(text)
    run_cli("store", "write", name, "--file", str(tmp / f"{name}.md"), *s.sources)


def test_delete_revert_rename_files_versions_and_agents(
    setup: Setup, any_context: Any, js: bool, pages: Pages, tmp_path: Path
) -> None:
    s = setup
    base = s.studio.url
    page = pages.watch(any_context.new_page())

    def shot(name: str) -> None:
        if js:  # axe-core runs in the page: it needs JavaScript
            pages.shot(page, name)

    # --- versions: which is newest and which oldest, with their times.
    for i in range(3):
        store_write(s, tmp_path, SOLO, skill_md(SOLO, f"Version {i} of solo.", f"Body {i}."))
    page.goto(base + f"/skills/{SOLO}")
    versions = json.loads(run_cli("store", "versions", SOLO, *s.sources).stdout)
    assert len(versions) == 2
    items = page.locator("#history li")
    expect(items.nth(0)).to_contain_text(f"Saved {versions[0]['at']}, the newest earlier version")
    expect(items.nth(1)).to_contain_text(f"Saved {versions[1]['at']}, the oldest kept")
    expect(page.locator("#history")).not_to_contain_text("Version 0")
    expect(page.locator("#history")).to_contain_text("The current text was saved ")
    shot("versions")
    submit(page, f'#history a[href="/skills/{SOLO}/versions/1"]')
    expect(page.locator("h1")).to_have_text(f"{SOLO}: the version saved {versions[1]['at']}")
    expect(page.locator("main")).to_contain_text("This is the oldest kept")
    shot("version-diff")

    # --- rename: the record, its history and the text's name move together.
    page.goto(base + f"/skills/{SOLO}")
    page.fill('form#rename-skill input[name="new_name"]', "solo-renamed")
    response = submit(page, "form#rename-skill button")
    assert response.status == 200 and page.url == base + "/skills/solo-renamed", (response.status, page.url)
    assert flash(page).startswith(f"Renamed {SOLO} to solo-renamed, with its earlier versions."), flash(page)
    assert page.input_value("#content").startswith("---\nname: solo-renamed\n")
    assert len(json.loads(run_cli("store", "versions", "solo-renamed", *s.sources).stdout)) == 3
    assert run_cli("load", SOLO, *s.sources, check=False).returncode == 1
    assert "Body 2." in run_cli("load", "solo-renamed", *s.sources).stdout
    shot("renamed")

    # --- files: names and sizes as on disk, and the text of each.
    skill_dir = s.root / DISK_SKILL
    (skill_dir / "notes").mkdir()
    (skill_dir / "notes" / "a.md").write_text("# Notes\n\n<i>kept as text</i>\n")
    (skill_dir / "blob.bin").write_bytes(bytes(range(256)))
    page.goto(base + f"/skills/{DISK_SKILL}")
    submit(page, "a#files-link")
    for rel in ("SKILL.md", "blob.bin", "notes/a.md"):
        row = page.locator("#file-list tr", has=page.get_by_text(rel, exact=True))
        expect(row).to_contain_text(f"{(skill_dir / rel).stat().st_size} bytes")
    shot("files")
    submit(page, '#file-list a[href$="/notes/a.md"]')
    assert page.locator("pre#file-text").inner_text().rstrip("\n") == (skill_dir / "notes" / "a.md").read_text().rstrip("\n")
    expect(page.locator("i")).to_have_count(0)
    shot("file")
    page.goto(base + f"/skills/{DISK_SKILL}/files/blob.bin")
    expect(page.locator("main")).to_contain_text("256 bytes: not text")

    # --- revert to disk: save the disk skill (a record over it), then revert.
    before = run_cli("load", DISK_SKILL, *s.sources).stdout
    page.goto(base + f"/skills/{DISK_SKILL}")
    page.fill("#content", DISK_SKILL_MD.replace("Disk body.", "Edited in the Studio."))
    assert submit(page, "button#save").status == 200 and flash(page) == SAVED
    assert origin(s, DISK_SKILL) == "store"
    assert "notes/a.md</file>" in run_cli("load", DISK_SKILL, *s.sources).stdout, "the record serves the files"
    expect(page.locator("#manage h2")).to_have_text("Revert to disk")
    expect(page.locator("form#rename-skill")).to_have_count(0)
    shot("revert-offered")
    # Unticked, the browser holds the form back (it is `required`): nothing happens.
    page.click("form#delete-skill button")
    assert page.url == base + f"/skills/{DISK_SKILL}" and origin(s, DISK_SKILL) == "store"
    page.check("#confirm-delete")
    response = submit(page, "form#delete-skill button")
    assert response.status == 200 and page.url == base + f"/skills/{DISK_SKILL}"
    assert flash(page).startswith("Reverted to disk: the store's record is deleted"), flash(page)
    assert origin(s, DISK_SKILL) == "fs"
    assert run_cli("load", DISK_SKILL, *s.sources).stdout == before
    assert page.input_value("#content") == DISK_SKILL_MD
    expect(page.locator("#manage")).to_have_count(0)
    shot("reverted")

    # --- delete a stored skill.
    store_write(s, tmp_path, DOOMED, skill_md(DOOMED, "To be deleted.", "Gone soon."))
    page.goto(base + f"/skills/{DOOMED}")
    expect(page.locator("#manage h2")).to_have_text("Delete or rename")
    page.check("#confirm-delete")
    response = submit(page, "form#delete-skill button")
    assert response.status == 200 and page.url == base + "/skills"
    assert flash(page) == f"Skill {DOOMED} deleted, with its earlier versions."
    assert origin(s, DOOMED) is None
    expect(page.locator(f'table#skills a[href="/skills/{DOOMED}"]')).to_have_count(0)
    shot("deleted")

    # --- delete an agent.
    page.goto(base + "/agents")
    page.fill('form#new-agent input[name="id"]', "bia")
    submit(page, "form#new-agent button")
    assert json.loads(run_cli("store", "profiles", *s.sources).stdout) != []
    shot("agent")
    page.check("#confirm-delete-agent")
    response = submit(page, "form#delete-agent button")
    assert response.status == 200 and page.url == base + "/agents"
    assert flash(page) == "Agent bia deleted, with its profile's history."
    assert json.loads(run_cli("store", "profiles", *s.sources).stdout) == []
    expect(page.locator('a[href="/agents/bia"]')).to_have_count(0)
    shot("agent-deleted")
    pages.check()
