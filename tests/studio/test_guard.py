"""The Studio holds its ground as `serve --http` does (issue 19, items 2–6).

Connections: a head or a body sent a trickle at a time is cut at its deadline, and a
flood of idle or half-sent sockets beyond what the process may hold does not keep a page
from loading (the connection guard of skilldeck-http, shared with `serve --http`). Over
raw loopback sockets, bounded in count and time.

Cookies: cookies do not separate ports, so a second loopback server stands in for the
other local services of the host. After `/?token=T` it never receives T; a link of the
form `//other-host/?token=T` keeps the browser on the Studio; a flash cookie that port
plants is not shown. In the real browser (Chromium, as the other Studio tests).
"""

from __future__ import annotations

import json
import secrets
import select
import socket
import subprocess
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conftest import DISK_SKILL, DISK_SKILL_MD, Setup
from support import BIN, OtherService, Pages, Studio, write_disk_skill


# --------------------------------------------------------------------------- sockets

def connect(studio: Studio) -> socket.socket:
    host, port = studio.hostport.rsplit(":", 1)
    return socket.create_connection((host, int(port)), timeout=10)


def trickle(sock: socket.socket, first: bytes, rest: list[bytes], pause: float) -> bytes | None:
    """Sends FIRST, then each of REST after PAUSE seconds, until the server closes the
    connection: what it answered by then, or None if it never closed."""
    sock.sendall(first)
    received = b""
    for piece in rest:
        readable, _, _ = select.select([sock], [], [], pause)
        if readable:
            try:
                chunk = sock.recv(65536)
            except ConnectionResetError:
                return received
            if not chunk:
                return received
            received += chunk
            continue
        try:
            sock.sendall(piece)
        except OSError:
            return received
    return None


def test_a_head_sent_a_line_every_two_seconds_is_cut(sqlite_setup: Setup) -> None:
    s = sqlite_setup
    sock = connect(s.studio)
    # 15 lines, 30 s of a head that never ends; the deadline is 10 s.
    head = f"GET /skills HTTP/1.1\r\nHost: {s.studio.hostport}\r\n".encode()
    answer = trickle(sock, head, [b"X-Slow: 1\r\n"] * 15, 2)
    sock.close()
    assert answer is not None, "a head sent a line every 2 s was still awaited after 30 s"
    assert answer == b"" or answer.startswith(b"HTTP/1.1 408"), answer
    assert s.studio.get("/skills")[0] == 200


def test_a_body_sent_a_byte_a_second_is_cut(sqlite_setup: Setup) -> None:
    s = sqlite_setup
    sock = connect(s.studio)
    head = (
        f"POST /skills HTTP/1.1\r\nHost: {s.studio.hostport}\r\n"
        "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\n"
    ).encode()
    # 30 of its 100 bytes in 30 s; the deadline is 10 s.
    answer = trickle(sock, head, [b"x"] * 30, 1)
    sock.close()
    assert answer is not None, "a body sent a byte a second was still awaited after 30 s"
    head_bytes, _, body = answer.partition(b"\r\n\r\n")
    assert head_bytes.startswith(b"HTTP/1.1 408 Request Timeout\r\n"), answer
    assert b"\r\nconnection: close" in head_bytes.lower(), answer
    assert body == b"Request Timeout: the body was not received within 10s\n", answer
    assert s.studio.get("/skills")[0] == 200


def test_a_flood_beyond_the_open_file_limit_does_not_keep_a_page_out(
    tmp_path: Path, context: Any, pages: Pages
) -> None:
    """The Studio may hold 256 files: its cap is (256 - 128) / 2 = 64 connections. 300 silent
    sockets and 100 half request lines, far beyond both, then a person opens a page."""
    root = tmp_path / "skills"
    write_disk_skill(root, DISK_SKILL, DISK_SKILL_MD)
    studio = Studio(["--root", str(root), "--store", str(tmp_path / "store.sqlite")], nofile=256)
    flood: list[socket.socket] = []
    try:
        for i in range(400):
            sock = connect(studio)
            if i % 4 == 0:
                sock.sendall(b"GET /skills HT")
            flood.append(sock)
        page = pages.watch(context.new_page())
        reply = page.goto(studio.url + "/skills")
        assert reply is not None and reply.status == 200
        assert page.locator(f"a[href='/skills/{DISK_SKILL}']").count() == 1
        assert studio.get("/skills")[0] == 200
        pages.shot(page, "under-flood")
        pages.check()
    finally:
        for sock in flood:
            sock.close()
        studio.close()


# --------------------------------------------------------------------------- cookies

@pytest.fixture
def token() -> str:
    return secrets.token_hex(32)


@pytest.fixture
def guarded(tmp_path: Path, token: str) -> Iterator[Studio]:
    root = tmp_path / "skills"
    write_disk_skill(root, DISK_SKILL, DISK_SKILL_MD)
    studio = Studio(["--root", str(root), "--store", str(tmp_path / "store.sqlite"), "--token", token])
    try:
        yield studio
    finally:
        studio.close()


