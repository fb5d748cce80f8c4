"""Every wait has a deadline (issue 10, items 6 and 7; issue 19, item 4).

HTTP: a client has `--http-header-timeout` seconds to send a request's head,
`--http-body-timeout` seconds for its body, and may leave what the server writes unread
for `--http-write-timeout` seconds; at most `--http-max-connections` connections
are served at once (by default a share of the open-file limit), at most
`--http-max-per-peer` from one address, and when either is full the connection that has
waited longest for its head makes room; at most `--http-max-sessions` sessions live, and
a session idle for `--http-session-idle` seconds is closed. The tests set the numbers low
so that they take seconds, and count what the server holds.

stdio: a client that stops reading stdout stops the server reading stdin; its memory
stays bounded, and every answer arrives once the client reads again.
"""

from __future__ import annotations

import json
import os
import select
import socket
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import pytest
import httpx2

from support import BIN, HTTP_ACCEPT, HttpServer, http_server, sse_or_json

TOKEN = "deadline-token-0123"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
INIT = {
    "jsonrpc": "2.0", "id": 1, "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}},
}
HALF_A_REQUEST_LINE = b"POST /mcp HT"


def limited(tree: Any, **limits: int) -> list[str]:
    """`serve` flags for `tree` with a token and the given `--http-*` limits."""
    args = [*tree.args, "--token", TOKEN]
    for name, value in limits.items():
        args += [f"--http-{name.replace('_', '-')}", str(value)]
    return args


def initialize(server: HttpServer, timeout: float = 10) -> httpx2.Response:
    assert server.url is not None
    return httpx2.post(server.url, content=json.dumps(INIT).encode(), headers={**HTTP_ACCEPT, **AUTH}, timeout=timeout)


def slow_socket(server: HttpServer, data: bytes = HALF_A_REQUEST_LINE) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=10)
    sock.sendall(data)
    return sock


# How long a test waits for the server to close a connection past its deadline before
# calling it held for ever: a hang guard, not a speed check (a loaded machine may close late,
# never early, so the tests bound a close from below only).
HANG_GUARD = 30


def closed_after(sock: socket.socket, start: float, limit: float = HANG_GUARD) -> tuple[float, bytes]:
    """Seconds from `start` until the server closes `sock` (waiting `limit` seconds at most),
    and what it sent before closing."""
    sock.settimeout(max(0.1, start + limit - time.monotonic()))
    received = b""
    try:
        while chunk := sock.recv(65536):
            received += chunk
    except ConnectionResetError:
        pass
    except TimeoutError:
        raise AssertionError(f"still open after {limit}s; received {received!r}") from None
    finally:
        sock.close()
    return time.monotonic() - start, received


def socket_count(pid: int) -> int:
    fd_dir = Path(f"/proc/{pid}/fd")
    count = 0
    for fd in fd_dir.iterdir():
        try:
            count += os.readlink(fd).startswith("socket:")
        except OSError:
            pass
    return count


def test_slow_heads_are_closed_at_their_deadline_and_others_are_served(main_tree: Any) -> None:
    with http_server(limited(main_tree, max_connections=4, max_per_peer=4, header_timeout=8)) as server:
        start = time.monotonic()
        slow = [slow_socket(server) for _ in range(3)]
        time.sleep(0.3)
        reply = initialize(server)
        assert reply.status_code == 200, reply.text
        # Served while the slow ones still hold their slots: they are open after the answer.
        for sock in slow:
            sock.setblocking(False)
            with pytest.raises(BlockingIOError):
                sock.recv(1)
            sock.setblocking(True)
        for sock in slow:
            elapsed, received = closed_after(sock, start)
            assert elapsed >= 7.5, elapsed
            assert received == b"" or received.startswith(b"HTTP/1.1 408"), received


def test_a_head_sent_a_byte_at_a_time_is_closed_at_its_deadline(main_tree: Any) -> None:
    with http_server(limited(main_tree, header_timeout=2)) as server:
        head = f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nAuthorization: Bearer {TOKEN}\r\n".encode()
        start = time.monotonic()
        sock = slow_socket(server, head[:1])
        try:
            for byte in head[1:12]:  # busy, but never done
                time.sleep(0.3)
                sock.sendall(bytes([byte]))
        except OSError:
            pass  # closed while sending: checked below
        elapsed, _ = closed_after(sock, start)
        assert elapsed >= 1.5, elapsed


