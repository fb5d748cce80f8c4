"""Hostile wire input, sent raw (no SDK): every bad message gets a JSON-RPC error or is
dropped as the protocol says, and the server keeps answering afterwards."""

from __future__ import annotations

import json
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx2
import pytest

from support import RawHttp, RawStdio, http_server, sse_or_json

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602

MALFORMED = [
    b"{",
    b'{"jsonrpc": "2.0", "id": 1, "method": ',
    b"not json at all",
    b'{"jsonrpc": "2.0", "id": 1, "method": "ping"',
    b"\xff\xfe\x00garbage",
    b'{"jsonrpc":"2.0","id":1,"method":"ping"}}',
    b"\x00\x00\x00",
]

# (message, expected code) for requests that parse but are wrong
WRONG_PARAMS = [
    ({"method": "tools/call", "params": "a string"}, INVALID_PARAMS),
    ({"method": "tools/call", "params": {"name": 5}}, INVALID_PARAMS),
    ({"method": "tools/call", "params": {"arguments": {"name": "alpha"}}}, INVALID_PARAMS),
    ({"method": "resources/read", "params": {"uri": 123}}, INVALID_PARAMS),
    ({"method": "resources/read", "params": {}}, INVALID_PARAMS),
    ({"method": "resources/read", "params": [1, 2]}, INVALID_PARAMS),
    ({"method": "prompts/get", "params": {"name": None}}, INVALID_PARAMS),
    ({"method": "skills/get", "params": {"uri": []}}, INVALID_PARAMS),
    ({"method": "skills/get", "params": {}}, INVALID_PARAMS),
    ({"method": "skills/get"}, INVALID_PARAMS),
    ({"method": "skills/list", "params": {"cursor": 7}}, INVALID_PARAMS),
    ({"method": "skills/list", "params": {"cursor": "bogus"}}, INVALID_PARAMS),
    ({"method": "resources/list", "params": {"cursor": {"x": 1}}}, INVALID_PARAMS),
]

UNKNOWN = ["nope", "skills/nope", "tools/explode", "rpc.discover", "resources/directory/read", ""]


def error_code(reply: dict[str, Any]) -> int:
    assert "error" in reply, reply
    error = reply["error"]
    assert isinstance(error.get("code"), int) and isinstance(error.get("message"), str), error
    return error["code"]


# --------------------------------------------------------------------------- stdio

@pytest.mark.parametrize("line", MALFORMED, ids=range(len(MALFORMED)))
def test_stdio_malformed_json(line: bytes, raw_stdio: RawStdio) -> None:
    raw_stdio.write(line + b"\n")
    ping_id = raw_stdio.new_id()
    raw_stdio.send({"jsonrpc": "2.0", "id": ping_id, "method": "ping"})
    reply, before = raw_stdio.until(ping_id)
    assert reply.get("result") == {}, reply
    errors = [m for m in before if "error" in m]
    assert len(errors) == 1, (line, before)
    assert errors[0]["error"]["code"] in (PARSE_ERROR, INVALID_REQUEST), errors[0]
    assert errors[0].get("id") is None


@pytest.mark.parametrize("message", [42, "str", [], None, {"jsonrpc": "2.0"}, {"id": 5, "method": "ping"},
                                     {"jsonrpc": "1.0", "id": 5, "method": "ping"}, {"jsonrpc": "2.0", "id": {"o": 1}, "method": "ping"}],
                         ids=range(8))
def test_stdio_invalid_requests(message: Any, raw_stdio: RawStdio) -> None:
    raw_stdio.send(message)
    ping_id = raw_stdio.new_id()
    raw_stdio.send({"jsonrpc": "2.0", "id": ping_id, "method": "ping"})
    reply, before = raw_stdio.until(ping_id)
    assert reply.get("result") == {}, reply
    errors = [m for m in before if "error" in m]
    assert len(errors) == 1, (message, before)
    assert errors[0]["error"]["code"] in (PARSE_ERROR, INVALID_REQUEST), errors[0]


@pytest.mark.parametrize("method", UNKNOWN)
def test_stdio_unknown_methods(method: str, raw_stdio: RawStdio) -> None:
    assert error_code(raw_stdio.request(method, {})) == METHOD_NOT_FOUND
    # an unknown notification gets no answer and breaks nothing
    raw_stdio.send({"jsonrpc": "2.0", "method": method or "notifications/nope"})
    raw_stdio.assert_alive()


@pytest.mark.parametrize(("message", "code"), WRONG_PARAMS, ids=[f"{m['method']}-{i}" for i, (m, _) in enumerate(WRONG_PARAMS)])
def test_stdio_wrong_param_types(message: dict[str, Any], code: int, raw_stdio: RawStdio) -> None:
    reply = raw_stdio.request(message["method"], message.get("params"))
    assert error_code(reply) == code, reply
    raw_stdio.assert_alive()


