"""Live reload: editing a skill tree under a running server sends
`notifications/resources/list_changed`, and the new bytes are what the server serves next."""

from __future__ import annotations

import base64
import itertools
import json
import os
import shutil
import subprocess
from typing import Any

import anyio
import mcp_types as t
import pytest
from mcp.client.subscriptions import ResourcesListChanged

from support import (
    ERAS,
    MAIN_TREE,
    TRANSPORTS,
    all_resources,
    cli_load,
    connect,
    digest,
    run_cli,
    skill_uri,
    skills_get,
    write_tree,
)

pytestmark = pytest.mark.anyio

COMBOS = [pytest.param(tr, era, id=f"{tr}-{era}") for tr, era in itertools.product(TRANSPORTS, ERAS)]


class Changes:
    """A message handler that counts resources/list_changed (and prompts/list_changed) notifications."""

    def __init__(self) -> None:
        self.count = 0
        self.prompts = 0
        self.event = anyio.Event()

    async def __call__(self, message: Any) -> None:
        if isinstance(message, t.ResourceListChangedNotification):
            self.count += 1
            self.event.set()
        elif isinstance(message, t.PromptListChangedNotification):
            self.prompts += 1

    async def wait(self, timeout: float = 15) -> None:
        with anyio.fail_after(timeout):
            await self.event.wait()
        self.event = anyio.Event()


def text_of(result: t.ReadResourceResult) -> bytes:
    contents = result.contents[0]
    if isinstance(contents, t.TextResourceContents):
        return contents.text.encode()
    return base64.b64decode(contents.blob)


async def settle(changes: Changes) -> None:
    """Let a burst of events end, so the next edit is seen on its own."""
    await anyio.sleep(0.5)
    changes.event = anyio.Event()


@pytest.mark.parametrize(("transport", "era"), COMBOS)
async def test_edit_add_remove_notify_and_serve_new_bytes(transport: str, era: str, tmp_path: Any) -> None:
    root = write_tree(tmp_path / "skills", {k: v for k, v in MAIN_TREE.items() if k in ("alpha", "beta")})
    args = ["--root", str(root)]
    changes = Changes()
    async with connect(transport, era, args, message_handler=changes) as client:
        if era == "auto":
            # 2026-07-28: change notifications arrive on a subscriptions/listen stream
            async with client.listen(resources_list_changed=True) as sub:
                await run_edits(client, changes, root, args, sub)
        else:
            await run_edits(client, changes, root, args, None)


async def run_edits(client: Any, changes: Changes, root: Any, args: list[str], sub: Any) -> None:
    async def wait_change() -> None:
        if sub is None:
            await changes.wait()
            return
        with anyio.fail_after(15):
            async for event in sub:
                if isinstance(event, ResourcesListChanged):
                    return

    before, _ = cli_load("beta", args)
    assert (await client.call_tool("skill", {"name": "beta"})).content[0].text == before

    # 1. edit a SKILL.md body
    new_md = b"---\nname: beta\ndescription: Edited while serving.\n---\n\nA brand-new body.\n"
    (root / "beta" / "SKILL.md").write_bytes(new_md)
    await wait_change()
    assert text_of(await client.read_resource(skill_uri("beta"))) == new_md
    after, _ = cli_load("beta", args)
    assert after != before
    assert (await client.call_tool("skill", {"name": "beta"})).content[0].text == after
    entry = (await skills_get(client, skill_uri("beta")))["skill"]
    assert entry["frontmatter"]["description"] == "Edited while serving."
    assert entry["resources"] == [{"uri": skill_uri("beta"), "digest": digest(new_md), "size": len(new_md)}]

    # 2. add a file to a skill
    if sub is None:
        await settle(changes)
    (root / "alpha" / "added.md").write_bytes(b"# Added\n")
    await wait_change()
    uris = [str(r.uri) for r in (await client.list_resources()).resources]
    assert skill_uri("alpha", "added.md") in uris
    assert text_of(await client.read_resource(skill_uri("alpha", "added.md"))) == b"# Added\n"

    # 3. add a whole skill, then remove one
    if sub is None:
        await settle(changes)
    write_tree(root, {"zeta": {"SKILL.md": b"---\nname: zeta\ndescription: Added live.\n---\n\nZeta.\n"}})
    await wait_change()
    assert (await skills_get(client, skill_uri("zeta")))["skill"]["uri"] == skill_uri("zeta")
    assert not (await client.call_tool("skill", {"name": "zeta"})).is_error
    if sub is None:
        await settle(changes)
    shutil.rmtree(root / "beta")
    await wait_change()
    result = await client.call_tool("skill", {"name": "beta"})
    assert result.is_error
    assert skill_uri("beta") not in [str(r.uri) for r in (await client.list_resources()).resources]


