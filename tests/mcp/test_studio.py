"""A save in `skilldeck studio` reaches a running `skilldeck serve` on the same store:
the server hears the store's change (SQLite's data_version, PostgreSQL's NOTIFY),
sends `notifications/resources/list_changed`, and serves the saved bytes."""

from __future__ import annotations

import re
import subprocess
import urllib.parse
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx2
import pytest

from support import BIN, MAIN_TREE, TRANSPORTS, connect, skill_uri, write_tree
from test_live import Changes, fresh_store, text_of

pytestmark = pytest.mark.anyio


@contextmanager
def studio(args: list[str]) -> Iterator[str]:
    """`skilldeck studio --listen 127.0.0.1:0 …`; yields its base URL, from its one stderr line."""
    proc = subprocess.Popen([str(BIN), "studio", "--listen", "127.0.0.1:0", *args], stderr=subprocess.PIPE)
    try:
        assert proc.stderr is not None
        while True:
            line = proc.stderr.readline().decode()
            assert line, "skilldeck studio exited before listening"
            found = re.match(r"skilldeck studio: listening on (http://\S+/)$", line.strip())
            if found:
                yield found.group(1)
                return
    finally:
        proc.kill()
        proc.wait()


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_studio_save_reaches_a_running_server(transport: str, kind: str, tmp_path: Any) -> None:
    root = write_tree(tmp_path / "skills", {"beta": MAIN_TREE["beta"]})
    store = fresh_store(kind, tmp_path)
    args = ["--root", str(root), "--store", store]
    text = "---\nname: authored\ndescription: Written in the Studio.\n---\n\nAuthored body.\n"
    changes = Changes()
    async with connect(transport, "legacy", args, message_handler=changes) as client:
        assert (await client.call_tool("skill", {"name": "authored"})).is_error
        with studio(args) as base:
            with httpx2.Client(base_url=base, follow_redirects=False) as http:
                page = http.get("/skills/new")
                csrf = http.cookies["skilldeck_csrf"]
                assert f'name="csrf" value="{csrf}"' in page.text
                form = {"csrf": csrf, "name": "authored", "content": text, "began": ""}
                saved = http.post("/skills", content=urllib.parse.urlencode(form),
                                  headers={"origin": base.rstrip("/"),
                                           "content-type": "application/x-www-form-urlencoded"})
                assert (saved.status_code, saved.headers["location"]) == (303, "/skills/authored")
                assert "Skill saved." in http.get("/skills/authored").text
        await changes.wait()
        assert text_of(await client.read_resource(skill_uri("authored"))) == text.encode()