def test_a_client_that_does_not_read_is_closed_at_the_write_deadline(main_tree: Any) -> None:
    with http_server(limited(main_tree, max_connections=1, write_timeout=2)) as server:
        sock = socket.create_connection(("127.0.0.1", server.port), timeout=10)
        # Small, so that the answers fill it soon, but above loopback's segment size (64 KiB):
        # at 4 KiB the kernel dropped whole segments, and TCP's retransmission backoff then
        # held the client's requests back for seconds, the server waiting for them with
        # nothing left to write (seen about once in six runs).
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 131072)
        sock.setblocking(False)
        # Pipelined requests refused before any token is asked for (403), never read.
        requests = b"GET /mcp HTTP/1.1\r\nHost: evil.example\r\n\r\n" * 100
        # The deadline runs from when the server's writes stall, once the answers fill both
        # sockets' buffers (on loopback, megabytes: seconds of answers on a busy machine).
        # The server then reads no more, so the client's sends block from about then on.
        start = time.monotonic()
        stalled = closed = None
        while closed is None and time.monotonic() - start < HANG_GUARD:
            try:
                sock.send(requests)
            except BlockingIOError:
                stalled = stalled or time.monotonic()
                time.sleep(0.05)
            except (ConnectionResetError, BrokenPipeError):
                closed = time.monotonic()
        sock.close()
        assert closed is not None and stalled is not None, "a client that reads nothing held its connection for 30 s"
        # Its slot, the only one, serves others again.
        assert initialize(server).status_code == 200


def half_lines(server: HttpServer, count: int) -> list[socket.socket]:
    return [slow_socket(server) for _ in range(count)]


def closed_by_server(sock: socket.socket, wait: float) -> bool:
    """Whether the server closed SOCK (end of file or reset) within WAIT seconds."""
    sock.settimeout(wait)
    try:
        while sock.recv(65536):
            pass
        return True
    except ConnectionResetError:
        return True
    except TimeoutError:
        return False


def test_half_request_lines_beyond_the_cap_are_shed_and_a_client_is_answered(main_tree: Any) -> None:
    # A head deadline of a minute: only making room answers the client in time.
    with http_server(limited(main_tree, max_connections=16, header_timeout=60)) as server:
        assert server.proc.pid
        idle = socket_count(server.proc.pid)
        flood = half_lines(server, 64)
        reply = initialize(server, timeout=20)
        assert reply.status_code == 200, reply.text
        # The server holds no more than its cap: at least 48 half-lines were closed to make
        # room. Each is waited for (a loaded machine closes late, never early) up to the hang
        # guard, so the count does not depend on how fast the machine is. Which ones go (the
        # longest stalled first) depends on the order the server's tasks first read them, so
        # that order is the table's own unit test (a_full_table_sheds_the_longest_waiting).
        open_ = list(flood)
        closed = 0
        deadline = time.monotonic() + HANG_GUARD
        while closed < 64 - 16 and time.monotonic() < deadline:
            readable, _, _ = select.select(open_, [], [], 0.5)
            for sock in readable:
                if closed_by_server(sock, 0.1):
                    open_.remove(sock)
                    closed += 1
        assert closed >= 64 - 16, f"{closed} of 64 closed"
        assert socket_count(server.proc.pid) <= idle + 16
        for sock in flood:
            sock.close()


def test_an_attacker_reopening_what_is_shed_keeps_no_client_out(main_tree: Any) -> None:
    with http_server(limited(main_tree, max_connections=256, header_timeout=60)) as server:
        stop = threading.Event()
        opened = [0]

        def flood() -> None:
            # 300 half-lines held open, beyond the cap; each one the server closes is opened
            # again at once. Bounded: 3,000 sockets or 30 s. (With a cap this tool's own
            # churn cannot run through while a client sends its head: the client shares
            # this process, and its GIL, with the attacker.)
            held = [slow_socket(server) for _ in range(300)]
            opened[0] = len(held)
            start = time.monotonic()
            while not stop.is_set() and opened[0] < 3000 and time.monotonic() - start < 30:
                readable, _, _ = select.select(held, [], [], 0.05)
                for sock in readable:
                    held.remove(sock)
                    sock.close()
                    try:
                        held.append(slow_socket(server))
                    except OSError:
                        continue
                    opened[0] += 1
            for sock in held:
                sock.close()

        attacker = threading.Thread(target=flood, daemon=True)
        attacker.start()
        try:
            while opened[0] < 300:
                time.sleep(0.01)
            answered = [initialize(server, timeout=20).status_code for _ in range(10)]
        finally:
            stop.set()
            attacker.join(40)
        assert answered == [200] * 10


