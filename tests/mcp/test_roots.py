"""Where skills are found when `serve` is given no root: the conventional places of the
working directory's project and of `$HOME` (a fake one here), then of the project the
client names in its MCP `roots`, followed as they change; and an empty catalog that says
where it looked, on stderr and in `instructions`."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import anyio
import mcp_types as t
import pytest
from mcp import Client, StdioServerParameters
from mcp.client import advertise

from support import BIN, SKILLS_EXT, http_server, write_tree

pytestmark = pytest.mark.anyio


def skill(name: str, description: str) -> dict[str, dict[str, bytes]]:
    return {name: {"SKILL.md": f"---\nname: {name}\ndescription: {description}\n---\n\nBody of {name}.\n".encode()}}


def places(project: Path, home: Path) -> list[str]:
    """Every conventional place, in precedence order."""
    return [str(project / rel) for rel in (".agents/skills", ".claude/skills", ".github/skills")] + [
        str(home / rel) for rel in (".agents/skills", ".claude/skills", ".codex/skills", ".copilot/skills")
    ]


def no_skills(looked_in: list[str]) -> str:
    return (
        "This server has no skills to offer right now: its catalog is empty. It looked for skills "
        f"(directories holding a SKILL.md) in {', '.join(looked_in)}. Do not call its tools to look for skills."
    )


class Roots:
    """The client's roots, as its list_roots_callback answers them, and the list_changed notifications it gets."""

    def __init__(self, *paths: Path) -> None:
        self.paths = list(paths)
        self.asked = 0
        self.changed = 0
        self.event = anyio.Event()

    async def list_roots(self, _context: Any) -> t.ListRootsResult:
        self.asked += 1
        return t.ListRootsResult(roots=[t.Root(uri=path.as_uri(), name=path.name) for path in self.paths])

    async def messages(self, message: Any) -> None:
        if isinstance(message, t.PromptListChangedNotification):
            self.changed += 1
            self.event.set()

    async def wait_change(self, timeout: float = 15) -> None:
        with anyio.fail_after(timeout):
            await self.event.wait()
        self.event = anyio.Event()


def client(cwd: Path, home: Path, roots: Roots | None, *args: str) -> Client:
    params = StdioServerParameters(
        command=str(BIN), args=["serve", *args], cwd=str(cwd), env={"HOME": str(home), "SKILLDECK_LOG": "skilldeck_mcp=info"}
    )
    return Client(
        params,
        mode="legacy",
        cache=None,
        extensions=[advertise(SKILLS_EXT)],
        list_roots_callback=roots.list_roots if roots else None,
        message_handler=roots.messages if roots else None,
    )


async def prompt_names(session: Client) -> list[str]:
    return [p.name for p in (await session.list_prompts()).prompts]


@pytest.fixture
def dirs(tmp_path: Path) -> dict[str, Path]:
    """A fake home with a user skill, and three projects: the working directory, and two the client names."""
    base = tmp_path.resolve()
    home, cwd, first, second = base / "home", base / "cwd", base / "first", base / "second"
    write_tree(home / ".agents/skills", {**skill("shared", "the user's"), **skill("personal", "the user's own")})
    write_tree(cwd / ".claude/skills", skill("from-cwd", "the working directory's project"))
    write_tree(first / ".claude/skills", {**skill("shared", "the first project's"), **skill("first-only", "first")})
    write_tree(second / ".github/skills", skill("second-only", "second"))
    (first / ".git").mkdir()
    return {"home": home, "cwd": cwd, "first": first, "second": second}


async def test_no_root_serves_the_working_directory_s_project_and_the_user_s_skills(dirs: dict[str, Path]) -> None:
    async with client(dirs["cwd"], dirs["home"], None) as session:
        assert await prompt_names(session) == ["from-cwd", "personal", "shared"]
        result = await session.call_tool("skill", {"name": "shared"})
        assert "Base directory for this skill: file://" + str(dirs["home"] / ".agents/skills/shared") in result.content[0].text


