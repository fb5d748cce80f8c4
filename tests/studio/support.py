"""Helpers for the browser tests of `skilldeck studio` (tests/studio).

Everything is real: the built binary (`SKILLDECK_BIN`, default `target/debug/skilldeck`)
serves the Studio on a free loopback port, Debian's Chromium renders its pages through
Playwright, axe-core runs inside each page, and the CLI (`inject`, `load`, `validate`,
`serve`) checks what the Studio wrote. This venv (target/venvs/studio) holds Playwright
and pytest only, not the MCP SDK, so the live test speaks raw JSON-RPC over the server's
pipes (`McpStdio`), as bench/mcp_stdio.py does.
"""

from __future__ import annotations

import http.server
import json
import os
import queue
import re
import resource
import shutil
import subprocess
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
BIN = Path(os.environ.get("SKILLDECK_BIN", REPO / "target" / "debug" / "skilldeck")).resolve()
ARTIFACTS = Path(os.environ.get("SKILLDECK_STUDIO_ARTIFACTS", REPO / "target" / "studio-artifacts"))
AXE = Path(os.environ.get("SKILLDECK_AXE", REPO / "target" / "axe" / "node_modules" / "axe-core" / "axe.min.js"))
CHROMIUM = os.environ.get("SKILLDECK_CHROMIUM", "/usr/bin/chromium")
# The flags the brief and CI need: no sandbox (root), nothing fetched from the network.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
LISTEN_RE = re.compile(r"^skilldeck studio: listening on (http://([^/]+)/)$")

# Texts the contract pins (Insika §9.5, and StoreError::Conflict's Display).
SAVED = "Skill saved."
AGENTS_UPDATED = "Skill's agents updated."
REMOVED = "Specialization removed — the agent falls back to the shared skill."


def conflict_text(name: str) -> str:
    return f"skill '{name}' was changed since this edit began: reload it, then edit again"


def skill_md(name: str, description: str, body: str) -> str:
    return f"---\nname: {name}\ndescription: {description}\n---\n\n{body}\n"


def write_disk_skill(root: Path, name: str, text: str) -> Path:
    path = root / name / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


# --------------------------------------------------------------------------- the CLI

def run_cli(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([str(BIN), *args], capture_output=True, text=True, timeout=60)
    if check and proc.returncode != 0:
        raise AssertionError(f"skilldeck {' '.join(args)} exited {proc.returncode}: {proc.stderr}")
    return proc


def validate_lines(name: str, text: str, tmp: Path) -> dict[int, list[str]]:
    """`skilldeck validate --json` on TEXT as NAME/SKILL.md: the oracle for the live
    diagnostics, as {line: [message, ...]} (diagnostics without a line left out)."""
    write_disk_skill(tmp, name, text)
    out = json.loads(run_cli("validate", str(tmp / name), "--json", check=False).stdout)
    lines: dict[int, list[str]] = {}
    for d in out["skills"][0]["diagnostics"]:
        if d["line"] is not None:
            lines.setdefault(d["line"], []).append(d["message"])
    return lines


# --------------------------------------------------------------------------- stores

_schemas = iter(range(1_000_000))


def fresh_store(kind: str, tmp: Path) -> str:
    """A new, empty store: a SQLite file in TMP, or a PostgreSQL schema of its own
    (`search_path` in the URL's options, as crates/skilldeck-store/tests and
    tests/mcp/test_live.py keep stores apart) on `SKILLDECK_TEST_POSTGRES`."""
    if kind == "sqlite":
        return str(tmp / "store.sqlite")
    url = os.environ["SKILLDECK_TEST_POSTGRES"]
    schema = f"studio_{os.getpid()}_{next(_schemas)}"
    subprocess.run(
        ["psql", "-q", "-v", "ON_ERROR_STOP=1", url, "-c", f"DROP SCHEMA IF EXISTS {schema} CASCADE; CREATE SCHEMA {schema}"],
        check=True, capture_output=True,
    )
    return f"{url}{'&' if '?' in url else '?'}options=-c%20search_path%3D{schema}"


def drop_store(location: str) -> None:
    """Drops a PostgreSQL store's schema (`fresh_store`'s); a SQLite file goes with its tmp dir."""
    if "search_path%3D" not in location:
        return
    url, schema = location.split("?options=")[0].split("&options=")[0], location.rsplit("search_path%3D", 1)[1]
    subprocess.run(["psql", "-q", url, "-c", f"DROP SCHEMA IF EXISTS {schema} CASCADE"], capture_output=True)


# --------------------------------------------------------------------------- the Studio

class Studio:
    """`skilldeck studio --listen 127.0.0.1:0 ARGS` as a child process; `url` from
    its one stderr line (`skilldeck studio: listening on http://ADDR/`)."""

    def __init__(self, args: list[str], *, listen: str = "127.0.0.1:0", nofile: int | None = None):
        """`nofile` sets the Studio's open-file limit (`ulimit -n`)."""
        env = dict(os.environ)
        env.pop("SKILLDECK_TOKEN", None)
        self.args = args
        self.proc = subprocess.Popen(
            [str(BIN), "studio", "--listen", listen, *args],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env,
            preexec_fn=None if nofile is None else lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile)),
        )
        self.stderr_lines: list[str] = []
        self.url = ""
        self._ready = threading.Event()
        threading.Thread(target=self._drain, daemon=True).start()
        if not self._ready.wait(30) or not self.url:
            self.close()
            raise AssertionError(f"studio did not print its listening line; stderr: {self.stderr_lines!r}")

    def _drain(self) -> None:
        assert self.proc.stderr is not None
        for raw in self.proc.stderr:
            line = raw.decode(errors="replace").rstrip("\n")
            self.stderr_lines.append(line)
            m = LISTEN_RE.match(line)
            if m and not self.url:
                self.url = m.group(1).rstrip("/")
                self._ready.set()
        self._ready.set()

    @property
    def hostport(self) -> str:
        return self.url.removeprefix("http://")

    def get(self, path: str) -> tuple[int, str]:
        """A plain GET outside the browser (no cookie): status and body."""
        try:
            with urllib.request.urlopen(self.url + path, timeout=30) as r:
                return r.status, r.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode()

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