def test_stdio_huge_lines(raw_stdio: RawStdio) -> None:
    big = "x" * (20 * 1024 * 1024)
    # a 20 MB valid request: answered (a tool error: no such skill) or refused with an error
    raw_stdio.send({"jsonrpc": "2.0", "id": "big", "method": "tools/call", "params": {"name": "skill", "arguments": {"name": big}}})
    reply, _ = raw_stdio.until("big", timeout=60)
    assert "error" in reply or reply["result"].get("isError") is True, str(reply)[:300]
    raw_stdio.assert_alive()
    # a 20 MB line that is not JSON
    raw_stdio.write(b"{" + b"y" * (20 * 1024 * 1024) + b"\n")
    ping_id = raw_stdio.new_id()
    raw_stdio.send({"jsonrpc": "2.0", "id": ping_id, "method": "ping"})
    reply, before = raw_stdio.until(ping_id, timeout=60)
    assert reply.get("result") == {}
    assert [m["error"]["code"] for m in before if "error" in m] == [PARSE_ERROR], before


def test_stdio_deep_nesting_and_blank_lines(raw_stdio: RawStdio) -> None:
    raw_stdio.write(b"[" * 200_000 + b"]" * 200_000 + b"\n")  # a recursion bomb: refused, not a crash
    ping_id = raw_stdio.new_id()
    raw_stdio.send({"jsonrpc": "2.0", "id": ping_id, "method": "ping"})
    reply, before = raw_stdio.until(ping_id)
    assert reply.get("result") == {}
    assert [m["error"]["code"] for m in before if "error" in m] == [PARSE_ERROR], before
    raw_stdio.write(b"\n\r\n   \n")
    raw_stdio.assert_alive()


@pytest.mark.parametrize("cursor", ["", "=", "%%%", "Li4vLi4vZXRj", "\x00", "x" * 100_000],
                         ids=["empty", "padding", "percent", "dotdot-base64", "nul", "100k"])
def test_stdio_forged_cursors(cursor: str, raw_stdio: RawStdio) -> None:
    reply = raw_stdio.request("skills/list", {"cursor": cursor})
    assert error_code(reply) == INVALID_PARAMS
    assert reply["error"]["message"] == "Invalid skills cursor"
    raw_stdio.assert_alive()


def test_stdio_flood(raw_stdio: RawStdio) -> None:
    methods = [
        ("ping", None),
        ("tools/list", {}),
        ("tools/call", {"name": "skill", "arguments": {"name": "alpha"}}),
        ("resources/read", {"uri": "skill://alpha/assets/logo.png"}),
        ("skills/list", {}),
        ("nope/nope", {}),
    ]
    requests = []
    for i in range(1000):
        method, params = methods[i % len(methods)]
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": f"flood-{i}", "method": method}
        if params is not None:
            message["params"] = params
        requests.append(json.dumps(message).encode() + b"\n")
    start = time.monotonic()
    raw_stdio.write(b"".join(requests))
    replies: dict[str, dict[str, Any]] = {}
    while len(replies) < 1000:
        message = raw_stdio.recv(timeout=60)
        if isinstance(message.get("id"), str) and message["id"].startswith("flood-"):
            assert message["id"] not in replies, f"{message['id']} answered twice"
            replies[message["id"]] = message
    elapsed = time.monotonic() - start
    for i in range(1000):
        reply = replies[f"flood-{i}"]
        if methods[i % len(methods)][0] == "nope/nope":
            assert error_code(reply) == METHOD_NOT_FOUND
        else:
            assert "result" in reply, reply
    assert elapsed < 60
    raw_stdio.assert_alive()


def test_stdio_responses_and_notifications_from_client_are_harmless(raw_stdio: RawStdio) -> None:
    raw_stdio.send({"jsonrpc": "2.0", "id": 424242, "result": {}})  # a response to nothing
    raw_stdio.send({"jsonrpc": "2.0", "id": 424243, "error": {"code": 1, "message": "x"}})
    raw_stdio.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 999}})
    raw_stdio.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    raw_stdio.assert_alive()


def test_stdio_before_handshake(main_tree: Any) -> None:
    """Garbage before the first request does not stop a later handshake."""
    server = RawStdio(main_tree.args)
    try:
        server.write(b"garbage\n")
        server.handshake()
        server.assert_alive()
    finally:
        server.close()


def test_stdio_eof_exits_cleanly(main_tree: Any) -> None:
    server = RawStdio(main_tree.args)
    server.handshake()
    assert server.proc.stdin is not None
    server.proc.stdin.close()
    assert server.proc.wait(10) == 0


# --------------------------------------------------------------------------- HTTP

