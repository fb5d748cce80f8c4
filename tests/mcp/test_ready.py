"""Ready before the walk ends: `serve` answers `initialize` while a large catalog is still
being read (its instructions then say so), and a request that needs the catalog waits for it,
with `notifications/progress` when it carries a progressToken, and gets the right answer.

The catalog is made slow by size: 8,000 skills take the debug binary seconds to read (the
release binary some 100 ms), against a few milliseconds to answer `initialize` with
`--instructions-wait 0`. A loaded machine only widens that gap, so nothing here races: the
assertions are about order and content, never about wall-clock bounds."""

from __future__ import annotations

import itertools
import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

from mcp.shared.exceptions import MCPError

from support import ERAS, TRANSPORTS, RawStdio, Tree, cli_load, connect, skill_uri

pytestmark = pytest.mark.anyio

COMBOS = [pytest.param(tr, era, id=f"{tr}-{era}") for tr, era in itertools.product(TRANSPORTS, ERAS)]
LOADING = (
    "This server's skill catalog is still being read, so it is not listed here. Call find_skills with a few "
    "words of the task to search every skill, or skill with a skill's name to load it; both answer once the "
    "catalog is read."
)
SKILLS = 8000
TARGET = "s07777"


@pytest.fixture(scope="module")
def large_tree(tmp_path_factory: pytest.TempPathFactory) -> Tree:
    root = tmp_path_factory.mktemp("large")
    for i in range(SKILLS):
        d = root / f"s{i:05d}"
        d.mkdir()
        (d / "SKILL.md").write_bytes(
            f"---\nname: s{i:05d}\ndescription: Generated skill number {i}.\nmetadata:\n  n: {i}\n---\n\nBody {i}.\n".encode()
        )
    return Tree(root=root, args=["--root", str(root), "--instructions-wait", "0"], names=[])


@pytest.mark.parametrize(("transport", "era"), COMBOS)
async def test_initialize_is_answered_before_the_catalog_and_a_call_waits_for_it(
    transport: str, era: str, large_tree: Tree
) -> None:
    progress: list[tuple[float, str | None]] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append((value, message))

    async with connect(transport, era, large_tree.args) as client:
        assert client.instructions == LOADING
        result = await client.call_tool("skill", {"name": TARGET}, progress_callback=on_progress)
        expected, _ = cli_load(TARGET, large_tree.args[:2])
        assert not result.is_error
        assert result.content[0].text == expected  # type: ignore[union-attr]
        # Told to search, the client is offered find_skills, and it answers from the whole catalog.
        tools = [tool.name for tool in (await client.list_tools()).tools]
        assert tools == ["skill", "find_skills"]
        found = await client.call_tool("find_skills", {"query": TARGET, "limit": 1})
        assert f"\n1. {TARGET}: " in found.content[0].text  # type: ignore[union-attr]
    # The call was made while the catalog was still being read: it said so at once, and after.
    assert progress, "no notifications/progress while the call waited"
    assert all(message and message.startswith("reading the skill catalog (") for _, message in progress), progress
    assert [value for value, _ in progress] == sorted(value for value, _ in progress)


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.filterwarnings("ignore::DeprecationWarning")
async def test_files_followed_before_the_catalog_is_read_are_judged_by_its_publication(
    transport: str, large_tree: Tree, tmp_path: Path
) -> None:
    """A subscription made while the catalog is read waits for its publication, as a read
    does: a served file is followed, one not served is refused, never guessed at."""
    served, unknown = skill_uri(TARGET), skill_uri("nope")
    async with connect(transport, "auto", large_tree.args) as client:
        assert client.instructions == LOADING
        async with client.listen(resources_list_changed=True, resource_subscriptions=[served, unknown]) as sub:
            assert sub.honored.resource_subscriptions == [served]
    # Started again, it would answer with the level 1 the first one kept: not in this test.
    fresh = {"XDG_CACHE_HOME": str(tmp_path / "cache")}
    async with connect(transport, "legacy", large_tree.args, env=fresh) as client:
        assert client.instructions == LOADING
        await client.subscribe_resource(served)
        with pytest.raises(MCPError) as caught:
            await client.subscribe_resource(unknown)
        assert (caught.value.error.code, caught.value.error.data) == (-32602, {"uri": unknown})