def fresh_store(kind: str, tmp_path: Any) -> str:
    """A new, empty store: a SQLite file, or a PostgreSQL schema of its own on the
    server `SKILLDECK_TEST_POSTGRES` names (scripts/test starts one)."""
    if kind == "sqlite":
        return str(tmp_path / "store.sqlite")
    url = os.environ.get("SKILLDECK_TEST_POSTGRES")
    if not url:
        # In CI the PostgreSQL variants must run, never pass as skipped.
        if os.environ.get("CI"):
            pytest.fail("CI is set but SKILLDECK_TEST_POSTGRES is not: the PostgreSQL tests must run in CI")
        pytest.skip("set SKILLDECK_TEST_POSTGRES to a PostgreSQL URL to run the PostgreSQL store tests")
    schema = f"mcp_{os.getpid()}_{next(SCHEMAS)}"
    subprocess.run(["psql", "-q", url, "-c", f"DROP SCHEMA IF EXISTS {schema} CASCADE; CREATE SCHEMA {schema}"],
                   check=True)
    return f"{url}{'&' if '?' in url else '?'}options=-c%20search_path%3D{schema}"


SCHEMAS = itertools.count()


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_store_write_notifies_and_serves_the_record(transport: str, kind: str, tmp_path: Any) -> None:
    """Another process writes to the store the server reads; the server hears of it
    (SQLite's data_version, PostgreSQL's NOTIFY), reloads and serves the record."""
    root = write_tree(tmp_path / "skills", {"beta": MAIN_TREE["beta"]})
    store = fresh_store(kind, tmp_path)
    args = ["--root", str(root), "--store", store]
    record = b"---\nname: stored\ndescription: Written while serving.\n---\n\nStored body.\n"
    (tmp_path / "stored.md").write_bytes(record)
    changes = Changes()
    async with connect(transport, "legacy", args, message_handler=changes) as client:
        assert (await client.call_tool("skill", {"name": "stored"})).is_error
        run_cli("store", "write", "stored", "--file", str(tmp_path / "stored.md"), "--store", store, check=True)
        await changes.wait()
        assert text_of(await client.read_resource(skill_uri("stored"))) == record
        expected, _ = cli_load("stored", args)
        assert (await client.call_tool("skill", {"name": "stored"})).content[0].text == expected
        assert "stored" in [p.name for p in (await client.list_prompts()).prompts]
        assert changes.prompts >= 1, "prompts/list_changed was not sent though a skill was added"


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
async def test_serve_agent_takes_its_profile_from_the_store(kind: str, tmp_path: Any) -> None:
    """`serve --store S --agent ID` with no profile flag serves the profile `skilldeck store
    profile ID` kept there: what it exposes and what load_skill answers are exactly what the
    flags saying the same profile give."""
    root = write_tree(tmp_path / "skills", MAIN_TREE)
    store = fresh_store(kind, tmp_path)
    profile = ["--allow", "alpha", "--allow", "gamma", "--eager", "gamma"]
    run_cli("store", "profile", "shop", *profile, "--store", store, check=True)
    stored = ["--root", str(root), "--store", store, "--agent", "shop"]
    flagged = [*stored, *profile]
    # Instructions compared: wait for the catalog however loaded the machine is.
    wait = ["--instructions-wait", "60000"]
    async with connect("stdio", "auto", [*stored, *wait]) as client:
        assert [tool.name for tool in (await client.list_tools()).tools] == ["load_skill"]
        assert {str(r.uri).split("/")[2] for r in await all_resources(client)} == {"alpha", "gamma"}
        answers = {}
        for name in MAIN_TREE:
            result = await client.call_tool("load_skill", {"name": name})
            answers[name] = (result.content[0].text, bool(result.is_error))
        instructions = client.instructions
    assert answers == {name: cli_load(name, flagged) for name in MAIN_TREE}
    assert answers["beta"] == ("skill 'beta' not available for this agent", True)
    async with connect("stdio", "auto", [*flagged, *wait]) as client:
        assert client.instructions == instructions


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
async def test_a_stored_profile_edit_reaches_a_running_server(kind: str, tmp_path: Any) -> None:
    """Another process (the Studio, here `skilldeck store profile`) edits the profile a running
    `serve --agent` took from the store: the server hears of it as of a record write, and then
    serves the new profile, exactly as a new `skilldeck load` reads it; a deleted profile leaves
    the id alone, which may use every skill."""
    root = write_tree(tmp_path / "skills", MAIN_TREE)
    store = fresh_store(kind, tmp_path)
    run_cli("store", "profile", "shop", "--allow", "alpha", "--store", store, check=True)
    args = ["--root", str(root), "--store", store, "--agent", "shop"]
    changes = Changes()

    async def served(client: Any) -> dict[str, Any]:
        answers = {}
        for name in MAIN_TREE:
            result = await client.call_tool("load_skill", {"name": name})
            answers[name] = (result.content[0].text, bool(result.is_error))
        assert answers == {name: cli_load(name, args) for name in MAIN_TREE}
        return {
            "resources": {str(r.uri).split("/")[2] for r in await all_resources(client)},
            "prompts": {p.name for p in (await client.list_prompts()).prompts},
            "refused": {name for name, (_, refused) in answers.items() if refused},
        }

    async with connect("stdio", "legacy", args, message_handler=changes) as client:
        assert await served(client) == {"resources": {"alpha"}, "prompts": {"alpha"}, "refused": {"beta", "gamma"}}
        edit = ["--allow", "alpha", "--allow", "beta", "--eager", "alpha"]
        run_cli("store", "profile", "shop", *edit, "--store", store, check=True)
        await changes.wait()
        # alpha is eager now: served in full every turn, so neither a prompt nor load_skill's.
        assert await served(client) == {
            "resources": {"alpha", "beta"}, "prompts": {"beta"}, "refused": {"alpha", "gamma"}
        }
        assert changes.prompts >= 1, "prompts/list_changed was not sent though the prompts changed"
        await settle(changes)
        run_cli("store", "profile", "shop", "--delete", "--store", store, check=True)
        await changes.wait()
        everything = set(MAIN_TREE)
        assert await served(client) == {"resources": everything, "prompts": everything, "refused": set()}


