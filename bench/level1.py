#!/usr/bin/env python3
"""Level 1 at registry scale, through `skilldeck serve` over stdio (SPEC §13).

  python3 bench/level1.py --tree DIR [--bin PATH] [--budget 2000c] [--sample N]

On the tree DIR (for example a public registry's mirror: every `SKILL.md` of
gabrielmoreira/agent-skills-mirror, about 15,700 files), with raw JSON-RPC on the
server's pipes:

  1. `instructions`: its size against the budget, and whether its closing line counts
     exactly the exposed skills it does not show (what `find_skills` searches, less what
     is listed: the undescribed skills, never listed, included);
  2. `find_skills` by each left-out skill's own name (all, or --sample N of them, spread
     evenly): how many come back as the top hit, and the round trip's median and p99;
  3. what a `name` enum in the `skill` tool's schema would cost: the tools/list entry's
     bytes and o200k tokens with the first 10, 100 and 1,000 names, against without.

Tokens are counted by skilldeck's own offline tokenizer (`skilldeck prompt --budget Nt`).
The binary defaults to target/release/skilldeck (`cargo build --release -p skilldeck-cli`).
Exits 1 if a check fails.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CLOSING = re.compile(r"\((\d+) more skills? (?:is|are) not listed here: call find_skills with a few words of the task to search every skill\.\)\Z")
ENTRY = re.compile(r"^- \*\*(.+?)\*\*: ", re.MULTILINE)


from mcp_stdio import Server  # noqa: E402 (bench/, the script's folder, is on the path)


def tokens(binary: Path, text: str) -> int:
    """o200k tokens of `text`: a one-skill catalog with it as the description, less the same with none."""
    def used(description: str) -> int:
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            json.dump([{"name": "x", "description": description}], f)
        proc = subprocess.run(
            [str(binary), "prompt", "--skills", f.name, "--budget", "100000000t", "--report"],
            capture_output=True, check=True,
        )
        Path(f.name).unlink()
        return int(re.search(rb"used (\d+)", proc.stderr).group(1))
    return used(text) - used("")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tree", type=Path, required=True)
    parser.add_argument("--bin", type=Path, default=ROOT / "target" / "release" / "skilldeck")
    parser.add_argument("--budget", default="2000c")
    parser.add_argument("--sample", type=int, default=0, help="query only N left-out skills (0: all)")
    args = parser.parse_args()
    failed = False

    listing = json.loads(subprocess.run(
        [str(args.bin), "list", "--json", "--root", str(args.tree)], capture_output=True, check=True,
    ).stdout)["skills"]
    names = sorted(s["name"] for s in listing)
    described = sorted(s["name"] for s in listing if s.get("description") is not None)
    print(f"tree: {args.tree} ({len(names)} exposed skills, {len(described)} with a description)")

    started = time.perf_counter()
    # `initialize` waits for the catalog (the default 50 ms would send the "loading" text): the
    # instructions checked here are the catalog's.
    server = Server(args.bin, ["--root", str(args.tree), "--budget", args.budget, "--instructions-wait", "60000"])
    init = server.handshake()
    print(f"initialize answered in {time.perf_counter() - started:.2f} s (walk, publication, level 1)")
    instructions = init.get("instructions") or ""
    limit = int(args.budget.rstrip("c"))
    listed = ENTRY.findall(instructions)
    match = CLOSING.search(instructions)
    omitted = sorted(set(names) - set(listed))
    print(f"instructions: {len(instructions)} characters (budget {args.budget}), {len(listed)} skills listed")
    if len(instructions) > limit:
        print("  FAIL: over budget")
        failed = True
    if match is None:
        print("  FAIL: no closing line")
        failed = True
    else:
        counted = int(match.group(1))
        exact = counted == len(omitted)
        print(f"  closing line counts {counted}; left out: {len(omitted)} -> {'exact' if exact else 'FAIL'}")
        failed |= not exact

    tools = [t["name"] for t in server.request("tools/list")["tools"]]
    print(f"tools: {tools}")
    queried = omitted
    if args.sample and args.sample < len(omitted):
        step = len(omitted) / args.sample
        queried = [omitted[int(i * step)] for i in range(args.sample)]
    for name in queried[:50]:  # warm-up: the index is built on the first search
        server.request("tools/call", {"name": "find_skills", "arguments": {"query": name, "limit": 1}})
    times, misses = [], []
    for name in queried:
        t0 = time.perf_counter()
        result = server.request("tools/call", {"name": "find_skills", "arguments": {"query": name, "limit": 1}})
        times.append(((time.perf_counter() - t0) * 1000, name))
        text = result["content"][0]["text"]
        top = re.search(r"^1\. (.+?): ", text, re.MULTILINE)
        if top is None or top.group(1) != name:
            misses.append((name, text.splitlines()[:2]))
    server.close()
    times.sort()
    found = len(queried) - len(misses)
    print(f"find_skills by own name: {found}/{len(queried)} left-out skills are the top hit")
    ms = [t for t, _ in times]
    print(f"  round trip: median {statistics.median(ms):.2f} ms, p99 {ms[int(len(ms) * 0.99) - 1]:.2f} ms")
    print(f"  slowest: {[(round(t, 1), name) for t, name in times[-3:]]}")
    for name, lines in misses[:10]:
        print(f"  miss: {name!r} -> {lines}")
    failed |= bool(misses)

    declaration = json.loads(subprocess.run(
        [str(args.bin), "schema", "--format", "mcp"], capture_output=True, check=True,
    ).stdout)[0]
    plain = json.dumps(declaration, separators=(",", ":"))
    print("skill tool in tools/list, with a name enum of the first N names:")
    print(f"  {'N':>5} {'bytes':>8} {'tokens':>7} {'tokens/name':>11}")
    base_tokens = tokens(args.bin, plain)
    print(f"  {0:>5} {len(plain.encode()):>8} {base_tokens:>7} {'':>11}")
    for n in (10, 100, 1000):
        if n > len(names):
            break
        with_enum = json.loads(plain)
        with_enum["inputSchema"]["properties"]["name"]["enum"] = names[:n]
        text = json.dumps(with_enum, separators=(",", ":"))
        count = tokens(args.bin, text)
        print(f"  {n:>5} {len(text.encode()):>8} {count:>7} {(count - base_tokens) / n:>11.1f}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
