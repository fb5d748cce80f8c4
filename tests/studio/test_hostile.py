"""Hostile input: script in a skill's name, description or body is shown as text and
never runs; a form posted from another site is refused and writes nothing; a
10,000-skill tree lists its first page in under a second."""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from conftest import Setup, start
from support import REPO, SAVED, OtherService, Pages, flash, run_cli, skill_md, write_disk_skill

SCRIPT = "<script>alert(1)</script>"
IMG = '"><img src=x onerror=alert(1)>'
HOSTILE = f"{SCRIPT} {IMG}"


def no_markup_ran(page: Any) -> None:
    """Neither payload became an element: no <img src=x>, no script holding alert(1)."""
    assert page.locator('img[src="x"]').count() == 0, f"an injected <img> is in {page.url}"
    scripts = page.evaluate("() => [...document.scripts].map(s => s.textContent)")
    assert not any("alert(1)" in s for s in scripts), f"an injected <script> is in {page.url}"


def shows_literally(page: Any, *texts: str) -> None:
    body = page.locator("body").inner_text()
    values = page.evaluate("() => [...document.querySelectorAll('input, textarea')].map(e => e.value).join('\\n')")
    for text in texts:
        assert text in body or text in values, f"{text!r} is not shown as text on {page.url}"


def test_script_in_name_description_and_body_is_text(sqlite_setup: Setup, context: Any, pages: Pages) -> None:
    s = sqlite_setup
    base = s.studio.url
    page = pages.watch(context.new_page())

    # A store skill whose description and body hold both payloads.
    name = "hostile"
    text = skill_md(name, f"'{HOSTILE}'", f"# {SCRIPT}\n\n{IMG}\n\nBody {SCRIPT}.")
    page.goto(base + "/skills/new")
    page.fill('input[name="name"]', name)
    page.fill("#content", text)
    with page.expect_navigation():
        page.click("button#save")
    assert flash(page) == SAVED, flash(page)
    no_markup_ran(page)
    assert page.input_value("#content") == text
    pages.shot(page, "hostile-editor")

    # An edit, so that the payloads are in a diff too.
    page.fill("#content", text.replace("Body", "Edited body"))
    with page.expect_navigation():
        page.click("button#save")
    page.goto(base + f"/skills/{name}/versions/0")
    no_markup_ran(page)
    shows_literally(page, SCRIPT, IMG)
    pages.shot(page, "hostile-diff")

    # The list, with the description.
    page.goto(base + "/skills")
    no_markup_ran(page)
    shows_literally(page, HOSTILE)
    pages.shot(page, "hostile-list")

    # The payloads as the skill's name: a name with '/' is refused by the URL rule, the
    # other by the name checks or stored; either way the page shows it as text.
    for hostile_name in (SCRIPT, IMG):
        page.goto(base + "/skills/new")
        page.fill('input[name="name"]', hostile_name)
        page.fill("#content", skill_md(hostile_name, "A hostile name.", "Body."))
        with page.expect_navigation() as nav:
            page.click("button#save")
        no_markup_ran(page)
        if "/" in hostile_name:
            assert nav.value.status == 422, nav.value.status
            expect(page.locator('div.flash.error[role="alert"]')).to_contain_text("/")
        shows_literally(page, hostile_name)
        pages.shot(page, "hostile-name")
    page.goto(base + "/skills")
    no_markup_ran(page)

    # An agent preview: the level-1 text and what a message injects name the skill.
    page.goto(base + "/agents")
    page.fill('form#new-agent input[name="id"]', "bia")
    with page.expect_navigation():
        page.click("form#new-agent button")
    page.goto(base + "/agents/bia")
    page.fill('form#preview [name="message"]', f"{SCRIPT} hostile")
    with page.expect_navigation():
        page.click("form#preview button")
    no_markup_ran(page)
    # The level-1 text is in its own format (Insika's is XML, which escapes `<`
    # itself): what matters is that it is shown as text, whatever its escaping.
    expect(page.locator("pre#level1")).to_contain_text("alert(1)")
    expect(page.locator("#inject")).to_be_attached()
    pages.shot(page, "hostile-preview")
    pages.check()