def test_the_cap_is_sized_from_the_open_file_limit(main_tree: Any) -> None:
    # 256 descriptors: the cap is (256 - 128) / 2 = 64; 300 silent sockets beyond it.
    with http_server(limited(main_tree, header_timeout=60), nofile=256) as server:
        assert server.proc.pid
        silent = [socket.create_connection(("127.0.0.1", server.port), timeout=10) for _ in range(300)]
        reply = initialize(server, timeout=20)
        assert reply.status_code == 200, reply.text
        assert socket_count(server.proc.pid) < 256
        for sock in silent:
            sock.close()


def test_a_cap_set_beyond_the_open_file_limit_still_answers(main_tree: Any) -> None:
    # A cap of 1,000 with 256 descriptors: accepting runs out of descriptors first, and
    # each time closes the connection that has waited longest to make room.
    args = limited(main_tree, max_connections=1000, max_per_peer=1000, header_timeout=60)
    with http_server(args, nofile=256) as server:
        silent = [socket.create_connection(("127.0.0.1", server.port), timeout=10) for _ in range(400)]
        reply = initialize(server, timeout=20)
        assert reply.status_code == 200, reply.text
        for sock in silent:
            sock.close()


def test_one_address_is_held_to_its_share(main_tree: Any) -> None:
    with http_server(limited(main_tree, max_connections=64, max_per_peer=4, header_timeout=60)) as server:
        theirs = []
        for _ in range(10):
            sock = socket.socket()
            sock.bind(("127.0.0.2", 0))
            sock.connect(("127.0.0.1", server.port))
            sock.sendall(HALF_A_REQUEST_LINE)
            theirs.append(sock)
        # Another address is served at once; theirs hold four, six closed. (Which six is
        # the order in which the server's tasks first read them, not quite their order.)
        assert initialize(server, timeout=20).status_code == 200
        closed = [closed_by_server(sock, 0.2) for sock in theirs]
        assert closed.count(True) == 6 and closed[-1] is False, closed
        for sock in theirs:
            sock.close()


def test_a_slow_body_is_refused_at_its_deadline(main_tree: Any) -> None:
    with http_server(limited(main_tree, body_timeout=2)) as server:
        body = json.dumps(INIT).encode()
        head = (
            f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nAuthorization: Bearer {TOKEN}\r\n"
            f"Accept: application/json, text/event-stream\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n"
        ).encode()
        start = time.monotonic()
        sock = slow_socket(server, head)
        for byte in body[:6]:  # one byte every 0.4 s: the body would take a minute
            sock.sendall(bytes([byte]))
            time.sleep(0.4)
        elapsed, received = closed_after(sock, start)
        assert elapsed >= 1.5, elapsed
        head_bytes, _, payload = received.partition(b"\r\n\r\n")
        assert head_bytes.startswith(b"HTTP/1.1 408 Request Timeout\r\n"), received
        assert b"\r\nconnection: close\r\n" in head_bytes.lower() + b"\r\n", received
        assert payload == (
            b'{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request: body not received within 2s"}}'
        )
        assert initialize(server).status_code == 200


def session_of(reply: httpx2.Response) -> str:
    assert reply.status_code == 200, (reply.status_code, reply.text)
    session = reply.headers.get("mcp-session-id")
    assert session
    return session


def ping(server: HttpServer, session: str) -> httpx2.Response:
    assert server.url is not None
    headers = {**HTTP_ACCEPT, **AUTH, "Mcp-Session-Id": session, "MCP-Protocol-Version": "2025-11-25"}
    message = {"jsonrpc": "2.0", "id": 9, "method": "ping"}
    return httpx2.post(server.url, content=json.dumps(message).encode(), headers=headers, timeout=10)


