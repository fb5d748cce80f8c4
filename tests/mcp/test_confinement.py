"""What leaves the server as bytes (SPEC §11, issue 10 items 1–3 and 13): only regular
files whose real path lies inside a root, checked on the opened descriptor when read,
and never more than 16 MiB, for disk, data and store skills alike. Links to
`/etc/passwd`, `/proc/self/environ` or a directory elsewhere, FIFOs and sockets are left
out of every surface, each named on stderr; a file swapped after listing is refused
without hanging or reading past the limit."""

from __future__ import annotations

import json
import os
import socket
import time
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.client import advertise
from mcp.shared.exceptions import MCPError

from support import SKILLS_EXT, all_resources, http_server, run_cli, skill_uri, skills_get, skills_list_pages

pytestmark = pytest.mark.anyio

MIB = 1 << 20
LIMIT = 16 * MIB


def md(name: str, body: str = "") -> bytes:
    return f"---\nname: {name}\ndescription: Skill {name}.\n---\n\nBody of {name}.\n{body}".encode()


async def uris(client: Client) -> set[str]:
    return {str(r.uri) for r in await all_resources(client)}


async def read_error(client: Client, uri: str) -> str:
    with pytest.raises(MCPError) as err:
        await client.read_resource(uri)
    return err.value.message


def leaky_tree(tmp_path: Path) -> Path:
    root = tmp_path / "skills"
    skill = root / "leaky"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_bytes(md("leaky"))
    (skill / "ok.txt").write_bytes(b"fine\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_bytes(b"secret\n")
    os.symlink("/etc/passwd", skill / "passwd.txt")
    os.symlink("/proc/self/environ", skill / "env.txt")
    os.symlink(outside, skill / "ext")
    os.symlink(root / "leaky" / "ok.txt", skill / "inside-link.txt")
    os.mkfifo(skill / "pipe")
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(skill / "sock"))
    sock.close()
    return root


async def test_links_leaving_the_roots_and_special_files_are_never_served(tmp_path: Path) -> None:
    root = leaky_tree(tmp_path)
    with http_server(["--root", str(root)]) as server:
        async with Client(server.url, extensions=[advertise(SKILLS_EXT)]) as client:
            listed = await uris(client)
            served = {skill_uri("leaky"), skill_uri("leaky", "ok.txt"), skill_uri("leaky", "inside-link.txt")}
            assert listed == served
            (entry,) = [e for p in await skills_list_pages(client) for e in p["skills"]]
            assert {r["uri"] for r in entry["resources"]} == served
            got = await skills_get(client, skill_uri("leaky"))
            assert {r["uri"] for r in got["skill"]["resources"]} == served
            for rel in ("passwd.txt", "env.txt", "ext/secret.txt", "pipe", "sock"):
                message = await read_error(client, skill_uri("leaky", rel))
                assert message == f"No resource is served at {skill_uri('leaky', rel)}"
            assert (await client.read_resource(skill_uri("leaky", "inside-link.txt"))).contents[0].text == "fine\n"
            # The skill tool still names the files (paths, never bytes), as toolnexus does.
            result = await client.call_tool("skill", {"name": "leaky"})
            assert not result.is_error
            text = result.content[0].text
            assert f"<file>{root / 'leaky' / 'passwd.txt'}</file>" in text and "root:" not in text
        stderr = "\n".join(server.stderr_lines)
    real = os.path.realpath(tmp_path / "outside" / "secret.txt")
    for refused in (
        f"{root}/leaky/passwd.txt leads outside its root (to /etc/passwd)",
        f"{root}/leaky/env.txt leads outside its root (to /proc/",
        f"{root}/leaky/ext/secret.txt leads outside its root (to {real})",
        f"{root}/leaky/pipe is not a regular file (a FIFO)",
        f"{root}/leaky/sock is not a regular file (a socket)",
    ):
        assert refused in stderr, (refused, stderr)


