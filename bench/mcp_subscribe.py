#!/usr/bin/env python3
"""What following files costs `skilldeck serve`: the time from an edit of a subscribed
`SKILL.md` to its `notifications/resources/updated`, with one subscription and with many
(each reload stats every subscribed file), in one run on the same tree.

  python3 bench/mcp_subscribe.py [--bin PATH] [--many N] [--edits N]

Raw newline-delimited JSON-RPC on the server's pipes, handshake era. The tree (10 skills of
100 files each, made in a temporary directory) and the edit are the same for both figures,
so their difference is the cost of the subscriptions; both include the watcher's 200 ms
debounce. The binary defaults to target/release/skilldeck.
"""

from __future__ import annotations

import argparse
import json
import queue
import statistics
import subprocess
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def make_tree(root: Path, skills: int = 10, files: int = 100) -> list[str]:
    uris = []
    for s in range(skills):
        skill = root / f"s{s}"
        (skill / "f").mkdir(parents=True)
        (skill / "SKILL.md").write_text(f"---\nname: s{s}\ndescription: Skill {s}.\n---\nBody.\n")
        for i in range(files):
            (skill / "f" / f"{i:03}.txt").write_text("x\n")
            uris.append(f"skill://s{s}/f/{i:03}.txt")
    return uris


class Server:
    def __init__(self, binary: str, root: Path):
        self.proc = subprocess.Popen([binary, "serve", "--root", str(root)], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.lines: queue.Queue[dict] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.next_id = 0

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(json.loads(line))

    def send(self, message: dict) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()

    def request(self, method: str, params: dict) -> dict:
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        while True:
            message = self.lines.get(timeout=30)
            if message.get("id") == self.next_id:
                assert "result" in message, message
                return message["result"]

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(10)


def latency(binary: str, root: Path, uris: list[str], edits: int) -> float:
    server = Server(binary, root)
    try:
        server.request("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                      "clientInfo": {"name": "bench", "version": "0"}})
        server.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        for uri in uris + ["skill://s0/SKILL.md"]:
            server.request("resources/subscribe", {"uri": uri})
        time.sleep(1.0)  # the watches are set up
        times = []
        for k in range(edits):
            start = time.monotonic()
            (root / "s0" / "SKILL.md").write_text(f"---\nname: s0\ndescription: Skill 0.\n---\nEdit {k}.\n")
            while server.lines.get(timeout=10).get("method") != "notifications/resources/updated":
                pass
            times.append(time.monotonic() - start)
            time.sleep(0.6)  # the next edit is a burst of its own
        return statistics.median(times)
    finally:
        server.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bin", default=str(REPO / "target" / "release" / "skilldeck"))
    parser.add_argument("--many", type=int, default=1000)
    parser.add_argument("--edits", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "skills"
        uris = make_tree(root)
        one = latency(args.bin, root, [], args.edits)
        many = latency(args.bin, root, uris[: args.many], args.edits)
    print(f"edit -> resources/updated, median of {args.edits}: "
          f"1 subscription {one * 1000:.0f} ms, {args.many + 1} subscriptions {many * 1000:.0f} ms "
          f"(ratio {many / one:.2f})")


if __name__ == "__main__":
    main()