@pytest.fixture
def raw_http(main_tree: Any):
    with http_server(main_tree.args) as server:
        raw = RawHttp(server)
        try:
            yield raw
        finally:
            raw.close()


def assert_http_error(response: Any, codes: tuple[int, ...]) -> None:
    """An HTTP 4xx, or a JSON-RPC error with one of `codes` (whatever the status)."""
    if 400 <= response.status_code < 500:
        if response.text.strip() and response.headers.get("content-type", "").startswith(("application/json", "text/event-stream")):
            for message in sse_or_json(response):
                assert "error" in message, message
        return
    assert response.status_code == 200, (response.status_code, response.text[:300])
    messages = sse_or_json(response)
    assert messages and all("error" in m for m in messages), response.text[:300]
    assert messages[0]["error"]["code"] in codes, messages


@pytest.mark.parametrize("body", MALFORMED, ids=range(len(MALFORMED)))
def test_http_malformed_json(body: bytes, raw_http: RawHttp) -> None:
    assert_http_error(raw_http.post(body), (PARSE_ERROR, INVALID_REQUEST))
    raw_http.assert_alive()


@pytest.mark.parametrize("message", [42, "str", [], None, {"jsonrpc": "2.0"}, {"id": 5, "method": "ping"}], ids=range(6))
def test_http_invalid_requests(message: Any, raw_http: RawHttp) -> None:
    assert_http_error(raw_http.post_json(message), (PARSE_ERROR, INVALID_REQUEST))
    raw_http.assert_alive()


@pytest.mark.parametrize("method", UNKNOWN)
def test_http_unknown_methods(method: str, raw_http: RawHttp) -> None:
    assert error_code(raw_http.request(method, {})) == METHOD_NOT_FOUND
    raw_http.assert_alive()


@pytest.mark.parametrize(("message", "code"), WRONG_PARAMS, ids=[f"{m['method']}-{i}" for i, (m, _) in enumerate(WRONG_PARAMS)])
def test_http_wrong_param_types(message: dict[str, Any], code: int, raw_http: RawHttp) -> None:
    assert error_code(raw_http.request(message["method"], message.get("params"))) == code
    raw_http.assert_alive()


def test_http_huge_body(raw_http: RawHttp) -> None:
    big = "x" * (20 * 1024 * 1024)
    message = {"jsonrpc": "2.0", "id": "big", "method": "tools/call", "params": {"name": "skill", "arguments": {"name": big}}}
    response = raw_http.post_json(message)
    if response.status_code == 200:
        reply = [m for m in sse_or_json(response) if m.get("id") == "big"]
        assert reply and ("error" in reply[0] or reply[0]["result"].get("isError") is True)
    else:
        assert 400 <= response.status_code < 500, response.status_code
    raw_http.assert_alive()
    assert_http_error(raw_http.post(b"{" + b"y" * (20 * 1024 * 1024)), (PARSE_ERROR,))
    raw_http.assert_alive()


def test_http_wrong_content_type_and_accept(raw_http: RawHttp) -> None:
    ping = json.dumps({"jsonrpc": "2.0", "id": 7, "method": "ping"}).encode()
    response = raw_http.post(ping, {"Content-Type": "text/plain"})
    assert 400 <= response.status_code < 500, response.status_code
    response = raw_http.post(ping, {"Accept": "text/html"})
    assert 400 <= response.status_code < 500, response.status_code
    raw_http.assert_alive()


def test_http_flood(raw_http: RawHttp) -> None:
    """1000 requests from 8 concurrent connections on one session: each answered once, right."""

    def worker(k: int) -> list[tuple[int, dict[str, Any]]]:
        client = httpx2.Client(timeout=60)
        out = []
        try:
            for i in range(k, 1000, 8):
                if i % 2:
                    message = {"jsonrpc": "2.0", "id": i, "method": "tools/call",
                               "params": {"name": "skill", "arguments": {"name": "beta"}}}
                else:
                    message = {"jsonrpc": "2.0", "id": i, "method": "ping"}
                response = client.post(raw_http.url, content=json.dumps(message).encode(), headers=raw_http.headers)
                assert response.status_code == 200, (response.status_code, response.text[:200])
                out.extend((i, m) for m in sse_or_json(response) if "id" in m)
        finally:
            client.close()
        return out

    start = time.monotonic()
    with ThreadPoolExecutor(8) as pool:
        replies = [r for chunk in pool.map(worker, range(8)) for r in chunk]
    assert sorted(i for i, _ in replies) == list(range(1000))
    for i, reply in replies:
        assert reply["id"] == i
        if i % 2:
            assert reply["result"]["isError"] is False, reply
        else:
            assert reply["result"] == {}, reply
    assert time.monotonic() - start < 90
    raw_http.assert_alive()
