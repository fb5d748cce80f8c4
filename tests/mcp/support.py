"""Helpers for the end-to-end tests of `skilldeck serve`.

Every test drives the real binary (`SKILLDECK_BIN`, default `target/debug/skilldeck`)
through the official Python MCP client (`mcp==2.3.0`) or raw bytes on the wire. Skill
trees are real directories built in temporary folders; what the server returns is
compared with the files on disk and with what `skilldeck load` prints.
"""

from __future__ import annotations

import hashlib
import json
import os
import queue
import re
import resource
import subprocess
import threading
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import httpx2
import mcp_types as t
from mcp import Client, StdioServerParameters
from mcp.client import advertise
from mcp.client.streamable_http import streamable_http_client
from pydantic import TypeAdapter

REPO = Path(__file__).resolve().parents[2]
BIN = Path(os.environ.get("SKILLDECK_BIN", REPO / "target" / "debug" / "skilldeck")).resolve()
SKILLS_EXT = "io.modelcontextprotocol/skills"
MODERN = "2026-07-28"
LISTEN_RE = re.compile(r"^skilldeck: listening on (http://([^/]+)/mcp)$")

# Claude Code kept off the network: no telemetry, updates, error reports or other
# non-essential traffic (tests give it a throwaway HOME and, where it needs a model, a stand-in).
CLAUDE_OFFLINE_ENV = {
    "DISABLE_TELEMETRY": "1",
    "DISABLE_AUTOUPDATER": "1",
    "DISABLE_ERROR_REPORTING": "1",
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
}

TRANSPORTS = ["stdio", "http"]
ERAS = ["auto", "legacy"]  # auto probes server/discover (2026-07-28); legacy is the initialize handshake


# --------------------------------------------------------------------------- skill trees

PNG = (
    b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89"
    b"\x00\x00\x00\rIDATx\x9cc\xf8\x0f\x00\x00\x01\x01\x00\x05\x18\xd8N\x00\x00\x00\x00IEND\xaeB`\x82"
)

ALPHA_MD = (
    b"---\n"
    b"name: alpha\n"
    b"description: The first test skill, with text, binary and nested files.\n"
    b"license: MIT\n"
    b"allowed-tools: Bash Read\n"
    b"metadata:\n"
    b"  author: skilldeck tests\n"
    b'  version: "1.0"\n'
    b"tags:\n"
    b"  - one\n"
    b"  - two\n"
    b"count: 3\n"
    b"---\n"
    b"\n"
    b"# Alpha\n"
    b"\n"
    b"Read `references/guide.md` first, then run `scripts/run.sh`.\n"
)
ALPHA_FRONTMATTER = {
    "name": "alpha",
    "description": "The first test skill, with text, binary and nested files.",
    "license": "MIT",
    "allowed-tools": "Bash Read",
    "metadata": {"author": "skilldeck tests", "version": "1.0"},
    "tags": ["one", "two"],
    "count": 3,
}

MAIN_TREE: dict[str, dict[str, bytes]] = {
    "alpha": {
        "SKILL.md": ALPHA_MD,
        "references/guide.md": "# Guide\n\nUnicode text: café ✓ 日本語\n".encode(),
        "scripts/run.sh": b"#!/bin/sh\necho alpha\n",
        "assets/logo.png": PNG,
        "assets/nul.txt": b"before\x00after\n",  # valid UTF-8 but holds NUL: blob
        "assets/latin1.txt": b"caf\xe9 cr\xe8me\n",  # no NUL, invalid UTF-8: blob
        "deep/a/b/c/note.txt": b"nested four levels down\n",
        "empty.txt": b"",
    },
    "beta": {
        "SKILL.md": b"---\nname: beta\ndescription: A skill with nothing but its SKILL.md.\n---\n\nBeta body.\n",
    },
    "gamma": {
        "SKILL.md": b"---\r\nname: gamma\r\ndescription: CRLF line endings throughout.\r\n---\r\n\r\n# Gamma\r\n\r\nBody.\r\n",
        "notes.md": b"# Notes\r\n\r\nSee SKILL.md.\r\n",
        "data.json": b'{"k": [1, 2, 3]}\n',
    },
}
MAIN_FRONTMATTER = {
    "alpha": ALPHA_FRONTMATTER,
    "beta": {"name": "beta", "description": "A skill with nothing but its SKILL.md."},
    "gamma": {"name": "gamma", "description": "CRLF line endings throughout."},
}

DATA_SKILLS = [{"name": "delta", "description": "A data skill given as JSON.", "content": "Delta body.\n\nStep one."}]
STORE_SKILL_MD = "---\nname: epsilon\ndescription: A skill kept in the SQLite store.\n---\n\nEpsilon body.\n"