def initialize_status(url: str, token: str) -> int:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}).encode()
    request = urllib.request.Request(url, data=body, method="POST", headers={
        "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
        "Authorization": f"Bearer {token}"})
    try:
        with urllib.request.urlopen(request, timeout=30) as reply:
            return reply.status
    except urllib.error.HTTPError as e:
        return e.code


def test_the_token_never_reaches_another_port(
    guarded: Studio, token: str, other_service: OtherService, context: Any, pages: Pages, tmp_path: Path
) -> None:
    port = other_service.port
    page = pages.watch(context.new_page())
    reply = page.goto(f"{guarded.url}/?token={token}")
    assert reply is not None and reply.status == 200 and page.url == f"{guarded.url}/skills", page.url
    page.goto(f"{guarded.url}/skills/{DISK_SKILL}")
    assert page.locator("#content").count() == 1, "the session carries the browser on"
    # Every local service receives the Studio's cookies (ports do not separate them)...
    page.goto(f"http://127.0.0.1:{port}/")
    (_, headers), = [r for r in other_service.seen if r[0] == "/"]
    sent = headers.get("Cookie", "")
    assert "skilldeck_session=" in sent, sent
    # ...but never the token.
    assert token not in json.dumps(other_service.seen), sent
    jar = {c["name"]: c for c in context.cookies()}
    assert token not in json.dumps(list(jar.values()))
    session = jar["skilldeck_session"]
    assert session["httpOnly"] and session["sameSite"] == "Strict", session
    # What that service got opens no `serve --http` sharing the token.
    leaked = [v.split("=", 1)[1] for v in sent.split("; ")]
    serve = subprocess.Popen(
        [str(BIN), "serve", "--http", "127.0.0.1:0", "--token", token, "--root", str(tmp_path / "skills")],
        stdin=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    try:
        assert serve.stderr is not None
        line = ""
        while "listening on http://" not in line:
            line = serve.stderr.readline().decode()
            assert line, "serve exited"
        url = line.split("listening on ", 1)[1].strip()
        assert [initialize_status(url, value) for value in leaked] == [401] * len(leaked)
        assert initialize_status(url, token) == 200
    finally:
        serve.terminate()
        serve.wait(10)
    pages.check()


@pytest.mark.parametrize("prefix", ["//", "/\\"], ids=["double-slash", "slash-backslash"])
def test_a_token_link_never_leads_to_another_site(
    guarded: Studio, token: str, other_service: OtherService, context: Any, prefix: str
) -> None:
    """`http://STUDIO//127.0.0.1:OTHER/?token=T`: a link that looks like the Studio's. After the
    token the browser stays on the Studio (at that path, a 404), never at the other port."""
    port = other_service.port
    page = context.new_page()
    page.goto(f"{guarded.url}{prefix}127.0.0.1:{port}/?token={token}")
    assert page.url == f"{guarded.url}/127.0.0.1:{port}/", page.url
    assert other_service.seen == [], other_service.seen
    assert page.locator("body").inner_text().strip() != "another service"


def test_a_flash_planted_by_another_port_is_not_shown(
    guarded: Studio, token: str, other_service: OtherService, context: Any, pages: Pages
) -> None:
    port = other_service.port
    page = pages.watch(context.new_page())
    page.goto(f"{guarded.url}/?token={token}")
    # A cookie for 127.0.0.1, set by a page of another port: the Studio reads it too.
    other_service.set_cookies = ["skilldeck_flash=error:Your%20store%20is%20broken%3A%20call%20555-0100; Path=/"]
    page.goto(f"http://127.0.0.1:{port}/")
    assert any(c["name"] == "skilldeck_flash" for c in context.cookies())
    page.goto(f"{guarded.url}/skills")
    assert "555-0100" not in page.content()
    assert page.locator("div.flash.error").count() == 0
    # The Studio's own flashes still show: a save.
    page.goto(f"{guarded.url}/skills/new")
    page.fill('input[name="name"]', "planted")
    page.fill("#content", "---\nname: planted\ndescription: Saved in the test.\n---\nBody.\n")
    with page.expect_navigation():
        page.click("button#save")
    assert page.locator("div.flash").first.inner_text().strip() == "Skill saved."
    pages.check()


def test_a_session_is_no_token(guarded: Studio, token: str) -> None:
    """Outside the browser: the Studio answers the bearer token, and a `?token=` visit sets a
    session cookie that is not the token."""
    request = urllib.request.Request(f"{guarded.url}/skills", headers={"Authorization": f"Bearer {token}"})
    with urllib.request.urlopen(request, timeout=30) as reply:
        assert reply.status == 200

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args: Any) -> None:
            return None

    opener = urllib.request.build_opener(NoRedirect)
    try:
        opener.open(f"{guarded.url}/skills?token={token}", timeout=30)
        raise AssertionError("no redirect")
    except urllib.error.HTTPError as e:
        assert e.code == 303
        cookie = e.headers["Set-Cookie"]
    assert token not in cookie and cookie.startswith("skilldeck_session="), cookie
