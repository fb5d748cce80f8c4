#!/usr/bin/env python3
"""How soon `skilldeck serve` is ready, against a cold `skilldeck list` of the same tree.

  python3 bench/ready.py --tree DIR [--bin PATH] [--runs N] [--cold-cache] [--edit]

Each run spawns a fresh server on raw stdio and times, from the spawn:

  1. `initialize` answered (bar: under 100 ms; its instructions are the catalog, or say
     that it is loading when it is not read within --instructions-wait, 50 ms by default);
  2. the first `tools/call skill` answered, sent right after the handshake (bar: under 1.5x
     the median of cold `skilldeck list --root DIR` runs, timed in the same run, in turn);
  3. the first `tools/call find_skills` answered, sent with it (on a warm start the last
     run's saved index answers; on a cold one it waits for the catalog and its index; bar:
     within 1 s of `initialize` on a warm start, 1.5x a cold list on a cold one).

The servers keep their start cache (level 1 and search index) in a directory of the bench's
own: the warm-up run writes it, so each timed run is a warm start, whose `initialize`
carries the last run's level 1. With --cold-cache the cache is emptied before each run (a
first start).

With --edit (the tree must be writable: copy a read-only tree under /work/trees/ first), each
run also edits one SKILL.md's description just after the first call is answered (or
--edit-delay seconds after: the watches are still being set up for the first seconds) and times
until `notifications/resources/list_changed` arrives and the tool returns the new text
(bar: 300 ms, the 100 ms debounce included); the file is put back after each run.

The binary defaults to target/release/skilldeck (`cargo build --release -p skilldeck-cli`).
Exits 1 if a bar is missed.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


from mcp_stdio import Server  # noqa: E402 (bench/, the script's folder, is on the path)


def cold_list(binary: Path, tree: Path) -> tuple[float, str]:
    """Seconds of one `skilldeck list --root TREE`, and the first skill's name."""
    start = time.perf_counter()
    out = subprocess.run([str(binary), "list", "--json", "--root", str(tree)], capture_output=True, check=True).stdout
    elapsed = time.perf_counter() - start
    skills = json.loads(out)["skills"]
    if not skills:
        raise SystemExit(f"bench: no skill under {tree}")
    return elapsed, skills[len(skills) // 2]["name"]


def wait_changed(server: Any, deadline: float) -> None:
    """Reads until `notifications/resources/list_changed`."""
    assert server.proc.stdout
    while time.perf_counter() < deadline:
        line = server.proc.stdout.readline()
        if not line:
            raise SystemExit("bench: the server exited while waiting for list_changed")
        if json.loads(line).get("method") == "notifications/resources/list_changed":
            return
    raise SystemExit("bench: no list_changed within 10 s of the edit")


def one_run(binary: Path, tree: Path, name: str, skill_md: Path | None, delay: float = 0) -> dict[str, float]:
    start = time.perf_counter()
    server = Server(binary, ["--root", str(tree)])
    try:
        init = server.handshake()
        t_init = time.perf_counter() - start
        # Both at once, as a host's model may: neither waits for the other's answer.
        (result, at_call), (_, at_find) = server.requests_at_once([
            ("tools/call", {"name": "skill", "arguments": {"name": name}}),
            ("tools/call", {"name": "find_skills", "arguments": {"query": name.replace("-", " ")}}),
        ])
        t_call, t_find = at_call - start, at_find - start
        if result.get("isError"):
            raise SystemExit(f"bench: tools/call {name} failed: {result}")
        loading = float("still being read" in (init.get("instructions") or ""))
        out = {"init": t_init, "call": t_call, "find": t_find, "loading": loading}
        if skill_md is not None:
            time.sleep(delay)
            original = skill_md.read_bytes()
            marker = f"edited by bench/ready.py at {time.time()}"
            edited = original.replace(b"\ndescription:", f"\ndescription: {marker}".encode(), 1)
            if edited == original:
                raise SystemExit(f"bench: no description line to edit in {skill_md}")
            try:
                edit = time.perf_counter()
                skill_md.write_bytes(edited)
                wait_changed(server, edit + 10)
                out["changed"] = time.perf_counter() - edit
                server.request("tools/call", {"name": "skill", "arguments": {"name": name}})
                out["served"] = time.perf_counter() - edit
            finally:
                skill_md.write_bytes(original)
        return out
    finally:
        server.close()


def warm_up(binary: Path, tree: Path, name: str, cache: Path) -> None:
    """One server's start, kept running until it has written its start cache (the
    search index is written once it is built, on a thread of its own)."""
    server = Server(binary, ["--root", str(tree)])
    try:
        server.handshake()
        server.request("tools/call", {"name": "find_skills", "arguments": {"query": name.replace("-", " ")}})
        deadline = time.perf_counter() + 120
        while not list(cache.glob("search-*.bin")) and time.perf_counter() < deadline:
            time.sleep(0.1)
        time.sleep(0.5)  # the level-1 file is written right after the search file
    finally:
        server.close()


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tree", type=Path, required=True)
    parser.add_argument("--bin", type=Path, default=ROOT / "target" / "release" / "skilldeck")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--cold-cache", action="store_true", help="empty the level-1 cache before each run")
    parser.add_argument("--edit", action="store_true", help="also time an edit's list_changed (writable tree)")
    parser.add_argument("--edit-delay", type=float, default=0.0, metavar="S",
                        help="make the edit S seconds after the first call is answered (default 0)")
    args = parser.parse_args()
    if not args.bin.is_file():
        raise SystemExit(f"bench: no binary at {args.bin} (cargo build --release -p skilldeck-cli)")

    _, name = cold_list(args.bin, args.tree)  # warms the page cache
    listing = json.loads(subprocess.run(
        [str(args.bin), "list", "--json", "--root", str(args.tree)], capture_output=True, check=True,
    ).stdout)
    location = next(s["location"] for s in listing["skills"] if s["name"] == name)
    skill_md = Path(location) if args.edit else None
    cache = Path(tempfile.mkdtemp(prefix="skilldeck-bench-cache-"))
    os.environ["XDG_CACHE_HOME"] = str(cache)  # the servers inherit it
    warm_up(args.bin, args.tree, name, cache / "skilldeck")
    lists, runs = [], []
    for _ in range(args.runs):
        if args.cold_cache:
            shutil.rmtree(cache / "skilldeck", ignore_errors=True)
        # Interleaved, so that both see the same load on a shared machine.
        lists.append(cold_list(args.bin, args.tree)[0])
        runs.append(one_run(args.bin, args.tree, name, skill_md, args.edit_delay))
    shutil.rmtree(cache, ignore_errors=True)

    med = lambda key: statistics.median(r[key] for r in runs)  # noqa: E731
    t_list = statistics.median(lists)
    print(f"binary {args.bin}\ntree   {args.tree} ({len(listing['skills'])} skills), median of {args.runs} runs\n")
    print(f"  cold skilldeck list            {t_list * 1000:8.1f} ms")
    print(f"  initialize answered            {med('init') * 1000:8.1f} ms   (bar < 100 ms; "
          f"instructions said loading in {sum(r['loading'] for r in runs):.0f} of {args.runs} runs)")
    ratio = med("call") / t_list
    print(f"  first tools/call answered      {med('call') * 1000:8.1f} ms   = {ratio:.2f}x cold list (bar <= 1.5)")
    find_ratio = med("find") / t_list
    after_init = med("find") - med("init")
    bar = "1.5x cold list: a first start" if args.cold_cache else "1 s after initialize: a warm start"
    print(f"  first find_skills answered     {med('find') * 1000:8.1f} ms   = {find_ratio:.2f}x cold list, "
          f"{after_init * 1000:.0f} ms after initialize (bar: {bar})")
    failed = med("init") >= 0.1 or ratio > 1.5 or (find_ratio > 1.5 if args.cold_cache else after_init > 1.0)
    if args.edit:
        print(f"  edit -> resources/list_changed {med('changed') * 1000:8.1f} ms   (bar <= 300 ms; "
              f"max {max(r['changed'] for r in runs) * 1000:.1f} ms)")
        print(f"  edit -> new tools/call answer  {med('served') * 1000:8.1f} ms")
        failed |= med("changed") > 0.3
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