def write_tree(root: Path, tree: dict[str, dict[str, bytes]]) -> Path:
    for skill, files in tree.items():
        for rel, data in files.items():
            path = root / skill / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
    return root


def disk_files(skill_dir: Path) -> dict[str, bytes]:
    """Every regular file under a skill directory, by `/`-joined relative path."""
    out: dict[str, bytes] = {}
    for path in sorted(skill_dir.rglob("*")):
        if path.is_file():
            out[path.relative_to(skill_dir).as_posix()] = path.read_bytes()
    return out


def digest(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def skill_uri(name: str, rel: str = "SKILL.md") -> str:
    return f"skill://{name}/{rel}"


@dataclass
class Tree:
    """A skill tree on disk plus the serve flags that expose it."""

    root: Path
    args: list[str]
    names: list[str]
    extra: dict[str, Any] = field(default_factory=dict)


# --------------------------------------------------------------------------- the CLI

def run_cli(*args: str, check: bool = False, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[bytes]:
    proc = subprocess.run([str(BIN), *args], capture_output=True, timeout=60, env=env)
    if check and proc.returncode != 0:
        raise AssertionError(f"skilldeck {' '.join(args)} exited {proc.returncode}: {proc.stderr.decode(errors='replace')}")
    return proc


def cli_load(name: str, args: list[str]) -> tuple[str, bool]:
    """What `skilldeck load NAME` prints with the same source flags, and whether it is an error."""
    proc = run_cli("load", name, *args)
    assert proc.returncode in (0, 1), proc.stderr
    return proc.stdout.decode(), proc.returncode == 1


# --------------------------------------------------------------------------- servers

class HttpServer:
    """`skilldeck serve --http 127.0.0.1:0 …` as a child process; `url` from its one stderr line."""

    def __init__(
        self,
        args: list[str],
        *,
        bind: str = "127.0.0.1:0",
        env: dict[str, str] | None = None,
        command: list[str] | None = None,
        cwd: Path | None = None,
        nofile: int | None = None,
    ):
        """`command` replaces the whole command line (a README's own, say); `args` and `bind` are then unused.
        `nofile` sets the server's open-file limit (`ulimit -n`)."""
        full_env = dict(os.environ)
        full_env.pop("SKILLDECK_TOKEN", None)
        full_env.update(env or {})
        self.proc = subprocess.Popen(
            command or [str(BIN), "serve", "--http", bind, *serve_args(args)],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=full_env, cwd=cwd,
            preexec_fn=None if nofile is None else lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile)),
        )
        self.stderr_lines: list[str] = []
        self._ready = threading.Event()
        self.url: str | None = None
        self.hostport: str | None = None
        threading.Thread(target=self._drain, daemon=True).start()
        if not self._ready.wait(20) or self.url is None:
            self.close()
            raise AssertionError(f"server did not print its listening line; stderr: {self.stderr_lines!r}")

    def _drain(self) -> None:
        assert self.proc.stderr is not None
        for raw in self.proc.stderr:
            line = raw.decode(errors="replace").rstrip("\n")
            self.stderr_lines.append(line)
            m = LISTEN_RE.match(line)
            if m and self.url is None:
                self.url, self.hostport = m.group(1), m.group(2)
                self._ready.set()
        self._ready.set()

    @property
    def port(self) -> int:
        assert self.hostport is not None
        return int(self.hostport.rsplit(":", 1)[1])

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.proc.stdout:
            self.proc.stdout.close()

    def __enter__(self) -> HttpServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@contextmanager
def http_server(args: list[str], **kw: Any) -> Iterator[HttpServer]:
    server = HttpServer(args, **kw)
    try:
        yield server
    finally:
        server.close()


def serve_args(args: list[str]) -> list[str]:
    """`args` for `skilldeck serve`, waiting as long as it takes for the catalog at `initialize`.

    The default wait (50 ms) is for hosts; a test that compares the instructions with the
    catalog must not race it on a loaded machine. Tests of the wait itself pass their own.
    """
    if any(arg == "--instructions-wait" or arg.startswith("--instructions-wait=") for arg in args):
        return args
    return [*args, "--instructions-wait", "60000"]