def test_sessions_beyond_the_cap_get_503(main_tree: Any) -> None:
    with http_server(limited(main_tree, max_sessions=2)) as server:
        assert server.url is not None
        first, _second = session_of(initialize(server)), session_of(initialize(server))
        busy = initialize(server)
        assert busy.status_code == 503
        assert busy.headers["content-type"] == "application/json"
        assert busy.content == (
            b'{"jsonrpc":"2.0","id":1,"error":{"code":-32000,'
            b'"message":"Server busy: 2 sessions are open, the most it keeps; try again later"}}'
        )
        # Existing sessions are served; one that ends makes room.
        assert [m.get("result") for m in sse_or_json(ping(server, first))] == [{}]
        headers = {**AUTH, "Mcp-Session-Id": first, "MCP-Protocol-Version": "2025-11-25"}
        assert httpx2.delete(server.url, headers=headers, timeout=10).status_code == 204
        session_of(initialize(server))


def test_concurrent_initializes_never_pass_the_cap(main_tree: Any) -> None:
    with http_server(limited(main_tree, max_sessions=3)) as server:
        replies: list[int] = []
        together = threading.Barrier(24)

        def initialize_together() -> None:
            together.wait(10)
            replies.append(initialize(server).status_code)

        threads = [threading.Thread(target=initialize_together) for _ in range(24)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(20)
        assert sorted(replies) == [200] * 3 + [503] * 21


def test_idle_sessions_expire(main_tree: Any) -> None:
    with http_server(limited(main_tree, max_sessions=1, session_idle=1)) as server:
        session = session_of(initialize(server))
        assert [m.get("result") for m in sse_or_json(ping(server, session))] == [{}]
        time.sleep(2.5)
        assert ping(server, session).status_code == 404
        # The expired session no longer counts against the cap.
        session_of(initialize(server))


def vm_rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


def test_a_stdio_client_that_stops_reading_stops_the_server_reading(tmp_path: Path) -> None:
    skill = tmp_path / "skills" / "big"
    skill.mkdir(parents=True)
    body = ("All work and no play makes a large skill. " * 25 + "\n") * 1000  # about 1 MB
    (skill / "SKILL.md").write_text(f"---\nname: big\ndescription: A 1 MB skill.\n---\n\n{body}")
    calls = 400  # answered at once, 400 MB and more
    proc = subprocess.Popen(
        [str(BIN), "serve", "--root", str(tmp_path / "skills")],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
    )
    assert proc.stdin is not None and proc.stdout is not None
    try:
        init = dict(INIT, id=0)
        proc.stdin.write(json.dumps(init).encode() + b"\n")
        proc.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        proc.stdin.flush()
        assert json.loads(proc.stdout.readline())["id"] == 0
        baseline = vm_rss_kib(proc.pid)

        def pipeline() -> None:
            assert proc.stdin is not None
            for i in range(1, calls + 1):
                call = {"jsonrpc": "2.0", "id": i, "method": "tools/call",
                        "params": {"name": "skill", "arguments": {"name": "big"}}}
                # Padded to 1 KiB a line: 400 KiB of requests, far more than a pipe holds.
                proc.stdin.write(json.dumps(call).encode().ljust(1024) + b"\n")
            proc.stdin.flush()

        writer = threading.Thread(target=pipeline, daemon=True)
        writer.start()
        peak = baseline
        for _ in range(30):  # 6 s of not reading stdout
            time.sleep(0.2)
            peak = max(peak, vm_rss_kib(proc.pid))
        assert writer.is_alive(), "the server read every request while its answers were unread"
        assert peak - baseline < 150 * 1024, f"RSS grew by {(peak - baseline) // 1024} MiB"

        seen: list[int] = []
        while len(seen) < calls:
            line = proc.stdout.readline()
            assert line, f"stdout closed after {len(seen)} answers"
            answer = json.loads(line)
            assert answer["result"]["content"][0]["text"].count("All work") == 25 * 1000, answer["id"]
            seen.append(answer["id"])
        assert sorted(seen) == list(range(1, calls + 1))
        writer.join(10)
        assert not writer.is_alive()
    finally:
        proc.kill()
        proc.wait()