class OtherService:
    """Another local service, on a loopback port of its own (cookies do not separate
    ports, so it receives the Studio's): answers every GET with `page`, setting each of
    `set_cookies`, and records each request's path and headers in `seen`."""

    def __init__(self) -> None:
        self.page = b"<!doctype html><html lang='en'><title>other</title><body>another service</body></html>"
        self.set_cookies: list[str] = []
        self.seen: list[tuple[str, dict[str, str]]] = []
        owner = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                owner.seen.append((self.path, dict(self.headers.items())))
                self.send_response(200)
                self.send_header("content-type", "text/html; charset=utf-8")
                for cookie in owner.set_cookies:
                    self.send_header("set-cookie", cookie)
                self.end_headers()
                self.wfile.write(owner.page)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def port(self) -> int:
        return int(self.server.server_address[1])

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


# --------------------------------------------------------------------------- pages

@dataclass
class Pages:
    """What the test saw on the pages it visited: screenshots under ARTIFACTS/PREFIX,
    axe-core's serious and critical violations, dialogs opened and script errors."""

    prefix: str
    step: int = 0
    violations: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def watch(self, page: Any) -> Any:
        """Listen on PAGE for dialogs (dismissed, recorded) and uncaught script errors."""

        def dialog(d: Any) -> None:
            self.dialogs.append(f"{d.type}: {d.message} on {page.url}")
            d.dismiss()

        page.on("dialog", dialog)
        page.on("pageerror", lambda e: self.errors.append(f"{page.url}: {e}"))
        return page

    def shot(self, page: Any, name: str) -> None:
        """Screenshot PAGE as NN-NAME.png and run axe-core on it."""
        self.step += 1
        out = ARTIFACTS / self.prefix / f"{self.step:02d}-{name}.png"
        out.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(out), full_page=True)
        page.add_script_tag(path=str(AXE))
        found = page.evaluate(
            """async () => (await axe.run(document, {resultTypes: ['violations']})).violations
                .filter(v => v.impact === 'serious' || v.impact === 'critical')
                .map(v => `${v.impact} ${v.id}: ${v.help} — ` + v.nodes.map(n => n.target.join(' ')).join(', '))"""
        )
        for v in found:
            line = f"{name} ({page.url}): {v}"
            print("axe:", line)
            self.violations.append(line)

    def check(self) -> None:
        """The page-wide promises of the whole visit: no dialog fired, no script error,
        no serious or critical accessibility violation."""
        assert not self.dialogs, f"dialogs fired: {self.dialogs}"
        assert not self.errors, f"script errors: {self.errors}"
        assert not self.violations, "axe-core serious/critical violations:\n" + "\n".join(self.violations)


def flash(page: Any) -> str:
    """The text of the page's flash (status or alert)."""
    return page.locator("div.flash").first.inner_text().strip()


# --------------------------------------------------------------------------- MCP over stdio

class McpStdio:
    """`skilldeck serve ARGS` over pipes, raw JSON-RPC: requests and the notifications
    that arrive between them (the SDK is not in this venv)."""

    def __init__(self, args: list[str]):
        self.proc = subprocess.Popen(
            [str(BIN), "serve", *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        )
        self.lines: queue.Queue[bytes | None] = queue.Queue()
        self.notifications: list[dict[str, Any]] = []
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def _send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()

    def _next(self, deadline: float) -> dict[str, Any]:
        try:
            line = self.lines.get(timeout=max(0.05, deadline - time.monotonic()))
        except queue.Empty:
            raise AssertionError("serve sent nothing in time") from None
        if line is None:
            raise AssertionError(f"serve exited ({self.proc.poll()})")
        return json.loads(line)

    def request(self, method: str, params: Any = None, timeout: float = 30) -> dict[str, Any]:
        self.next_id += 1
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            message["params"] = params
        self._send(message)
        deadline = time.monotonic() + timeout
        while True:
            reply = self._next(deadline)
            if reply.get("id") == self.next_id and ("result" in reply or "error" in reply):
                assert "error" not in reply, f"{method}: {reply['error']}"
                return reply["result"]
            if "method" in reply and "id" not in reply:
                self.notifications.append(reply)

    def handshake(self) -> None:
        self.request("initialize", {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "studio-tests", "version": "0"},
        })
        self._send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def wait_notification(self, method: str, timeout: float = 20) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            for i, n in enumerate(self.notifications):
                if n["method"] == method:
                    return self.notifications.pop(i)
            message = self._next(deadline)
            if "method" in message and "id" not in message:
                self.notifications.append(message)

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def chromium_missing() -> str | None:
    """Why the browser tests cannot run here, or None."""
    path = shutil.which(CHROMIUM) if not os.path.isabs(CHROMIUM) else (CHROMIUM if os.access(CHROMIUM, os.X_OK) else None)
    if path is None:
        return f"chromium not found at {CHROMIUM} (apt-get install chromium, or set SKILLDECK_CHROMIUM)"
    return None