async def test_a_file_swapped_after_listing_is_checked_when_read(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    skill = root / "swap"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_bytes(md("swap"))
    for name in ("fifo.txt", "big.txt", "link.txt", "gone.txt"):
        (skill / name).write_bytes(b"small\n")
    # --no-follow-symlinks is not in play: links are followed, and still checked.
    with http_server(["--root", str(root)]) as server:
        async with Client(server.url, extensions=[advertise(SKILLS_EXT)]) as client:
            assert len(await uris(client)) == 5
            for name in ("fifo.txt", "big.txt", "link.txt"):
                (skill / name).unlink()
            os.mkfifo(skill / "fifo.txt")
            with open(skill / "big.txt", "wb") as f:
                f.truncate(64 * MIB)
            os.symlink("/etc/passwd", skill / "link.txt")
            started = time.monotonic()
            fifo = await read_error(client, skill_uri("swap", "fifo.txt"))
            assert fifo == f"cannot read {skill_uri('swap', 'fifo.txt')}: {skill}/fifo.txt is not a regular file (a FIFO)"
            big = await read_error(client, skill_uri("swap", "big.txt"))
            assert big == (
                f"cannot read {skill_uri('swap', 'big.txt')}: {skill}/big.txt is {64 * MIB} bytes, "
                f"more than the {LIMIT} bytes (16 MiB) skilldeck serves"
            )
            link = await read_error(client, skill_uri("swap", "link.txt"))
            assert link.endswith("link.txt leads outside its root (to /etc/passwd)"), link
            # Listing and manifests answer (without the file that went bad), never hang.
            await all_resources(client)
            await skills_list_pages(client)
            assert time.monotonic() - started < 10


async def test_one_size_limit_on_every_surface_that_returns_bytes(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    (root / "huge").mkdir(parents=True)
    (root / "huge" / "SKILL.md").write_bytes(md("huge", "x" * LIMIT))
    (root / "small").mkdir()
    (root / "small" / "SKILL.md").write_bytes(md("small"))
    store = tmp_path / "store.sqlite"
    record = tmp_path / "record.md"
    record.write_bytes(md("stored", "y" * LIMIT))
    run_cli("store", "write", "stored", "--file", str(record), "--store", str(store), check=True)
    data = tmp_path / "data.json"
    data.write_text(json.dumps([{"name": "data", "description": "Big data.", "content": "z" * (LIMIT + 1)}]))
    args = ["--root", str(root), "--store", str(store), "--skills", str(data)]
    with http_server(args) as server:
        async with Client(server.url, extensions=[advertise(SKILLS_EXT)]) as client:
            assert await uris(client) == {skill_uri("small")}
            assert [p.name for p in (await client.list_prompts()).prompts] == ["small"]
            # The tool refuses what the resources leave out, saying why (one rule, issue 19 item 13).
            for name, why in (
                ("huge", "its files add up to more than 16777216 bytes (16 MiB, the Skills extension's limit)"),
                ("stored", f"store:stored is {len(md('stored', 'y' * LIMIT))} bytes, more than the 16777216 bytes (16 MiB) skilldeck serves"),
                ("data", f"its body cannot be read: skill://data/ is {LIMIT + 1} bytes, more than the 16777216 bytes (16 MiB) skilldeck serves"),
            ):
                result = await client.call_tool("skill", {"name": name})
                assert result.is_error, name
                text: Any = result.content[0].text
                assert text == f'Skill "{name}" is not served: {why}.', text[:300]
        stderr = "\n".join(server.stderr_lines)
    for name in ("huge", "stored", "data"):
        assert f'skilldeck: warning: skill not served over MCP skill="{name}" reason=' in stderr, stderr
        assert "more than the 16777216 bytes (16 MiB) skilldeck serves" in stderr


async def test_a_backslash_is_part_of_a_file_name(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    (root / "files").mkdir(parents=True)
    (root / "files" / "SKILL.md").write_bytes(md("files"))
    (root / "files" / "back\\slash.txt").write_bytes(b"bs\n")
    with http_server(["--root", str(root)]) as server:
        async with Client(server.url, extensions=[advertise(SKILLS_EXT)]) as client:
            resources = {str(r.uri): r.name for r in await all_resources(client)}
            uri = skill_uri("files", "back%5Cslash.txt")
            assert resources[uri] == "files/back\\slash.txt"
            assert (await client.read_resource(uri)).contents[0].text == "bs\n"
            assert (await client.read_resource(skill_uri("files", "back\\slash.txt"))).contents[0].text == "bs\n"


async def test_a_name_holding_a_line_break_or_a_nul_is_served_nowhere(tmp_path: Path) -> None:
    # The name rule: such a skill is an invalid-name skip, so no URI, tool call or log line has it.
    root = tmp_path / "skills"
    (root / "odd").mkdir(parents=True)
    (root / "odd" / "SKILL.md").write_bytes(b'---\nname: "two\\nlines\\e[31m"\ndescription: Odd.\n---\nBody.\n')
    (root / "nul").mkdir(parents=True)
    (root / "nul" / "SKILL.md").write_bytes(b'---\nname: "\\0"\ndescription: NUL.\n---\nBody.\n')
    (root / "ok").mkdir(parents=True)
    (root / "ok" / "SKILL.md").write_bytes(md("ok"))
    with http_server(["--root", str(root)]) as server:
        async with Client(server.url, extensions=[advertise(SKILLS_EXT)]) as client:
            assert await uris(client) == {skill_uri("ok")}
            for uri in (skill_uri("%00"), skill_uri("two%0Alines%1B%5B31m"), skill_uri("ok%00")):
                assert await read_error(client, uri), uri
            for name in ("\0", "two\nlines\x1b[31m"):
                assert (await client.call_tool("skill", {"name": name})).is_error
        lines = list(server.stderr_lines)
    assert not any(line.startswith("lines") for line in lines), lines
