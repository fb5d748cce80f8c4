"""A PostgreSQL store that freezes, then goes down, under a running `skilldeck serve`.

The server runs on a PostgreSQL server of the test's own (`scripts/postgres`), frozen with
SIGSTOP and then stopped with `pg_ctl`: the disk skills keep reloading, the stored skills
stay listed and callable (the last good copy), the outage and its end are each logged
once, and once the server is back a write made then is served.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from support import MAIN_TREE, REPO, cli_load, http_server, run_cli, write_tree

pytestmark = pytest.mark.anyio

POSTGRES = REPO / "scripts" / "postgres"
DOWN = "the skill store does not answer"
BACK = "the skill store answers again"


@dataclass
class Postgres:
    """A throwaway PostgreSQL server: its data directory, port and URL."""

    data: Path
    port: int
    url: str

    def start(self) -> None:
        subprocess.run([str(POSTGRES), "start", str(self.data), str(self.port)], check=True, capture_output=True, timeout=60)

    def stop(self) -> None:
        subprocess.run([str(POSTGRES), "stop", str(self.data)], check=True, capture_output=True, timeout=60)

    def signal_all(self, sig: signal.Signals) -> None:
        """Sends `sig` to the postmaster and every process it started."""
        postmaster = int((self.data / "postmaster.pid").read_text().split()[0])
        children = subprocess.run(["pgrep", "-P", str(postmaster)], capture_output=True, text=True).stdout.split()
        for pid in [postmaster, *map(int, children)]:
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def own_postgres() -> Iterator[Postgres]:
    if shutil.which("pg_ctl") is None and shutil.which("pg_config") is None:
        pytest.skip("PostgreSQL is not installed")
    # Not under pytest's tmp_path: the server's user must be able to reach it.
    base = Path(tempfile.mkdtemp(prefix="skilldeck-pg-"))
    base.chmod(0o755)
    port = free_port()
    pg = Postgres(data=base / "data", port=port, url=f"postgres://postgres@127.0.0.1:{port}/postgres")
    pg.start()
    try:
        yield pg
    finally:
        if (pg.data / "postmaster.pid").exists():
            pg.signal_all(signal.SIGCONT)
            subprocess.run([str(POSTGRES), "stop", str(pg.data)], capture_output=True, timeout=60)
        shutil.rmtree(base, ignore_errors=True)


async def until(check: Callable[[], Awaitable[bool]], what: str, timeout: float) -> None:
    """Polls `check` until it holds; fails after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while not await check():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout} s: {what}")
        await anyio.sleep(0.2)


def skill_md(name: str) -> bytes:
    return f"---\nname: {name}\ndescription: The {name} skill.\n---\n\nBody of {name}.\n".encode()


async def test_an_outage_keeps_the_stored_skills_and_the_disk_reloading(own_postgres: Postgres, tmp_path: Any) -> None:
    pg = own_postgres
    root = write_tree(tmp_path / "skills", {"beta": MAIN_TREE["beta"]})
    (tmp_path / "stored.md").write_bytes(skill_md("stored"))
    run_cli("store", "write", "stored", "--file", str(tmp_path / "stored.md"), "--store", pg.url, check=True)
    args = ["--root", str(root), "--store", pg.url]
    stored_text, _ = cli_load("stored", args)

    with http_server(args) as server:
        assert server.url is not None
        async with Client(server.url, mode="legacy", cache=None) as client:

            async def names() -> set[str]:
                return {p.name for p in (await client.list_prompts()).prompts}

            async def stored_served() -> None:
                assert "stored" in await names()
                result = await client.call_tool("skill", {"name": "stored"})
                assert (result.is_error, result.content[0].text) == (False, stored_text)

            def logged(line: str, times: int) -> Callable[[], Awaitable[bool]]:
                async def check() -> bool:
                    return sum(line in seen for seen in server.stderr_lines) >= times

                return check

            def listed(name: str) -> Callable[[], Awaitable[bool]]:
                async def check() -> bool:
                    return name in await names()

                return check

            assert await names() == {"beta", "stored"}
            await stored_served()

            # 1. Frozen: every server process stopped, its sockets still open. A disk
            # edit reloads within the deadlines (a call's 10 s, a connection's 5 s).
            pg.signal_all(signal.SIGSTOP)
            try:
                write_tree(root, {"while-frozen": {"SKILL.md": skill_md("while-frozen")}})
                await until(listed("while-frozen"), "a skill added while the store is frozen", 40)
                await stored_served()
                await until(logged(DOWN, 1), "the outage logged", 20)
            finally:
                pg.signal_all(signal.SIGCONT)
            await until(logged(BACK, 1), "the end of the outage logged", 30)

            # 2. Down: the server stopped. Disk edits reload, stored skills stay.
            pg.stop()
            write_tree(root, {"while-down": {"SKILL.md": skill_md("while-down")}})
            await until(listed("while-down"), "a skill added while the store is down", 30)
            await stored_served()
            await until(logged(DOWN, 2), "the second outage logged", 20)

            # 3. Back: a write made now is served.
            pg.start()
            (tmp_path / "later.md").write_bytes(skill_md("later"))
            run_cli("store", "write", "later", "--file", str(tmp_path / "later.md"), "--store", pg.url, check=True)
            await until(listed("later"), "a record written once the store is back", 30)
            await stored_served()
            await until(logged(BACK, 2), "the second end logged", 20)

    outage = [("down" if DOWN in line else "back") for line in server.stderr_lines if DOWN in line or BACK in line]
    assert outage == ["down", "back", "down", "back"], server.stderr_lines