async def test_a_change_to_the_projects_lock_alone_reloads_its_installed_skills(tmp_path: Any) -> None:
    """`serve --locked` over a project's .agents/skills: the lock is outside the root, yet
    rewriting it (a `git checkout` of another lock, a teammate's merge) reaches clients."""
    project = tmp_path / "p"
    alpha = b"---\nname: alpha\ndescription: Installed.\n---\n\nAlpha.\n"
    root = write_tree(project / ".agents" / "skills", {"alpha": {"SKILL.md": alpha}})
    entry = {"source": "acme/skills", "sourceType": "github", "computedHash": "0" * 64,
             "files": {"SKILL.md": digest(alpha)}}
    lock = project / "skills-lock.json"
    lock.write_text(json.dumps({"version": 1, "skills": {"alpha": entry}}))
    changes = Changes()
    async with connect("stdio", "legacy", ["--locked", "--root", str(root)], message_handler=changes) as client:
        assert skill_uri("alpha") in [str(r.uri) for r in await all_resources(client)]
        # The lock no longer names alpha: --locked serves it no more.
        lock.write_text(json.dumps({"version": 1, "skills": {}}))
        await changes.wait()
        assert skill_uri("alpha") not in [str(r.uri) for r in await all_resources(client)]
        assert (await client.call_tool("skill", {"name": "alpha"})).is_error
        # Named again, it is back.
        await settle(changes)
        lock.write_text(json.dumps({"version": 1, "skills": {"alpha": entry}}))
        await changes.wait()
        assert skill_uri("alpha") in [str(r.uri) for r in await all_resources(client)]
