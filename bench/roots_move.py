#!/usr/bin/env python3
"""How long `skilldeck serve` (no root) takes to follow its client to another project.

  python3 bench/roots_move.py [--bin PATH] [--skills N] [--runs N]

A server is started with no root in an empty project and a fake empty home; the client
(raw newline-delimited JSON-RPC on the server's pipes, offering `roots`) answers the
server's `roots/list` with a project whose `.agents/skills` holds N generated skills
(bench/gen_tree.py, default 10,000), then with the empty one again, and so on. Measured:
from `notifications/roots/list_changed` to `notifications/prompts/list_changed` (the
server asked `roots/list`, walked the new places, published, and told the client), for
moves onto the tree and back. For comparison, in the same run: a server started in the
tree's project, from spawn to the `initialize` answer. Medians of --runs.

The binary defaults to target/release/skilldeck (`cargo build --release -p skilldeck-cli`).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]


class Server:
    def __init__(self, binary: Path, cwd: Path, home: Path):
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home)}
        self.proc = subprocess.Popen(
            [str(binary), "serve"], cwd=cwd, env=env,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        )

    def send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()

    def recv(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            raise SystemExit("the server closed its stdout")
        return json.loads(line)

    def until(self, test: Any) -> dict[str, Any]:
        while True:
            message = self.recv()
            if test(message):
                return message

    def initialize(self) -> None:
        params = {
            "protocolVersion": "2025-11-25",
            "capabilities": {"roots": {"listChanged": True}},
            "clientInfo": {"name": "roots-bench", "version": "0"},
        }
        self.send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params})
        self.until(lambda m: m.get("id") == 1 and "result" in m)
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def answer_roots(self, project: Path) -> None:
        asked = self.until(lambda m: m.get("method") == "roots/list")
        self.send({"jsonrpc": "2.0", "id": asked["id"], "result": {"roots": [{"uri": project.as_uri()}]}})

    def close(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def prompts_changed(message: dict[str, Any]) -> bool:
    return message.get("method") == "notifications/prompts/list_changed"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", type=Path, default=REPO / "target" / "release" / "skilldeck")
    parser.add_argument("--skills", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp).resolve()
        empty, tree, home = base / "empty", base / "tree", base / "home"
        empty.mkdir()
        home.mkdir()
        subprocess.run(
            [sys.executable, str(REPO / "bench" / "gen_tree.py"), str(tree / ".agents" / "skills"), str(args.skills)],
            check=True, stdout=subprocess.DEVNULL,
        )
        onto, back, starts = [], [], []
        server = Server(args.bin, empty, home)
        server.initialize()
        server.answer_roots(empty)  # asked after initialized: the same project, nothing moves
        for _ in range(args.runs):
            for target, times in ((tree, onto), (empty, back)):
                start = time.perf_counter()
                server.send({"jsonrpc": "2.0", "method": "notifications/roots/list_changed"})
                server.answer_roots(target)
                server.until(prompts_changed)
                times.append(time.perf_counter() - start)
                time.sleep(1)  # the watches on the new project are set up
            start = time.perf_counter()
            fresh = Server(args.bin, tree, home)
            fresh.initialize()
            starts.append(time.perf_counter() - start)
            fresh.close()
        server.close()
    ms = lambda values: f"{statistics.median(values) * 1000:.0f} ms"  # noqa: E731
    print(f"move onto {args.skills} skills (roots/list_changed -> prompts/list_changed): {ms(onto)}")
    print(f"move back to an empty project: {ms(back)}")
    print(f"serve started in the {args.skills}-skill project, spawn -> initialize answered: {ms(starts)}")
    print(f"move / start: {statistics.median(onto) / statistics.median(starts):.2f}")


if __name__ == "__main__":
    main()
