"""A loopback stand-in for the Anthropic Messages API, for driving a real host offline.

It records every request body and answers from a script: a list of turns, each a
function from the request to the assistant's content blocks (or None to pass to the
next rule). Requests no rule claims (a host's side calls: titles, summaries, token
counts) get a short text answer. Streaming requests are answered with the Messages
API's server-sent events, others with one JSON message.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Blocks = list[dict[str, Any]]
Rule = Callable[[dict[str, Any]], Blocks | None]


def text(value: str) -> Blocks:
    return [{"type": "text", "text": value}]


def tool_use(id_: str, name: str, input_: dict[str, Any]) -> Blocks:
    return [{"type": "tool_use", "id": id_, "name": name, "input": input_}]


def sse(blocks: Blocks, model: str) -> bytes:
    """The event stream of one assistant message holding `blocks`."""
    events: list[tuple[str, dict[str, Any]]] = []
    usage = {"input_tokens": 10, "output_tokens": 1, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
    message = {
        "id": "msg_standin", "type": "message", "role": "assistant", "model": model, "content": [],
        "stop_reason": None, "stop_sequence": None, "usage": usage,
    }
    events.append(("message_start", {"type": "message_start", "message": message}))
    for index, block in enumerate(blocks):
        if block["type"] == "text":
            start = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": block["text"]}
        else:
            start = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        events.append(("content_block_start", {"type": "content_block_start", "index": index, "content_block": start}))
        events.append(("content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}))
        events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
    stop = "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"
    events.append(("message_delta", {
        "type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None}, "usage": {"output_tokens": 5},
    }))
    events.append(("message_stop", {"type": "message_stop"}))
    return b"".join(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode() for name, data in events)


class MessagesStandin:
    """`ThreadingHTTPServer` on 127.0.0.1, an ephemeral port; `url` is its base."""

    def __init__(self, rules: list[Rule]):
        self.rules = rules
        self.requests: list[dict[str, Any]] = []
        self.paths: list[str] = []
        self.errors: list[Exception] = []
        self.lock = threading.Lock()
        standin = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_HEAD(self) -> None:
                self.send_response(200)
                self.end_headers()

            def do_GET(self) -> None:
                self._json(200, {})

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                with standin.lock:
                    standin.paths.append(self.path)
                    standin.requests.append(body)
                if "/count_tokens" in self.path:
                    self._json(200, {"input_tokens": 100})
                    return
                if not self.path.split("?")[0].endswith("/v1/messages"):
                    self._json(404, {"type": "error", "error": {"type": "not_found_error", "message": self.path}})
                    return
                try:
                    blocks = standin.answer(body)
                except Exception as error:  # A broken script: a final error, so the host does not retry.
                    standin.errors.append(error)
                    self._json(400, {"type": "error", "error": {"type": "invalid_request_error", "message": repr(error)}})
                    return
                model = body.get("model", "claude-standin")
                if body.get("stream"):
                    payload = sse(blocks, model)
                    self.send_response(200)
                    self.send_header("content-type", "text/event-stream")
                    self.send_header("content-length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                    return
                stop = "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"
                self._json(200, {
                    "id": "msg_standin", "type": "message", "role": "assistant", "model": model, "content": blocks,
                    "stop_reason": stop, "stop_sequence": None,
                    "usage": {"input_tokens": 10, "output_tokens": 5},
                })

            def _json(self, status: int, value: Any) -> None:
                payload = json.dumps(value).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def answer(self, body: dict[str, Any]) -> Blocks:
        for rule in self.rules:
            blocks = rule(body)
            if blocks is not None:
                return blocks
        return text("OK.")

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def __enter__(self) -> MessagesStandin:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