@asynccontextmanager
async def connect(
    transport: str,
    era: str,
    args: list[str],
    *,
    message_handler: Any = None,
    logging_callback: Any = None,
    headers: dict[str, str] | None = None,
    env: dict[str, str] | None = None,
) -> AsyncIterator[Client]:
    """An entered `mcp.Client` on a fresh `skilldeck serve ARGS` over stdio or HTTP."""
    if transport == "stdio":
        # The SDK passes a server only a few variables of ours: the test's cache directory too.
        cache = {"XDG_CACHE_HOME": os.environ["XDG_CACHE_HOME"]} if "XDG_CACHE_HOME" in os.environ else {}
        params = StdioServerParameters(command=str(BIN), args=["serve", *serve_args(args)], env={**cache, **(env or {})})
        async with open_client(params, era, message_handler=message_handler, logging_callback=logging_callback) as client:
            yield client
        return
    with http_server(args, env=env) as server:
        assert server.url is not None
        async with open_client(http_target(server.url, headers), era, message_handler=message_handler, logging_callback=logging_callback) as client:
            yield client


def http_target(url: str, headers: dict[str, str] | None = None) -> Any:
    """What `mcp.Client` takes for a Streamable HTTP server: the URL, or a transport that sends `headers`."""
    if not headers:
        return url
    return streamable_http_client(url, http_client=httpx2.AsyncClient(headers=headers, timeout=30))


@asynccontextmanager
async def open_client(
    target: Any, era: str = "auto", *, message_handler: Any = None, logging_callback: Any = None
) -> AsyncIterator[Client]:
    """An entered `mcp.Client` on `target` (stdio parameters, a URL or a transport), in `era`,
    offering the Skills extension as every test client does."""
    kw: dict[str, Any] = dict(mode=era, cache=None, extensions=[advertise(SKILLS_EXT)], message_handler=message_handler)
    if logging_callback is not None:
        kw["logging_callback"] = logging_callback
    async with Client(target, **kw) as client:
        assert_era(client, era)
        yield client


def assert_era(client: Client, era: str) -> None:
    if era == "auto":
        assert client.protocol_version == MODERN, f"auto mode fell back to {client.protocol_version}: server/discover failed"
    else:
        assert client.protocol_version != MODERN


# --------------------------------------------------------------------------- skills/* requests

class SkillsGetParams(t.RequestParams):
    uri: str


class SkillsListRequest(t.Request[t.PaginatedRequestParams | None, Literal["skills/list"]]):
    method: Literal["skills/list"] = "skills/list"
    params: t.PaginatedRequestParams | None = None


class SkillsGetRequest(t.Request[SkillsGetParams, Literal["skills/get"]]):
    method: Literal["skills/get"] = "skills/get"
    params: SkillsGetParams


ANY = TypeAdapter(dict[str, Any])


async def skills_list(client: Client, cursor: str | None = None) -> dict[str, Any]:
    params = t.PaginatedRequestParams(cursor=cursor) if cursor is not None else None
    return await client.session.send_request(SkillsListRequest(params=params), ANY)


async def skills_list_pages(client: Client, limit: int = 1000) -> list[dict[str, Any]]:
    pages = [await skills_list(client)]
    while pages[-1].get("nextCursor") is not None:
        assert len(pages) < limit, "skills/list never ends"
        pages.append(await skills_list(client, pages[-1]["nextCursor"]))
    return pages


async def skills_get(client: Client, uri: str) -> dict[str, Any]:
    return await client.session.send_request(SkillsGetRequest(params=SkillsGetParams(uri=uri)), ANY)


async def list_pages(list_page: Any, limit: int = 1000) -> list[Any]:
    """Every page of a paged list (`client.list_resources`, `client.list_prompts`), following
    `next_cursor` from the first page to the last."""
    pages = [await list_page(cursor=None)]
    while pages[-1].next_cursor is not None:
        assert len(pages) < limit, "the list never ends"
        pages.append(await list_page(cursor=pages[-1].next_cursor))
    return pages


async def all_resources(client: Client) -> list[t.Resource]:
    return [r for page in await list_pages(client.list_resources) for r in page.resources]


def assert_cacheable(result: dict[str, Any]) -> None:
    assert result.get("resultType") == "complete", result.keys()
    assert isinstance(result.get("ttlMs"), int) and result["ttlMs"] >= 0, result.get("ttlMs")
    assert result.get("cacheScope") in ("public", "private"), result.get("cacheScope")


# --------------------------------------------------------------------------- raw stdio