def test_hostile_disk_skill_shown_as_text(tmp_path: Path, context: Any, pages: Pages) -> None:
    """A disk skill whose frontmatter name is a payload: listed, skipped or warned about,
    its text is shown, never run."""
    root = tmp_path / "skills"
    write_disk_skill(root, "bad-name", skill_md(f"'{IMG}'", f"'{HOSTILE}'", f"{SCRIPT}"))
    write_disk_skill(root, "bad-yaml", f"---\nname: bad-yaml\ndescription: [{SCRIPT}\n---\n\n{IMG}\n")
    s = start("sqlite", tmp_path, root)
    try:
        page = pages.watch(context.new_page())
        page.goto(s.studio.url + "/skills")
        no_markup_ran(page)
        pages.shot(page, "hostile-disk")
        pages.check()
    finally:
        s.close()


@pytest.mark.parametrize("host", ["localhost", "127.0.0.1"], ids=["other-site", "same-host-other-port"])
def test_cross_site_form_post_is_refused(
    sqlite_setup: Setup, context: Any, pages: Pages, other_service: OtherService, host: str
) -> None:
    """A page on another origin auto-submits a form to POST /skills. The browser has
    visited the Studio first, so it holds the Studio's cookie; the post must still get
    403 (wrong Origin, no matching csrf field) and nothing is written. `localhost` is
    another site than `127.0.0.1` (no SameSite cookie sent); `127.0.0.1` on another
    port is the same site (cookie sent) but another origin."""
    s = sqlite_setup
    port = other_service.port
    name = "forged"
    other_service.page = f"""<!doctype html><html lang="en"><body>
<form id="f" method="post" action="{s.studio.url}/skills">
<input name="name" value="{name}">
<input name="csrf" value="guessed">
<input name="began" value="">
<textarea name="content">---
name: {name}
description: Written by another site.
---

Forged.
</textarea></form>
<script>document.getElementById('f').submit()</script></body></html>""".encode()
    page = pages.watch(context.new_page())
    page.goto(s.studio.url + "/skills")  # the Studio's cookie is now in the browser
    with page.expect_response(lambda r: r.request.method == "POST") as posted:
        page.goto(f"http://{host}:{port}/")
    assert posted.value.status == 403, posted.value.status
    assert run_cli("load", name, *s.sources, check=False).returncode != 0, "the forged skill was written"
    status, listing = s.studio.get("/skills")
    assert status == 200 and f"/skills/{name}" not in listing


def test_ten_thousand_skills_list_fast(tmp_path: Path, context: Any, pages: Pages) -> None:
    """10,000 disk skills (bench/gen_tree.py): the first page of /skills, from
    navigation start to the load event, in under a second (the median of three); 100 rows and a next link."""
    root = tmp_path / "tree10k"
    subprocess.run([sys.executable, str(REPO / "bench" / "gen_tree.py"), str(root), "10000"], check=True)
    s = start("sqlite", tmp_path, root)
    try:
        page = pages.watch(context.new_page())
        # The Studio may answer before its catalog is read: wait until it lists the tree.
        deadline = time.monotonic() + 60
        while True:
            page.goto(s.studio.url + "/skills")
            if page.locator("table#skills a[href='/skills/skill-00000']").count() == 1:
                break
            assert time.monotonic() < deadline, "the 10,000 skills never listed"
            time.sleep(0.5)
        times = []
        for _ in range(3):
            page.goto(s.studio.url + "/skills")
            times.append(page.evaluate(
                "() => { const n = performance.getEntriesByType('navigation')[0]; return n.loadEventEnd - n.startTime; }"))
        print(f"\n/skills over 10,000 skills: navigation to load event {', '.join(f'{t:.0f}' for t in times)} ms")
        expect(page.locator("table#skills a[href^='/skills/skill-']")).to_have_count(100)
        expect(page.locator("a[rel=next]")).to_have_count(1)
        assert statistics.median(times) < 1000, f"first page of 10,000 skills took {times} ms"
        submit_next = page.locator("a[rel=next]")
        with page.expect_navigation():
            submit_next.click()
        expect(page.locator("table#skills a[href='/skills/skill-00100']")).to_have_count(1)
        expect(page.locator("a[rel=prev]")).to_have_count(1)
        pages.shot(page, "page-2")
        pages.check()
    finally:
        s.close()