def test_early_lists_answer_at_once_and_calls_wait_for_the_whole_catalog(large_tree: Tree) -> None:
    """Raw stdio: requests sent back to back right after `initialize`, before the catalog is
    read. A list answers at once (empty: a host registers a server only once its lists have
    answered, and gives up on one that is not ready within seconds), and the client is told
    the lists changed once the catalog is published; a call or a read waits, with progress,
    and is answered in full from the whole catalog (issue 20, item 1)."""
    server = RawStdio(large_tree.args)
    try:
        assert server.handshake()["instructions"] == LOADING
        ids = [server.new_id() for _ in range(3)]
        server.send({"jsonrpc": "2.0", "id": ids[0], "method": "prompts/list"})
        server.send({"jsonrpc": "2.0", "id": ids[1], "method": "tools/call",
                     "params": {"name": "skill", "arguments": {"name": TARGET}, "_meta": {"progressToken": 7}}})
        server.send({"jsonrpc": "2.0", "id": ids[2], "method": "resources/read",
                     "params": {"uri": f"skill://{TARGET}/SKILL.md"}})
        answers: dict[int, dict[str, Any]] = {}
        notes: list[dict[str, Any]] = []
        changed: list[str] = []
        order: list[str] = []
        while len(answers) < 3 or len(changed) < 2:
            message = server.recv(timeout=120)
            if message.get("id") in ids:
                answers[message["id"]] = message
                order.append(str(message["id"]))
            elif message.get("method") == "notifications/progress":
                notes.append(message)
                order.append("progress")
            else:
                assert message.get("method") in ("notifications/prompts/list_changed",
                                                  "notifications/resources/list_changed"), message
                changed.append(message["method"])
                order.append("changed")
        # The list answered before the catalog was published: before the change and before the
        # call's answer (the call's progress may come first: the list waits a moment for it).
        listed = order.index(str(ids[0]))
        assert listed < order.index("changed") and listed < order.index(str(ids[1])), order
        assert answers[ids[0]]["result"]["prompts"] == []
        assert sorted(changed) == ["notifications/prompts/list_changed", "notifications/resources/list_changed"]
        # Listed again after the change: every skill, the first page and the rest by cursor.
        page = server.request("prompts/list")["result"]
        prompts = len(page["prompts"])
        while page.get("nextCursor"):
            page = server.request("prompts/list", {"cursor": page["nextCursor"]})["result"]
            prompts += len(page["prompts"])
        assert prompts == SKILLS
        call = answers[ids[1]]
        assert call["result"]["content"][0]["text"] == cli_load(TARGET, large_tree.args[:2])[0]
        read = answers[ids[2]]
        assert read["result"]["contents"][0]["text"] == (large_tree.root / TARGET / "SKILL.md").read_text()
        assert notes and all(m["params"]["progressToken"] == 7 for m in notes), notes
    finally:
        server.close()


def test_the_watch_set_up_after_a_slow_catalog_sees_an_edit(large_tree: Tree, tmp_path: Path) -> None:
    """An edit made while the first catalog is read reaches the client (the walk may have read
    the file before it: the watcher catches up once the catalog is in), and so does one made
    after, both with resources/list_changed and the new text."""
    root = tmp_path / "copy"
    root.mkdir()
    for i in range(0, SKILLS, 2):
        name = f"s{i:05d}"
        (root / name).mkdir()
        (root / name / "SKILL.md").write_bytes((large_tree.root / name / "SKILL.md").read_bytes())
    server = RawStdio(["--root", str(root), "--instructions-wait", "0"])
    try:
        assert server.handshake()["instructions"] == LOADING
        first = root / "s00000" / "SKILL.md"
        first.write_text("---\nname: s00000\ndescription: Edited while loading.\n---\n\nNew body.\n")

        def text_of(name: str) -> Any:
            answer = server.request("tools/call", {"name": "skill", "arguments": {"name": name}}, timeout=120)
            return answer["result"]["content"][0]["text"]

        deadline = time.monotonic() + 60
        while "New body." not in text_of("s00000"):
            assert time.monotonic() < deadline, "the edit made while loading never reached the client"
            time.sleep(0.2)
        last = root / f"s{SKILLS - 2:05d}" / "SKILL.md"
        last.write_text(f"---\nname: s{SKILLS - 2:05d}\ndescription: Edited after.\n---\n\nLater body.\n")
        while "Later body." not in text_of(f"s{SKILLS - 2:05d}"):
            assert time.monotonic() < deadline, "the edit made after loading never reached the client"
            time.sleep(0.2)
    finally:
        server.close()


