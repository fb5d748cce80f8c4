"""A repository skilldeck is run in cannot choose what leaves the server (issue 19, item 1).

Each test makes a real git repository in a temporary directory, plants the links a hostile
clone would hold, and runs `skilldeck serve` in it as a user would: no flags, `HOME` an
empty directory (or one with the user's own skills). A project's conventional place that
leads out of the project is not a root; each skill's bytes are confined to its own root;
a tree too big to watch whole is not watched whole."""

from __future__ import annotations

import os
import re
import subprocess
import time
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError

from support import BIN, all_resources, skill_uri, write_tree

pytestmark = pytest.mark.anyio


def md(name: str) -> bytes:
    return f"---\nname: {name}\ndescription: Skill {name}.\n---\n\nRead the notes.\n".encode()


def repository(path: Path) -> Path:
    path.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    return path


def client(cwd: Path, home: Path, *args: str) -> Client:
    params = StdioServerParameters(command=str(BIN), args=["serve", *args], cwd=str(cwd), env={"HOME": str(home)})
    return Client(params, mode="legacy", cache=None)


def serve_stderr(cwd: Path, home: Path) -> str:
    """What `serve` says on stderr, run in `cwd` until its client (no one) leaves."""
    proc = subprocess.run(
        [str(BIN), "serve"], cwd=cwd, env={"HOME": str(home)}, input=b"", capture_output=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stderr.decode()


async def test_a_project_place_linked_to_etc_is_not_a_root(tmp_path: Path) -> None:
    base = tmp_path.resolve()
    repo, home = repository(base / "clone"), base / "home"
    home.mkdir()
    (repo / ".claude").mkdir()
    os.symlink("/etc", repo / ".claude/skills")
    write_tree(repo / ".agents/skills", {"evil": {"SKILL.md": md("evil")}})
    os.symlink("/etc/passwd", repo / ".agents/skills/evil/shadow.txt")
    # /etc has no SKILL.md of its own here; one planted in a directory it would lead to must not be found.
    async with client(repo, home) as session:
        served = {str(r.uri) for r in await all_resources(session)}
        assert served == {skill_uri("evil")}
        with pytest.raises(MCPError):
            await session.read_resource(skill_uri("evil", "shadow.txt"))
    stderr = serve_stderr(repo, home)
    real_etc = os.path.realpath("/etc")
    assert (
        f"skilldeck: warning: {repo}/.claude/skills is a skill directory of the project {repo} that leads out of "
        f"its project (to {real_etc}): not walked\n"
    ) in stderr


def test_a_project_place_linked_to_the_root_of_the_file_system_is_not_walked(tmp_path: Path) -> None:
    base = tmp_path.resolve()
    repo, home = repository(base / "clone"), base / "home"
    home.mkdir()
    (repo / ".github").mkdir()
    os.symlink("/", repo / ".github/skills")
    # The whole file system was walked (tens of thousands of "skills"); now nothing is.
    stderr = serve_stderr(repo, home)
    assert f"{repo}/.github/skills is a skill directory of the project {repo} that leads out of its project (to /)" in stderr
    assert "skilldeck: warning: no skills found; looked in " in stderr


async def test_a_project_skill_cannot_serve_the_files_of_the_user_s_skills(tmp_path: Path) -> None:
    base = tmp_path.resolve()
    repo, home = repository(base / "clone"), base / "home"
    # The user's own skills, kept elsewhere and linked, as users do.
    write_tree(base / "dotfiles/skills", {"private": {"SKILL.md": md("private"), "token.txt": b"s3cret\n"}})
    (home / ".claude").mkdir(parents=True)
    os.symlink(base / "dotfiles/skills", home / ".claude/skills")
    # The clone's skill links to them: inside a root (the user's), not inside its own.
    write_tree(repo / ".agents/skills", {"evil": {"SKILL.md": md("evil")}})
    os.symlink(base / "dotfiles/skills/private/token.txt", repo / ".agents/skills/evil/token.txt")
    os.symlink(home / ".claude/skills/private/token.txt", repo / ".agents/skills/evil/via-home.txt")
    async with client(repo, home) as session:
        served = {str(r.uri) for r in await all_resources(session)}
        assert served == {skill_uri("evil"), skill_uri("private"), skill_uri("private", "token.txt")}
        for rel in ("token.txt", "via-home.txt"):
            with pytest.raises(MCPError):
                await session.read_resource(skill_uri("evil", rel))
        # The user's own skill serves its own file: a user place may lead anywhere.
        token = await session.read_resource(skill_uri("private", "token.txt"))
        assert token.contents[0].text == "s3cret\n"


def inotify_watches(pid: int) -> int:
    """How many inotify watches process `pid` holds: one `inotify wd:` line each in its fdinfo."""
    count = 0
    for fd in os.listdir(f"/proc/{pid}/fdinfo"):
        try:
            info = Path(f"/proc/{pid}/fdinfo/{fd}").read_text()
        except OSError:
            continue
        count += sum(1 for line in info.splitlines() if line.startswith("inotify wd:"))
    return count


def watched(tmp_path: Path, extra: list[str]) -> tuple[int, str]:
    """The inotify watches of a server over a root of 60 skills (120 directories) once it
    has set its watches up, and what it said on stderr."""
    root = tmp_path / "skills"
    write_tree(root, {f"s{i:02}": {"SKILL.md": md(f"s{i:02}"), "ref/notes.md": b"notes\n"} for i in range(60)})
    proc = subprocess.Popen(
        [str(BIN), "serve", "--root", str(root), *extra],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env={"HOME": str(tmp_path), "SKILLDECK_LOG": "skilldeck_mcp=debug"},
    )
    try:
        assert proc.stderr is not None
        lines = []
        # The set-up's last debug line says the watches are set (or the warning that they are not).
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            line = proc.stderr.readline().decode()
            lines.append(line)
            if re.search(r"recursive watches set|are not followed", line):
                break
        else:
            pytest.fail("the server never set its watches up:\n" + "".join(lines))
        return inotify_watches(proc.pid), "".join(lines)
    finally:
        proc.kill()
        proc.wait()


def test_a_tree_too_big_to_watch_whole_takes_no_watch_per_directory(tmp_path: Path) -> None:
    whole, _ = watched(tmp_path / "whole", [])
    assert whole >= 121, "a tree within the bound is watched whole: a watch per directory"
    bounded, stderr = watched(tmp_path / "bounded", ["--max-watches", "50"])
    assert bounded <= 50, stderr
    assert "directories, more than the 50 that skilldeck watches" in stderr
