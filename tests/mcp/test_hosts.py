"""The README's host setup ("Using skilldeck in a host"), snippet by snippet, fed to the
hosts' own config loaders and then connected to the real server.

Each snippet is read from README.md by its `<!-- host-snippet: NAME -->` marker, so a
README edit that breaks one fails here. The README's placeholder paths
(`/home/you/.cargo/bin/skilldeck`, `/home/you/skills`) and port (8765) are replaced by
this machine's; nothing else in a snippet is touched.

- Claude Code (`SKILLDECK_CLAUDE`, installed by scripts/test): the `claude mcp add`
  lines run in bash with a throwaway HOME; `~/.claude.json` must hold what the README
  means, and `claude mcp list` must report the server `✔ Connected` (it starts it and
  completes the handshake), while a control entry fails. The `mcpServers` file is read
  by Claude Code too, as a project's `.mcp.json` (the same shape).
- Codex (`SKILLDECK_CODEX`, installed by scripts/test): `codex mcp add` and the TOML
  table go through Codex's own config loader (`codex mcp get --json`), then Codex's app
  server connects to each server it lists (`mcpServerStatus/list`), offline.
- VS Code and Cursor have no CLI here: their files are parsed strictly, checked against
  the shape the host documents, and the server they name is started and initialised
  with the official Python SDK.

A host CLI that is missing skips its tests, with the reason.
"""

from __future__ import annotations

import json
import os
import queue
import re
import shlex
import socket
import subprocess
import threading
import time
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import StdioServerParameters

from support import (
    BIN,
    CLAUDE_OFFLINE_ENV,
    HTTP_ACCEPT,
    REPO,
    HttpServer,
    disk_files,
    http_server,
    http_target,
    open_client,
    run_cli,
    skill_uri,
)

README = REPO / "README.md"
SNIPPET = re.compile(r"^<!-- host-snippet: (\S+) -->\n```(\w+)\n(.*?)^```$", re.MULTILINE | re.DOTALL)
MARKER = re.compile(r"<!-- host-snippet: (\S+) -->")
# Every snippet the README has, with its fence's language: one more or one less fails.
SNIPPETS = {
    "claude-code-stdio": "sh",
    "mcpservers-stdio": "json",
    "vscode-stdio": "json",
    "codex-stdio": "sh",
    "codex-toml": "toml",
    "http-serve": "sh",
    "claude-code-http": "sh",
    "codex-http": "sh",
    "vscode-http": "json",
    "cursor-http": "json",
}

# The README's placeholders, which a reader replaces with their own absolute paths.
README_BIN = "/home/you/.cargo/bin/skilldeck"
README_ROOT = "/home/you/skills"
README_ADDR = "127.0.0.1:8765"
README_ARGS = ["serve", "--root", README_ROOT]

ROOT = REPO / "examples" / "skills"
NAME = "skilldeck"

CLAUDE = os.environ.get("SKILLDECK_CLAUDE")
CODEX = os.environ.get("SKILLDECK_CODEX")
needs_claude = pytest.mark.skipif(not CLAUDE, reason="SKILLDECK_CLAUDE (Claude Code's claude binary) is not set")
needs_codex = pytest.mark.skipif(not CODEX, reason="SKILLDECK_CODEX (the Codex CLI's codex binary) is not set")


# --------------------------------------------------------------------------- the README

def readme_snippets() -> dict[str, tuple[str, str]]:
    """Every marked snippet of README.md: name -> (fence language, text)."""
    text = README.read_text(encoding="utf-8")
    markers = MARKER.findall(text)
    assert len(markers) == len(set(markers)), f"a host-snippet marker is used twice: {markers}"
    blocks = {m.group(1): (m.group(2), m.group(3)) for m in SNIPPET.finditer(text)}
    assert sorted(blocks) == sorted(markers), "a host-snippet marker is not followed at once by a fenced block"
    return blocks


def snippet(name: str) -> str:
    lang, text = readme_snippets()[name]
    assert lang == SNIPPETS[name], (name, lang)
    return text


def localize(text: str, port: int | None = None) -> str:
    """A shell or TOML snippet with the README's placeholders replaced by this machine's."""
    out = text.replace(README_BIN, str(BIN)).replace(README_ROOT, str(ROOT))
    if port is not None:
        assert README_ADDR in out, text
        out = out.replace(README_ADDR, f"127.0.0.1:{port}")
    assert "/home/you" not in out, f"a placeholder path the tests do not know: {text}"
    return out


