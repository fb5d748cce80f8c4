"""The HTTP transport's guards: loopback binding, DNS-rebinding checks, bearer tokens.

Raw requests (httpx2, which mcp depends on) check status codes; the SDK client checks
that an authorised client gets a working session.
"""

from __future__ import annotations

import json
import os
import socket
import statistics
import subprocess
import time
from typing import Any

import httpx2
import pytest

from support import BIN, HTTP_ACCEPT, LISTEN_RE, HttpServer, RawHttp, connect, http_server, sse_or_json

INIT = {
    "jsonrpc": "2.0", "id": 1, "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}},
}


def post_init(url: str, headers: dict[str, str] | None = None) -> httpx2.Response:
    return httpx2.post(url, content=json.dumps(INIT).encode(), headers={**HTTP_ACCEPT, **(headers or {})}, timeout=30)


def test_listening_line_and_loopback_default(main_tree: Any) -> None:
    with http_server(main_tree.args) as server:
        lines = [line for line in server.stderr_lines if LISTEN_RE.match(line)]
        assert len(lines) == 1
        host = server.hostport.rsplit(":", 1)[0]
        assert host in ("127.0.0.1", "localhost"), host
        assert server.port > 0
        reply = post_init(server.url)
        assert reply.status_code == 200, reply.text
        init = [m for m in sse_or_json(reply) if m.get("id") == 1]
        assert init and "result" in init[0], reply.text


@pytest.mark.parametrize(
    "headers",
    [
        {"Host": "evil.example"},
        {"Host": "evil.example:80"},
        {"Host": "attacker.test:{port}"},
        {"Host": "127.0.0.1.nip.io:{port}"},
        {"Origin": "http://evil.example"},
        {"Origin": "https://attacker.test:{port}"},
        {"Origin": "null"},
        # Another local port is another site: a page there is no client of this server.
        {"Origin": "http://localhost:3000"},
        {"Origin": "http://127.0.0.1:3000"},
    ],
    ids=lambda h: ",".join(f"{k}={v}" for k, v in h.items()),
)
def test_dns_rebinding_is_forbidden(headers: dict[str, str], main_tree: Any) -> None:
    with http_server(main_tree.args) as server:
        filled = {k: v.format(port=server.port) for k, v in headers.items()}
        reply = post_init(server.url, filled)
        assert reply.status_code == 403, (filled, reply.status_code, reply.text[:300])
        assert post_init(server.url).status_code == 200  # still serving


@pytest.mark.parametrize(
    "headers",
    [
        {"Host": "127.0.0.1:{port}"},
        {"Host": "localhost:{port}"},
        {"Origin": "http://127.0.0.1:{port}"},
        {"Origin": "http://localhost:{port}"},
    ],
    ids=lambda h: ",".join(f"{k}={v}" for k, v in h.items()),
)
def test_loopback_host_and_origin_are_allowed(headers: dict[str, str], main_tree: Any) -> None:
    with http_server(main_tree.args) as server:
        filled = {k: v.format(port=server.port) for k, v in headers.items()}
        reply = post_init(server.url, filled)
        assert reply.status_code == 200, (filled, reply.status_code, reply.text[:300])


@pytest.mark.parametrize("how", ["flag", "env"])
def test_bearer_token(how: str, main_tree: Any) -> None:
    token = "s3cret-token-\u00e9".encode().hex()
    args = [*main_tree.args, "--token", token] if how == "flag" else main_tree.args
    env = {"SKILLDECK_TOKEN": token} if how == "env" else None
    with http_server(args, env=env) as server:
        assert post_init(server.url).status_code == 401
        assert post_init(server.url, {"Authorization": "Bearer wrong"}).status_code == 401
        assert post_init(server.url, {"Authorization": f"Bearer {token}x"}).status_code == 401
        assert post_init(server.url, {"Authorization": f"Basic {token}"}).status_code == 401
        assert post_init(server.url, {"Authorization": token}).status_code == 401
        ok = post_init(server.url, {"Authorization": f"Bearer {token}"})
        assert ok.status_code == 200, ok.text
        raw = RawHttp(server, {"Authorization": f"Bearer {token}"})
        try:
            raw.assert_alive()
            no_auth = raw.post_json({"jsonrpc": "2.0", "id": 99, "method": "ping"}, {"Authorization": ""})
            assert no_auth.status_code == 401
        finally:
            raw.close()