async def test_the_client_s_roots_choose_the_project_and_a_change_moves_it(dirs: dict[str, Path]) -> None:
    roots = Roots(dirs["first"])
    async with client(dirs["cwd"], dirs["home"], roots) as session:
        # Asked after initialized: the catalog moves to the first project, and the client is told.
        await roots.wait_change()
        assert roots.asked == 1
        assert await prompt_names(session) == ["first-only", "personal", "shared"]
        prompt = await session.get_prompt("shared")
        assert "the first project's" in prompt.description  # the project wins the name over the user
        # The client moves to the second project, and says so.
        roots.paths = [dirs["second"]]
        await session.send_roots_list_changed()
        await roots.wait_change()
        assert roots.asked == 2
        assert await prompt_names(session) == ["personal", "second-only", "shared"]
        assert (await session.get_prompt("shared")).description == "the user's"
        # The watcher follows the move: a skill added in the new project is served, one in the old is not.
        await anyio.sleep(1)  # the watches on the new project are set up after the move
        write_tree(dirs["first"] / ".claude/skills", skill("late-first", "too late"))
        write_tree(dirs["second"] / ".github/skills", skill("late-second", "added while serving"))
        await roots.wait_change()
        with anyio.fail_after(10):
            while "late-second" not in await prompt_names(session):
                await anyio.sleep(0.1)
        assert "late-first" not in await prompt_names(session)
        # The same roots again change nothing.
        changed = roots.changed
        await session.send_roots_list_changed()
        with anyio.fail_after(10):
            while roots.asked < 3:
                await anyio.sleep(0.05)
        await anyio.sleep(0.5)
        assert roots.changed == changed


async def test_explicit_roots_win_over_the_client_s(dirs: dict[str, Path]) -> None:
    roots = Roots(dirs["first"])
    root = dirs["cwd"] / ".claude/skills"
    async with client(dirs["cwd"], dirs["home"], roots, "--root", str(root)) as session:
        await anyio.sleep(1)
        assert roots.asked == 0
        assert await prompt_names(session) == ["from-cwd"]


async def test_over_http_the_working_directory_s_project_stays_whatever_a_client_s_roots_say(
    dirs: dict[str, Path],
) -> None:
    roots = Roots(dirs["first"])
    with http_server([], env={"HOME": str(dirs["home"])}, cwd=dirs["cwd"]) as server:
        assert server.url is not None
        async with Client(
            server.url, mode="legacy", cache=None, list_roots_callback=roots.list_roots, message_handler=roots.messages
        ) as session:
            await session.send_roots_list_changed()
            await anyio.sleep(1)
            assert roots.asked == 0
            assert await prompt_names(session) == ["from-cwd", "personal", "shared"]


async def test_an_empty_catalog_says_where_it_looked_in_instructions(tmp_path: Path) -> None:
    base = tmp_path.resolve()
    (base / "project").mkdir()
    async with client(base / "project", base / "home", None) as session:
        assert session.instructions == no_skills(places(base / "project", base / "home"))
    # A client whose project has no skill either: the instructions were sent, the log says it.
    roots = Roots(base / "elsewhere")
    (base / "elsewhere").mkdir()
    write_tree(base / "project" / ".agents/skills", skill("here", "in the working directory"))
    async with client(base / "project", base / "home", roots) as session:
        await roots.wait_change()
        assert await prompt_names(session) == []


def test_an_empty_catalog_says_where_it_looked_on_stderr(tmp_path: Path) -> None:
    base = tmp_path.resolve()
    (base / "project").mkdir()
    proc = subprocess.run(
        [str(BIN), "serve"], cwd=base / "project", env={"HOME": str(base / "home")},
        input=b"", capture_output=True, timeout=30,
    )
    assert proc.returncode == 0, proc.stderr
    expected = "skilldeck: warning: no skills found; looked in " + ", ".join(places(base / "project", base / "home")) + "\n"
    assert proc.stderr.decode() == expected