def strict_json(text: str) -> Any:
    """JSON as the hosts read it, stricter still: no duplicate key, no NaN (comments and
    trailing commas are refused by the parser already)."""

    def no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        keys = [k for k, _ in pairs]
        assert len(keys) == len(set(keys)), f"duplicate key in {keys}"
        return dict(pairs)

    def no_constant(name: str) -> Any:
        raise AssertionError(f"{name} is not JSON")

    return json.loads(text, object_pairs_hook=no_duplicates, parse_constant=no_constant)


def assert_stdio_entry(entry: dict[str, Any], allowed: set[str]) -> StdioServerParameters:
    """A stdio entry as the README writes it (absolute placeholders), and what launches it here."""
    assert set(entry) <= allowed, f"{sorted(set(entry) - allowed)} not in the host's documented fields"
    assert entry["command"] == README_BIN, entry
    assert entry["args"] == README_ARGS, entry
    assert all(isinstance(a, str) for a in entry["args"])
    return StdioServerParameters(command=str(BIN), args=[a.replace(README_ROOT, str(ROOT)) for a in entry["args"]])


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# --------------------------------------------------------------------------- what a connected host sees

def expected_instructions() -> str:
    return run_cli("prompt", "--root", str(ROOT), check=True).stdout.decode()


def expected_uris() -> list[str]:
    return sorted(
        skill_uri(skill.name, rel) for skill in ROOT.iterdir() if skill.is_dir() for rel in disk_files(skill)
    )


async def assert_serves_the_examples(target: Any) -> None:
    """Connect with the official SDK: the level-1 catalog of the README's root, and its tool."""
    async with open_client(target) as client:
        assert client.instructions == expected_instructions()
        assert "skill" in [tool.name for tool in (await client.list_tools()).tools]


# --------------------------------------------------------------------------- host CLIs

def run_shell(text: str, cwd: Path, env: dict[str, str]) -> str:
    """A README shell snippet, run as a reader would paste it."""
    proc = subprocess.run(["bash", "-euo", "pipefail", "-c", text], cwd=cwd, env=env, capture_output=True, timeout=120)
    assert proc.returncode == 0, (text, proc.stdout.decode(errors="replace"), proc.stderr.decode(errors="replace"))
    return proc.stdout.decode()


def run_host(argv: list[str], cwd: Path, env: dict[str, str]) -> str:
    proc = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, timeout=120)
    assert proc.returncode == 0, (argv, proc.stdout.decode(errors="replace"), proc.stderr.decode(errors="replace"))
    return proc.stdout.decode()


def host_dirs(tmp_path: Path) -> tuple[Path, Path]:
    """A throwaway home and project, and a PATH directory where `claude` and `codex` are the hosts."""
    home, project, bindir = tmp_path / "home", tmp_path / "project", tmp_path / "bin"
    for d in (home, project, bindir, home / ".codex"):
        d.mkdir()
    for name, path in (("claude", CLAUDE), ("codex", CODEX)):
        if path:
            (bindir / name).symlink_to(path)
    return home, project


def host_env(home: Path, **extra: str) -> dict[str, str]:
    path = f"{home.parent / 'bin'}{os.pathsep}{os.environ.get('PATH', '/usr/bin:/bin')}"
    return {**CLAUDE_OFFLINE_ENV, "PATH": path, "HOME": str(home), "CODEX_HOME": str(home / ".codex"), **extra}


def claude_project_servers(home: Path, project: Path) -> dict[str, Any]:
    """The local-scope servers Claude Code keeps for `project` in ~/.claude.json."""
    projects = json.loads((home / ".claude.json").read_text())["projects"]
    return projects[str(project)]["mcpServers"]


def claude_mcp_list(project: Path, env: dict[str, str]) -> list[str]:
    """`claude mcp list`: Claude Code starts each server and completes the MCP handshake."""
    assert CLAUDE is not None
    return run_host([CLAUDE, "mcp", "list"], project, env).splitlines()