def test_serve_summarises_the_catalog_warnings_on_stderr(tmp_path: Path) -> None:
    for i in range(8):
        (tmp_path / f"d{i}").mkdir()
        (tmp_path / f"d{i}" / "SKILL.md").write_bytes(b"---\nname: dup\ndescription: Same.\n---\n")
    for verbose, shown in ((False, 5), (True, 7)):
        server = RawStdio(["--root", str(tmp_path), *(["--verbose"] if verbose else [])])
        try:
            server.handshake()
            server.request("prompts/list")  # the catalog is in: its warnings are printed
            deadline = time.monotonic() + 15
            while bytes(server.stderr).count(b"\n") < (7 if verbose else 6):
                assert time.monotonic() < deadline, bytes(server.stderr)
                time.sleep(0.05)
            time.sleep(0.2)
            lines = bytes(server.stderr).decode().splitlines()
            dups = [line for line in lines if line.startswith('skilldeck: warning: duplicate skill name "dup"')]
            assert [line.split(" (")[1].split("/")[-2] for line in dups] == [f"d{i}" for i in range(1, 1 + shown)]
            summary = [line for line in lines if "warnings in all" in line]
            if verbose:
                assert summary == []
            else:
                assert summary == [
                    "skilldeck: warning: 7 warnings in all (7 duplicate-name); the first 5 are above, --verbose prints every one"
                ]
        finally:
            server.close()


def cache_files() -> list[Path]:
    """The level-1 cache files of this test's servers (conftest's own_cache_dir)."""
    return sorted((Path(os.environ["XDG_CACHE_HOME"]) / "skilldeck").glob("level1-*.json"))


def published_and_kept(server: RawStdio) -> None:
    """Waits for the catalog (a call needs it whole), then for its level 1 to be kept:
    the cache is written on a thread of its own after the first publication."""
    assert not server.request("tools/call", {"name": "skill", "arguments": {"name": TARGET}}, timeout=120)["result"][
        "isError"
    ]
    for _ in range(600):
        try:
            if cache_files() and json.loads(cache_files()[0].read_text()).get("instructions"):
                return
        except ValueError:
            pass  # the earlier file, not yet replaced
        time.sleep(0.05)
    raise AssertionError("the level 1 was never kept")


def test_a_restarted_server_answers_initialize_with_the_last_runs_level_1(large_tree: Tree) -> None:
    """Issue 20, item 1: the first start says the catalog is loading and keeps its level 1
    once read; a second start, as the catalog is still being read, answers `initialize` with
    that level 1 at once. A cache cut short, or over a root that changed, is not used."""
    waited = RawStdio([*large_tree.args[:2], "--instructions-wait", "600000"])
    try:
        real = waited.handshake()["instructions"]
    finally:
        waited.close()
    assert real.startswith("Skills provide") and real.endswith("to search every skill.)")
    for file in cache_files():
        file.unlink()  # the waiting server's own (another command line)

    def start() -> tuple[RawStdio, str]:
        server = RawStdio(large_tree.args)
        return server, server.handshake()["instructions"]

    def loading_then_kept() -> RawStdio:
        """A start told the catalog is loading, which keeps its level 1 once it is read."""
        server, said = start()
        try:
            assert said == LOADING
            published_and_kept(server)
        finally:
            server.close()
        return server

    loading_then_kept()
    second, said = start()
    try:
        assert said == real
        # Its tools are offered as to a client told the catalog is loading: both.
        assert [t["name"] for t in second.request("tools/list")["result"]["tools"]] == ["skill", "find_skills"]
    finally:
        second.close()

    # Cut short: not used, said so, and written again once the catalog is read.
    [file] = cache_files()
    file.write_bytes(file.read_bytes()[:100])
    third = loading_then_kept()
    assert b"level-1 cache is not one this version wrote" in third.stderr
    assert json.loads(file.read_text())["instructions"] == real

    # A root that changed since (a skill added): not used.
    added = large_tree.root / "zz-added"
    added.mkdir()
    (added / "SKILL.md").write_text("---\nname: zz-added\ndescription: Added.\n---\n")
    try:
        fourth, said = start()
        fourth.close()
        assert said == LOADING
    finally:
        (added / "SKILL.md").unlink()
        added.rmdir()