class RawStdio:
    """`skilldeck serve` over pipes with no SDK in between: bytes in, JSON lines out.

    Every stdout line must be one JSON-RPC message (stdout carries the protocol only).
    """

    def __init__(self, args: list[str]):
        self.proc = subprocess.Popen(
            [str(BIN), "serve", *serve_args(args)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        self.lines: queue.Queue[bytes | None] = queue.Queue()
        self.stderr = bytearray()
        self._next_id = 10_000
        threading.Thread(target=self._read_out, daemon=True).start()
        threading.Thread(target=self._read_err, daemon=True).start()

    def _read_out(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def _read_err(self) -> None:
        assert self.proc.stderr is not None
        for chunk in iter(lambda: self.proc.stderr.read1(65536), b""):  # type: ignore[union-attr]
            self.stderr += chunk

    def write(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send(self, message: dict[str, Any]) -> None:
        self.write(json.dumps(message).encode() + b"\n")

    def recv(self, timeout: float = 15) -> dict[str, Any]:
        try:
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no message within {timeout}s; stderr: {bytes(self.stderr[-2000:])!r}") from None
        if line is None:
            raise AssertionError(f"server closed stdout (exit {self.proc.poll()}); stderr: {bytes(self.stderr[-2000:])!r}")
        try:
            message = json.loads(line)
        except ValueError:
            raise AssertionError(f"stdout line is not JSON: {line[:200]!r}") from None
        assert isinstance(message, dict) and message.get("jsonrpc") == "2.0", line[:200]
        return message

    def new_id(self) -> int:
        self._next_id += 1
        return self._next_id

    def until(self, id_: Any, timeout: float = 15) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """Read until the response with `id_`; return it and every message before it."""
        deadline = time.monotonic() + timeout
        seen: list[dict[str, Any]] = []
        while True:
            message = self.recv(max(0.1, deadline - time.monotonic()))
            if "id" in message and message["id"] == id_ and ("result" in message or "error" in message):
                return message, seen
            seen.append(message)

    def request(self, method: str, params: Any = None, *, timeout: float = 15) -> dict[str, Any]:
        id_ = self.new_id()
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": id_, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        return self.until(id_, timeout)[0]

    def handshake(self) -> dict[str, Any]:
        response = self.request(
            "initialize",
            {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}},
        )
        assert "result" in response, response
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return response["result"]

    def assert_alive(self) -> None:
        response = self.request("ping")
        assert response.get("result") == {}, response

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                assert self.proc.stdin is not None
                self.proc.stdin.close()
                self.proc.wait(5)
            except (subprocess.TimeoutExpired, BrokenPipeError, OSError):
                self.proc.kill()
                self.proc.wait()


def sse_or_json(response: httpx2.Response) -> list[dict[str, Any]]:
    """JSON-RPC messages of a Streamable HTTP response, whether JSON or an SSE stream."""
    ctype = response.headers.get("content-type", "")
    body = response.text
    if ctype.startswith("text/event-stream"):
        out = []
        for event in body.split("\n\n"):
            data = "\n".join(line[5:].lstrip(" ") for line in event.splitlines() if line.startswith("data:"))
            if data.strip():
                out.append(json.loads(data))
        return out
    if not body.strip():
        return []
    parsed = json.loads(body)
    return parsed if isinstance(parsed, list) else [parsed]


HTTP_ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


class RawHttp:
    """Raw POSTs to a running HTTP server, after a legacy initialize handshake."""

    def __init__(self, server: HttpServer, headers: dict[str, str] | None = None):
        assert server.url is not None
        self.url = server.url
        self.client = httpx2.Client(timeout=30)
        self.headers = {**HTTP_ACCEPT, **(headers or {})}
        self._id = 0
        init = self.post_json(
            {"jsonrpc": "2.0", "id": 0, "method": "initialize",
             "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}},
        )
        assert init.status_code == 200, (init.status_code, init.text)
        session = init.headers.get("mcp-session-id")
        if session:
            self.headers["Mcp-Session-Id"] = session
        self.headers["MCP-Protocol-Version"] = "2025-11-25"
        note = self.post_json({"jsonrpc": "2.0", "method": "notifications/initialized"})
        assert note.status_code in (200, 202), (note.status_code, note.text)

    def post(self, content: bytes, headers: dict[str, str] | None = None) -> httpx2.Response:
        return self.client.post(self.url, content=content, headers={**self.headers, **(headers or {})})

    def post_json(self, message: Any, headers: dict[str, str] | None = None) -> httpx2.Response:
        return self.post(json.dumps(message).encode(), headers)

    def request(self, method: str, params: Any = None) -> dict[str, Any]:
        self._id += 1
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": self._id, "method": method}
        if params is not None:
            message["params"] = params
        response = self.post_json(message)
        assert response.status_code == 200, (response.status_code, response.text[:500])
        replies = [m for m in sse_or_json(response) if m.get("id") == self._id]
        assert len(replies) == 1, response.text[:500]
        return replies[0]

    def assert_alive(self) -> None:
        reply = self.request("ping")
        assert reply.get("result") == {}, reply

    def close(self) -> None:
        self.client.close()