def codex_get(name: str, project: Path, env: dict[str, str]) -> dict[str, Any]:
    assert CODEX is not None
    return json.loads(run_host([CODEX, "mcp", "get", name, "--json"], project, env))


def codex_mcp_status(project: Path, env: dict[str, str], timeout: float = 60) -> dict[str, dict[str, Any]]:
    """Codex's app server (JSON lines on stdio) connects to every configured MCP server and
    reports each one's server info, tools and resources (`mcpServerStatus/list`)."""
    assert CODEX is not None
    proc = subprocess.Popen(
        [CODEX, "app-server"], cwd=project, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    lines: queue.Queue[bytes] = queue.Queue()
    stderr = bytearray()
    threading.Thread(target=lambda: [lines.put(line) for line in proc.stdout], daemon=True).start()  # type: ignore[union-attr]
    threading.Thread(target=lambda: stderr.extend(proc.stderr.read()), daemon=True).start()  # type: ignore[union-attr]

    def send(message: dict[str, Any]) -> None:
        assert proc.stdin is not None
        proc.stdin.write(json.dumps(message).encode() + b"\n")
        proc.stdin.flush()

    def answer(id_: int) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            try:
                message = json.loads(lines.get(timeout=left))
            except queue.Empty:
                break
            if message.get("id") == id_:
                assert "result" in message, message
                return message["result"]
        raise AssertionError(f"codex app-server did not answer request {id_}; stderr: {bytes(stderr[-2000:])!r}")

    try:
        send({"id": 1, "method": "initialize", "params": {"clientInfo": {"name": "skilldeck-tests", "version": "0"}}})
        answer(1)
        send({"method": "initialized"})
        send({"id": 2, "method": "mcpServerStatus/list", "params": {}})
        return {entry["name"]: entry for entry in answer(2)["data"]}
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def assert_codex_connected(status: dict[str, Any]) -> None:
    assert status["toolsError"] is None, status["toolsError"]
    assert status["serverInfo"]["name"] == "skilldeck", status["serverInfo"]
    assert list(status["tools"]) == ["skill"], list(status["tools"])
    assert sorted(r["uri"] for r in status["resources"]) == expected_uris()


# --------------------------------------------------------------------------- the snippets themselves

def test_every_readme_snippet_is_known_and_fenced() -> None:
    found = {name: lang for name, (lang, _) in readme_snippets().items()}
    assert found == SNIPPETS


def test_every_snippet_uses_the_absolute_placeholders() -> None:
    # Each launches the server by absolute path and gives an absolute --root; HTTP ones
    # name the fixed port the serve line listens on.
    for name in SNIPPETS:
        text = snippet(name)
        if name in ("claude-code-stdio", "codex-stdio", "mcpservers-stdio", "vscode-stdio", "codex-toml", "http-serve"):
            assert README_BIN in text and README_ROOT in text, name
        if "http" in name:
            assert README_ADDR in text, name


# --------------------------------------------------------------------------- stdio

@needs_claude
def test_claude_code_adds_and_connects_the_stdio_snippet(tmp_path: Path) -> None:
    assert CLAUDE is not None
    home, project = host_dirs(tmp_path)
    env = host_env(home)
    run_shell(localize(snippet("claude-code-stdio")), project, env)
    assert claude_project_servers(home, project) == {
        NAME: {"type": "stdio", "command": str(BIN), "args": ["serve", "--root", str(ROOT)], "env": {}}
    }
    # A control: the health check really starts the command, so a missing one fails.
    missing = tmp_path / "no-such-skilldeck"
    run_host([CLAUDE, "mcp", "add", "control", "--", str(missing), "serve"], project, env)
    listing = claude_mcp_list(project, env)
    assert f"{NAME}: {BIN} serve --root {ROOT} - ✔ Connected" in listing, listing
    assert f"control: {missing} serve - ✘ Failed to connect" in listing, listing


@pytest.mark.anyio
async def test_mcpservers_snippet_is_the_desktop_and_cursor_shape_and_serves() -> None:
    config = strict_json(snippet("mcpservers-stdio"))
    assert list(config) == ["mcpServers"]
    assert list(config["mcpServers"]) == [NAME]
    # Claude Desktop documents command, args and env for a local server (Cursor accepts the same).
    params = assert_stdio_entry(config["mcpServers"][NAME], {"command", "args", "env"})
    await assert_serves_the_examples(params)


@needs_claude
def test_claude_code_reads_the_mcpservers_snippet_as_a_project_file(tmp_path: Path) -> None:
    # Claude Code's project scope is a `.mcp.json` of the same shape: the exact file, placed
    # there, approved the way Claude Code records a user's approval, connects.
    home, project = host_dirs(tmp_path)
    env = host_env(home)
    config = strict_json(snippet("mcpservers-stdio"))
    entry = config["mcpServers"][NAME]
    entry["command"] = str(BIN)
    entry["args"] = [a.replace(README_ROOT, str(ROOT)) for a in entry["args"]]
    (project / ".mcp.json").write_text(json.dumps(config))
    approval = {"hasTrustDialogAccepted": True, "enabledMcpjsonServers": [NAME]}
    (home / ".claude.json").write_text(json.dumps({"projects": {str(project): approval}}))
    listing = claude_mcp_list(project, env)
    assert f"{NAME}: {BIN} serve --root {ROOT} - ✔ Connected" in listing, listing


@pytest.mark.anyio
async def test_vscode_stdio_snippet_is_vscode_shape_and_serves() -> None:
    config = strict_json(snippet("vscode-stdio"))
    assert list(config) == ["servers"]  # VS Code's key, not mcpServers
    assert list(config["servers"]) == [NAME]
    entry = config["servers"][NAME]
    assert entry["type"] == "stdio"
    params = assert_stdio_entry(entry, {"type", "command", "args", "env", "envFile"})
    await assert_serves_the_examples(params)


@needs_codex
def test_codex_adds_and_connects_the_stdio_snippet(tmp_path: Path) -> None:
    home, project = host_dirs(tmp_path)
    env = host_env(home)
    run_shell(localize(snippet("codex-stdio")), project, env)
    got = codex_get(NAME, project, env)
    assert got["transport"]["type"] == "stdio"
    assert got["transport"]["command"] == str(BIN)
    assert got["transport"]["args"] == ["serve", "--root", str(ROOT)]
    assert got["startup_timeout_sec"] is None  # Codex's default: 10 s
    assert_codex_connected(codex_mcp_status(project, env)[NAME])


@needs_codex
def test_codex_reads_the_toml_snippet_and_connects(tmp_path: Path) -> None:
    home, project = host_dirs(tmp_path)
    env = host_env(home)
    text = snippet("codex-toml")
    table = tomllib.loads(text)  # TOML 1.0, strict
    assert table == {
        "mcp_servers": {NAME: {"command": README_BIN, "args": README_ARGS, "startup_timeout_sec": 30}}
    }
    (home / ".codex" / "config.toml").write_text(localize(text))
    got = codex_get(NAME, project, env)
    assert (got["transport"]["command"], got["transport"]["args"]) == (str(BIN), ["serve", "--root", str(ROOT)])
    assert got["startup_timeout_sec"] == 30
    assert_codex_connected(codex_mcp_status(project, env)[NAME])


# --------------------------------------------------------------------------- HTTP

@pytest.fixture(scope="module")
def readme_http() -> Iterator[tuple[HttpServer, str]]:
    """The README's HTTP server: its token line run by bash, its serve line on a free port."""
    export, serve = snippet("http-serve").splitlines()
    token = subprocess.run(
        ["bash", "-euc", f'{export}\nprintf %s "$SKILLDECK_TOKEN"'], capture_output=True, text=True, check=True
    ).stdout
    assert re.fullmatch(r"[0-9a-f]{64}", token), token
    port = free_port()
    argv = shlex.split(localize(serve, port))
    assert argv == [str(BIN), "serve", "--root", str(ROOT), "--http", f"127.0.0.1:{port}"]
    with http_server([], command=argv, env={"SKILLDECK_TOKEN": token}) as server:
        assert server.url == f"http://127.0.0.1:{port}/mcp"
        yield server, token


def initialize_status(url: str, headers: dict[str, str]) -> int:
    body = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}}
    return httpx2.post(url, json=body, headers={**HTTP_ACCEPT, **headers}, timeout=30).status_code