def test_flag_token_wins_over_env(main_tree: Any) -> None:
    flag, env = "from-the-flag-0123", "from-the-environment-0123"
    with http_server([*main_tree.args, "--token", flag], env={"SKILLDECK_TOKEN": env}) as server:
        assert post_init(server.url, {"Authorization": f"Bearer {env}"}).status_code == 401
        assert post_init(server.url, {"Authorization": f"Bearer {flag}"}).status_code == 200


@pytest.mark.anyio
@pytest.mark.parametrize("era", ["auto", "legacy"])
async def test_sdk_client_with_token(era: str, main_tree: Any) -> None:
    token = "sdk-token-0123456789"
    args = [*main_tree.args, "--token", token]
    async with connect("http", era, args, headers={"Authorization": f"Bearer {token}"}) as client:
        result = await client.call_tool("skill", {"name": "beta"})
        assert not result.is_error


def test_non_loopback_without_token_exits_2(main_tree: Any) -> None:
    env = {k: v for k, v in os.environ.items() if k != "SKILLDECK_TOKEN"}
    proc = subprocess.run(
        [str(BIN), "serve", "--http", "0.0.0.0:0", *main_tree.args],
        stdin=subprocess.DEVNULL, capture_output=True, timeout=30, env=env,
    )
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    assert proc.stdout == b""
    assert proc.stderr.strip(), "a usage error says why on stderr"
    assert b"listening" not in proc.stderr


@pytest.mark.parametrize("how", ["flag", "env"])
def test_non_loopback_with_token_serves(how: str, main_tree: Any) -> None:
    token = "beyond-loopback-0123"
    args = [*main_tree.args, "--token", token] if how == "flag" else main_tree.args
    env = {"SKILLDECK_TOKEN": token} if how == "env" else None
    with HttpServer(args, bind="0.0.0.0:0", env=env) as server:
        url = f"http://127.0.0.1:{server.port}/mcp"
        assert post_init(url).status_code == 401
        assert post_init(url, {"Authorization": f"Bearer {token}"}).status_code == 200


def test_stdio_is_default_and_stdout_is_protocol_only(main_tree: Any) -> None:
    """With no --http, serve speaks JSON-RPC on stdin/stdout and prints nothing else there."""
    init = json.dumps(INIT).encode() + b"\n"
    proc = subprocess.run([str(BIN), "serve", *main_tree.args], input=init, capture_output=True, timeout=30)
    lines = [line for line in proc.stdout.split(b"\n") if line]
    assert len(lines) == 1, proc.stdout[:500]
    reply = json.loads(lines[0])
    assert reply["id"] == 1 and "result" in reply
    assert proc.returncode == 0, proc.stderr


def test_http_keepalive_round_trip_is_fast(main_tree: Any) -> None:
    """Round trips on one kept-alive connection (the way every HTTP client talks) stay well under 20 ms."""
    with http_server(main_tree.args) as server:
        raw = RawHttp(server)
        try:
            headers = {**raw.headers, "Host": f"127.0.0.1:{server.port}", "Content-Length": ""}
            body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}).encode()
            headers["Content-Length"] = str(len(body))
            request = (
                "POST /mcp HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers.items()) + "\r\n"
            ).encode() + body
            sock = socket.create_connection(("127.0.0.1", server.port))
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            times = []
            try:
                for _ in range(20):
                    start = time.perf_counter()
                    sock.sendall(request)  # one write: the client side adds no delay
                    buffer = b""
                    while not buffer.endswith(b"0\r\n\r\n"):  # the end of the chunked SSE body
                        chunk = sock.recv(65536)
                        assert chunk, buffer
                        buffer += chunk
                    assert b'"result":{}' in buffer, buffer
                    times.append(time.perf_counter() - start)
            finally:
                sock.close()
            assert statistics.median(times) < 0.020, f"median round trip {statistics.median(times) * 1000:.1f} ms"
        finally:
            raw.close()
