"""Live reload when the root itself is replaced, under a running server: moved away and
made again (`mv root root.old; mkdir root`), a link swapped atomically to another release
(`ln -sfn release2 root.tmp && mv -T root.tmp root`, the usual deploy), or made after the
server started. The catalog, `tools/call` and later changes must all follow the new
directory, and nothing of the old one may stay."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import anyio
import mcp_types as t
import pytest

from support import TRANSPORTS, cli_load, connect, digest, skill_uri, skills_get, skills_list_pages, write_tree

pytestmark = pytest.mark.anyio

# The watcher reloads 200 ms after a burst of changes goes quiet (a swap is seen in about
# 0.25 s); WAIT bounds every wait on a slow, shared machine, PROMPT how late a swap may be
# seen: the debounce's 1 s at most, plus a reload.
WAIT = 10.0
PROMPT = 3.0

COMBOS = [pytest.param(tr, "legacy", id=tr) for tr in TRANSPORTS]


def skill_md(name: str, where: str) -> bytes:
    return f"---\nname: {name}\ndescription: {name} in {where}.\n---\n\n{name} from {where}.\n".encode()


def skills(where: str, *names: str) -> dict[str, dict[str, bytes]]:
    return {name: {"SKILL.md": skill_md(name, where)} for name in names}


class Notified:
    """Counts resources/list_changed notifications."""

    def __init__(self) -> None:
        self.count = 0

    async def __call__(self, message: Any) -> None:
        if isinstance(message, t.ResourceListChangedNotification):
            self.count += 1


async def catalog(client: Any) -> list[str]:
    """The names `skills/list` lists, sorted."""
    return sorted(e["frontmatter"]["name"] for page in await skills_list_pages(client) for e in page["skills"])


async def wait_for(client: Any, names: list[str]) -> float:
    """Waits until the catalog is exactly `names`; returns how long it took."""
    start = time.monotonic()
    seen: list[str] = []
    with anyio.move_on_after(WAIT):
        while (seen := await catalog(client)) != names:
            await anyio.sleep(0.05)
        return time.monotonic() - start
    raise AssertionError(f"the catalog is still {seen} after {WAIT}s, not {names}")


async def assert_quiet(notified: Notified) -> None:
    """No reload follows once a change is served: watching the root again and walking it
    make no change of their own."""
    before = notified.count
    await anyio.sleep(1.5)
    assert notified.count == before, f"{notified.count - before} more list_changed with nothing changed"


async def assert_serves(client: Any, args: list[str], names: list[str], gone: list[str]) -> None:
    """`tools/call` gives what `skilldeck load` gives now, byte for byte: each of `names`
    from the files on disk, each of `gone` an error listing exactly `names`."""
    for name in [*names, *gone]:
        expected, is_error = cli_load(name, args)
        assert is_error == (name in gone), (name, expected)
        result = await client.call_tool("skill", {"name": name})
        assert bool(result.is_error) == is_error, name
        assert result.content[0].text == expected, name


@pytest.mark.parametrize(("transport", "era"), COMBOS)
async def test_root_moved_away_and_made_again(transport: str, era: str, tmp_path: Path) -> None:
    root = write_tree(tmp_path / "skills", skills("first", "alpha", "beta"))
    args = ["--root", str(root)]
    notified = Notified()
    async with connect(transport, era, args, message_handler=notified) as client:
        assert await catalog(client) == ["alpha", "beta"]
        # The root's parent is watched now: its other entries changing is no change.
        (tmp_path / "unrelated.txt").write_bytes(b"not a skill\n")
        (tmp_path / "unrelated.txt").unlink()
        await assert_quiet(notified)
        assert notified.count == 0

        root.rename(tmp_path / "skills.old")
        write_tree(root, skills("second", "zeta"))
        await wait_for(client, ["zeta"])
        assert notified.count >= 1
        await assert_serves(client, args, ["zeta"], ["alpha", "beta"])

        # Later changes in the new root are seen; changes in the old one are not.
        (root / "zeta" / "SKILL.md").write_bytes(skill_md("zeta", "an edit"))
        write_tree(tmp_path / "skills.old", skills("the old root", "ghost"))
        write_tree(root, skills("second", "eta"))
        await wait_for(client, ["eta", "zeta"])
        await assert_serves(client, args, ["eta", "zeta"], ["alpha", "beta", "ghost"])
        assert "zeta from an edit." in (await client.call_tool("skill", {"name": "zeta"})).content[0].text
        await assert_quiet(notified)

        # Removed and made again: the new directory may even reuse the old one's inode.
        shutil.rmtree(root)
        write_tree(root, skills("third", "theta"))
        await wait_for(client, ["theta"])
        write_tree(root, skills("third", "iota"))
        await wait_for(client, ["iota", "theta"])
        await assert_serves(client, args, ["iota", "theta"], ["eta", "zeta"])


def swap(base: Path, link: str, target: str) -> None:
    """Points `base/link` at `target` in one rename, as deploy tools do."""
    subprocess.run(["ln", "-sfn", target, f"{link}.tmp"], cwd=base, check=True)
    subprocess.run(["mv", "-T", f"{link}.tmp", link], cwd=base, check=True)


@pytest.mark.parametrize(("transport", "era"), COMBOS)
async def test_root_link_swapped_to_another_release(transport: str, era: str, tmp_path: Path) -> None:
    write_tree(tmp_path / "release1", skills("release1", "old-only", "one"))
    write_tree(tmp_path / "release2", skills("release2", "new-only", "one"))
    # Unpacked from archives, as releases are: one's SKILL.md has the same size and mtime
    # in both, only its bytes differ.
    for release in ("release1", "release2"):
        os.utime(tmp_path / release / "one" / "SKILL.md", (1_700_000_000, 1_700_000_000))
    (tmp_path / "current").symlink_to("release1")
    args = ["--root", str(tmp_path / "current")]
    notified = Notified()
    async with connect(transport, era, args, message_handler=notified) as client:
        assert await catalog(client) == ["old-only", "one"]
        await assert_serves(client, args, ["old-only", "one"], [])

        swap(tmp_path, "current", "release2")
        took = await wait_for(client, ["new-only", "one"])
        assert took < PROMPT, f"the swap took {took:.1f}s to be seen"
        assert notified.count >= 1
        # One generation: release2's list and release2's bodies, nothing of release1.
        await assert_serves(client, args, ["new-only", "one"], ["old-only"])
        assert "one from release2." in (await client.call_tool("skill", {"name": "one"})).content[0].text
        # The files served are release2's too, read through the link as it points now.
        new_md = skill_md("one", "release2")
        read = (await client.read_resource(skill_uri("one"))).contents[0]
        assert isinstance(read, t.TextResourceContents) and read.text.encode() == new_md
        entry = (await skills_get(client, skill_uri("one")))["skill"]
        assert entry["resources"] == [{"uri": skill_uri("one"), "digest": digest(new_md), "size": len(new_md)}]

        await assert_quiet(notified)

        # The watch moved with the link: release2 is watched, release1 no longer.
        write_tree(tmp_path / "release1", skills("release1", "stale"))
        write_tree(tmp_path / "release2", skills("release2", "later"))
        await wait_for(client, ["later", "new-only", "one"])
        await assert_serves(client, args, ["later", "new-only", "one"], ["old-only", "stale"])

        # And back again, a rollback.
        swap(tmp_path, "current", "release1")
        await wait_for(client, ["old-only", "one", "stale"])
        await assert_serves(client, args, ["old-only", "one", "stale"], ["later", "new-only"])


@pytest.mark.parametrize(("transport", "era"), COMBOS)
async def test_root_made_after_start(transport: str, era: str, tmp_path: Path) -> None:
    root = tmp_path / "later"
    args = ["--root", str(root)]
    async with connect(transport, era, args) as client:
        assert await catalog(client) == []
        write_tree(root, skills("later", "late"))
        await wait_for(client, ["late"])
        await assert_serves(client, args, ["late"], [])
        write_tree(root, skills("later", "later-still"))
        await wait_for(client, ["late", "later-still"])



@pytest.mark.parametrize(("transport", "era"), COMBOS)
async def test_root_whose_parent_is_missing_still_serves(transport: str, era: str, tmp_path: Path) -> None:
    """Neither the root nor its parent exist: nothing can be watched for it (it is served
    as it was at the start), and the server says so and goes on serving."""
    root = tmp_path / "missing" / "skills"
    data = tmp_path / "data.json"
    data.write_text('[{"name": "delta", "description": "A data skill.", "content": "Delta body."}]')
    args = ["--root", str(root), "--skills", str(data)]
    async with connect(transport, era, args) as client:
        assert await catalog(client) == ["delta"]
        # `skilldeck load` refuses a root that is not there (exit 2); the server serves without it.
        await assert_serves(client, ["--skills", str(data)], ["delta"], ["absent"])