def test_the_readme_http_server_wants_its_token(readme_http: tuple[HttpServer, str]) -> None:
    server, token = readme_http
    assert server.url is not None
    assert initialize_status(server.url, {}) == 401
    assert initialize_status(server.url, {"Authorization": "Bearer not-the-token"}) == 401
    assert initialize_status(server.url, {"Authorization": f"Bearer {token}"}) == 200


@needs_claude
def test_claude_code_adds_and_connects_the_http_snippet(tmp_path: Path, readme_http: tuple[HttpServer, str]) -> None:
    assert CLAUDE is not None
    server, token = readme_http
    home, project = host_dirs(tmp_path)
    env = host_env(home, SKILLDECK_TOKEN=token)
    run_shell(localize(snippet("claude-code-http"), server.port), project, env)
    assert claude_project_servers(home, project) == {
        NAME: {"type": "http", "url": server.url, "headers": {"Authorization": f"Bearer {token}"}}
    }
    # A control: the same server with the wrong token must fail the health check.
    run_host(
        [CLAUDE, "mcp", "add", "--transport", "http", "control", str(server.url), "--header", "Authorization: Bearer wrong"],
        project, env,
    )
    listing = claude_mcp_list(project, env)
    assert f"{NAME}: {server.url} (HTTP) - ✔ Connected" in listing, listing
    assert f"control: {server.url} (HTTP) - ✘ Failed to connect" in listing, listing


