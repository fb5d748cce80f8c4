#!/usr/bin/env python3
"""MCP server benchmarks for `skilldeck serve` over stdio.

  python3 bench/mcp_stdio.py [--bin PATH] [--tree DIR] [--calls N] [--runs N] [--sdk]

Measures, with raw newline-delimited JSON-RPC on the server's pipes (so the figures are
the server's, not a client library's):

  1. tools/call `skill` round trip: N sequential calls (default 2000) after a warm-up of
     200, each naming a different skill of the tree; median, p99, mean.
  2. skills/list: the wall time of a full paginated listing (every page, default page
     size 100) of the 10,000-skill tree, cold (spawn + handshake + all pages) and warm
     (all pages again on the same process); median of --runs runs.

With --sdk, the same two figures again through the official Python client (mcp 2.3.0,
2026-07-28 era) when `mcp` is importable (run with target/venvs/mcp/bin/python).

The tree defaults to target/bench/tree10k (bench/run makes it; generated here with the
same stamp if missing). The binary defaults to target/release/skilldeck
(`cargo build --release -p skilldeck-cli`). There is no peer to compare with here: the
Python reference server (agentskills-mcp-server) needs Python >= 3.12.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


class Server:
    """`skilldeck serve` on pipes; one request in flight at a time."""

    def __init__(self, binary: Path, args: list[str]):
        self.proc = subprocess.Popen(
            [str(binary), "serve", *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        )
        self.next_id = 0

    def request(self, method: str, params: Any = None) -> dict[str, Any]:
        self.next_id += 1
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            message["params"] = params
        assert self.proc.stdin and self.proc.stdout
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise SystemExit(f"bench: server exited ({self.proc.poll()}) during {method}")
            reply = json.loads(line)
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise SystemExit(f"bench: {method} failed: {reply['error']}")
                return reply["result"]

    def requests_at_once(self, calls: list[tuple[str, Any]]) -> list[tuple[dict[str, Any], float]]:
        """Sends every (method, params) before reading any answer; each result with the
        `time.perf_counter()` at which it arrived, in the order asked."""
        assert self.proc.stdin and self.proc.stdout
        ids = []
        for method, params in calls:
            self.next_id += 1
            ids.append(self.next_id)
            message = {"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}
            self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()
        answered: dict[int, tuple[dict[str, Any], float]] = {}
        while len(answered) < len(ids):
            line = self.proc.stdout.readline()
            if not line:
                raise SystemExit(f"bench: server exited ({self.proc.poll()}) during {calls}")
            reply = json.loads(line)
            if reply.get("id") in ids:
                if "error" in reply:
                    raise SystemExit(f"bench: request {reply['id']} failed: {reply['error']}")
                answered[reply["id"]] = (reply["result"], time.perf_counter())
        return [answered[i] for i in ids]

    def handshake(self) -> dict[str, Any]:
        """`initialize` then `notifications/initialized`; the `initialize` result."""
        result = self.request(
            "initialize",
            {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}},
        )
        assert self.proc.stdin
        self.proc.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        self.proc.stdin.flush()
        return result

    def list_all(self) -> tuple[int, int]:
        pages, skills, cursor = 0, 0, None
        while True:
            result = self.request("skills/list", {"cursor": cursor} if cursor else {})
            pages += 1
            skills += len(result["skills"])
            cursor = result.get("nextCursor")
            if not cursor:
                return pages, skills

    def close(self) -> None:
        assert self.proc.stdin
        self.proc.stdin.close()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def ensure_tree(tree: Path, n: int = 10_000) -> None:
    gen = ROOT / "bench" / "gen_tree.py"
    stamp_path = Path(str(tree) + ".stamp")
    stamp = f"{hashlib.sha256(gen.read_bytes()).hexdigest()} {n}"
    if stamp_path.is_file() and stamp_path.read_text().strip() == stamp:
        return
    print(f"generating {tree} ({n} skills)", file=sys.stderr)
    subprocess.run(["rm", "-rf", str(tree), str(stamp_path)], check=True)
    tree.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run([sys.executable, str(gen), str(tree), str(n)], check=True)
    stamp_path.write_text(stamp + "\n")


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    k = min(len(ordered) - 1, max(0, round(p / 100 * (len(ordered) - 1))))
    return ordered[k]


def ms(ns: float) -> str:
    return f"{ns / 1e6:.3f} ms"


def us(ns: float) -> str:
    return f"{ns / 1e3:.1f} µs"


def bench_tool_raw(binary: Path, args: list[str], names: list[str], calls: int) -> list[float]:
    server = Server(binary, args)
    try:
        server.handshake()
        for i in range(200):
            server.request("tools/call", {"name": "skill", "arguments": {"name": names[i % len(names)]}})
        times = []
        for i in range(calls):
            params = {"name": "skill", "arguments": {"name": names[(i * 7919) % len(names)]}}
            start = time.perf_counter_ns()
            result = server.request("tools/call", params)
            times.append(time.perf_counter_ns() - start)
            if result.get("isError"):
                raise SystemExit(f"bench: tools/call failed: {result}")
        return times
    finally:
        server.close()


def bench_list_raw(binary: Path, args: list[str], runs: int, expect: int) -> tuple[list[float], list[float], int]:
    cold, warm, pages = [], [], 0
    for _ in range(runs + 1):  # the first run warms the page cache and is dropped
        start = time.perf_counter_ns()
        server = Server(binary, args)
        try:
            server.handshake()
            pages, skills = server.list_all()
            cold.append(time.perf_counter_ns() - start)
            start = time.perf_counter_ns()
            server.list_all()
            warm.append(time.perf_counter_ns() - start)
        finally:
            server.close()
        if skills != expect:
            raise SystemExit(f"bench: skills/list gave {skills} skills, expected {expect}")
    return cold[1:], warm[1:], pages


def bench_sdk(binary: Path, args: list[str], names: list[str], calls: int, runs: int) -> dict[str, Any]:
    import anyio
    import mcp_types as t
    from typing import Literal
    from mcp import Client, StdioServerParameters
    from mcp.client import advertise
    from pydantic import TypeAdapter

    class ListReq(t.Request[t.PaginatedRequestParams | None, Literal["skills/list"]]):
        method: Literal["skills/list"] = "skills/list"
        params: t.PaginatedRequestParams | None = None

    any_dict = TypeAdapter(dict[str, Any])

    async def list_all(client: Any) -> int:
        cursor, n = None, 0
        while True:
            page = await client.session.send_request(
                ListReq(params=t.PaginatedRequestParams(cursor=cursor) if cursor else None), any_dict
            )
            n += len(page["skills"])
            cursor = page.get("nextCursor")
            if not cursor:
                return n

    async def main() -> dict[str, Any]:
        params = StdioServerParameters(command=str(binary), args=["serve", *args])
        out: dict[str, Any] = {}
        async with Client(params, cache=None, extensions=[advertise("io.modelcontextprotocol/skills")]) as client:
            out["era"] = client.protocol_version
            await client.list_tools()
            for i in range(200):
                await client.call_tool("skill", {"name": names[i % len(names)]})
            times = []
            for i in range(calls):
                start = time.perf_counter_ns()
                await client.call_tool("skill", {"name": names[(i * 7919) % len(names)]})
                times.append(time.perf_counter_ns() - start)
            out["tool"] = times
            warm = []
            for _ in range(runs):
                start = time.perf_counter_ns()
                await list_all(client)
                warm.append(time.perf_counter_ns() - start)
            out["list_warm"] = warm
        return out

    return anyio.run(main)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bin", type=Path, default=ROOT / "target" / "release" / "skilldeck")
    parser.add_argument("--tree", type=Path, default=ROOT / "target" / "bench" / "tree10k")
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--sdk", action="store_true", help="also measure through the mcp 2.3.0 Python client")
    opts = parser.parse_args()

    if not opts.bin.is_file():
        raise SystemExit(f"bench: no binary at {opts.bin} (cargo build --release -p skilldeck-cli)")
    if opts.tree == ROOT / "target" / "bench" / "tree10k":
        ensure_tree(opts.tree)
    names = sorted(p.name for p in opts.tree.iterdir() if (p / "SKILL.md").is_file())
    args = ["--root", str(opts.tree)]
    print(f"binary {opts.bin}\ntree   {opts.tree} ({len(names)} skills)\n")

    times = bench_tool_raw(opts.bin, args, names, opts.calls)
    print(f"tools/call skill, raw stdio, {opts.calls} calls after 200 warm-up:")
    print(f"  median {us(statistics.median(times))}   p99 {us(percentile(times, 99))}   "
          f"mean {us(statistics.fmean(times))}   ({opts.calls / (sum(times) / 1e9):.0f} calls/s)")

    cold, warm, pages = bench_list_raw(opts.bin, args, opts.runs, len(names))
    print(f"skills/list, all {pages} pages of {len(names)} skills, raw stdio, median of {opts.runs}:")
    print(f"  cold (spawn + handshake + all pages) {ms(statistics.median(cold))}   "
          f"warm (all pages again) {ms(statistics.median(warm))}   "
          f"per page warm {ms(statistics.median(warm) / pages)}")

    if opts.sdk:
        try:
            import mcp  # noqa: F401
        except ImportError:
            raise SystemExit("bench: --sdk needs the mcp package (run with target/venvs/mcp/bin/python)") from None
        sdk = bench_sdk(opts.bin, args, names, opts.calls, opts.runs)
        t_sdk, l_sdk = sdk["tool"], sdk["list_warm"]
        print(f"through mcp 2.3.0 (Client, era {sdk['era']}):")
        print(f"  tools/call median {us(statistics.median(t_sdk))}   p99 {us(percentile(t_sdk, 99))}   "
              f"(client overhead x{statistics.median(t_sdk) / statistics.median(times):.1f} of raw)")
        print(f"  skills/list all pages warm {ms(statistics.median(l_sdk))}")
    print("\npeer: none measured (agentskills-mcp-server needs Python >= 3.12)")


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    main()