@needs_codex
def test_codex_adds_and_connects_the_http_snippet(tmp_path: Path, readme_http: tuple[HttpServer, str]) -> None:
    server, token = readme_http
    home, project = host_dirs(tmp_path)
    env = host_env(home)
    run_shell(localize(snippet("codex-http"), server.port), project, env)
    transport = codex_get(NAME, project, env)["transport"]
    assert (transport["type"], transport["url"], transport["bearer_token_env_var"]) == (
        "streamable_http", server.url, "SKILLDECK_TOKEN",
    )
    # Codex reads the token from the variable when it connects: without it, no connection.
    assert "SKILLDECK_TOKEN" in codex_mcp_status(project, env)[NAME]["toolsError"]
    assert_codex_connected(codex_mcp_status(project, {**env, "SKILLDECK_TOKEN": token})[NAME])


@pytest.mark.anyio
async def test_vscode_http_snippet_is_vscode_shape_and_serves(readme_http: tuple[HttpServer, str]) -> None:
    server, token = readme_http
    config = strict_json(snippet("vscode-http"))
    assert list(config) == ["inputs", "servers"]
    assert list(config["servers"]) == [NAME]
    entry = config["servers"][NAME]
    assert set(entry) == {"type", "url", "headers"} and entry["type"] == "http"
    assert entry["url"] == f"http://{README_ADDR}/mcp"
    # `${input:ID}` names a declared promptString input, kept as a password.
    inputs = {i["id"]: i for i in config["inputs"]}
    (auth,) = entry["headers"].items()
    assert auth[0] == "Authorization"
    ids = re.findall(r"\$\{input:([^}]+)\}", auth[1])
    assert len(ids) == 1 and inputs[ids[0]]["type"] == "promptString" and inputs[ids[0]]["password"] is True
    headers = {auth[0]: auth[1].replace(f"${{input:{ids[0]}}}", token)}
    url = entry["url"].replace(README_ADDR, f"127.0.0.1:{server.port}")
    await assert_serves_the_examples(http_target(url, headers))


@pytest.mark.anyio
async def test_cursor_http_snippet_is_cursor_shape_and_serves(readme_http: tuple[HttpServer, str]) -> None:
    server, token = readme_http
    config = strict_json(snippet("cursor-http"))
    assert list(config) == ["mcpServers"]
    assert list(config["mcpServers"]) == [NAME]
    entry = config["mcpServers"][NAME]
    assert set(entry) == {"url", "headers"}
    assert entry["url"] == f"http://{README_ADDR}/mcp"
    # Cursor fills `${env:NAME}` from its environment: the variable the serve line exports.
    (auth,) = entry["headers"].items()
    assert auth == ("Authorization", "Bearer ${env:SKILLDECK_TOKEN}")
    headers = {auth[0]: auth[1].replace("${env:SKILLDECK_TOKEN}", token)}
    url = entry["url"].replace(README_ADDR, f"127.0.0.1:{server.port}")
    await assert_serves_the_examples(http_target(url, headers))
