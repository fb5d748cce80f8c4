#!/usr/bin/env python3
"""`skilldeck audit` against `skilldeck list` on one tree, in one run, interleaved.

  python3 bench/audit.py TREE [--bin target/release/skilldeck] [--runs 5]
                              [--cisco PYTHON] [--cisco-skills 500]

Runs `skilldeck list --root TREE --json` and `skilldeck audit --root TREE --format json`
(stdout to /dev/null) once each to warm the page cache, then RUNS rounds of one list and one
audit each, alternating which goes first, and prints each command's median and minimum
wall-clock time and the ratio audit/list of the medians (issue 22's bar: at most 3). The
audit's exit status 1 (a finding at or above `high`) is expected on a public registry and
is not a failure.

With `--cisco PYTHON` (the interpreter of a venv holding `pip install
cisco-ai-skill-scanner`), the first CISCO_SKILLS skill directories of TREE (candidate
order: path) are also copied into a temporary tree and scanned there by the scanner's
static analyzers (`skill-scanner scan-all`, no LLM, no network), timed against skilldeck
audit of the same subset, and the ratio is printed. Build skilldeck first:

  CARGO_TARGET_DIR=/work/target-audit cargo build --release -p skilldeck-cli
  python3 bench/audit.py /work/trees/mirror --bin /work/target-audit/release/skilldeck
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def timed(cmd: list[str], ok: tuple[int, ...] = (0,)) -> float:
    """Seconds `cmd` took; exits the bench if it fails."""
    t0 = time.perf_counter()
    done = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    took = time.perf_counter() - t0
    if done.returncode not in ok:
        tail = done.stderr.decode(errors="replace")[-2000:]
        sys.exit(f"bench: {' '.join(cmd[:3])} ... exited {done.returncode}\n{tail}")
    return took


def interleaved(commands: dict[str, tuple[list[str], tuple[int, ...]]], runs: int) -> dict[str, list[float]]:
    """Each command once to warm up, then `runs` rounds, the order rotating each round."""
    names = list(commands)
    for name in names:
        timed(*commands[name])
    times: dict[str, list[float]] = {name: [] for name in names}
    for round_ in range(runs):
        order = names[round_ % len(names):] + names[:round_ % len(names)]
        for name in order:
            times[name].append(timed(*commands[name]))
    return times


def report(times: dict[str, list[float]], base: str) -> None:
    for name, ts in times.items():
        print(f"  {name:<28} median {statistics.median(ts) * 1000:9.1f} ms   min {min(ts) * 1000:9.1f} ms"
              f"   ({len(ts)} runs)")
    base_median = statistics.median(times[base])
    for name, ts in times.items():
        if name != base:
            print(f"  ratio {name} / {base}: {statistics.median(ts) / base_median:.2f}")


def subset(tree: Path, count: int, dst: Path) -> int:
    """Copies the first `count` skill directories of `tree` (by path) into `dst`; returns how many."""
    dirs = sorted({p.parent for p in tree.rglob("SKILL.md") if p.is_file()})
    chosen, taken = [], set()
    for d in dirs:
        # A skill inside another chosen skill comes with it.
        if any(parent in taken for parent in d.parents):
            continue
        chosen.append(d)
        taken.add(d)
        if len(chosen) == count:
            break
    for i, d in enumerate(chosen):
        shutil.copytree(d, dst / f"{i:05d}-{d.name}", symlinks=True, ignore_dangling_symlinks=True)
    return len(chosen)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tree", type=Path)
    parser.add_argument("--bin", default="target/release/skilldeck")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--cisco", metavar="PYTHON", help="a venv's python with cisco-ai-skill-scanner")
    parser.add_argument("--cisco-skills", type=int, default=500)
    args = parser.parse_args()
    bin_ = os.path.abspath(args.bin)
    tree = str(args.tree)
    print(f"{tree}: audit against list, {args.runs} interleaved rounds")
    times = interleaved({
        "skilldeck list --json": ([bin_, "list", "--root", tree, "--json"], (0,)),
        "skilldeck audit --format json": ([bin_, "audit", "--root", tree, "--format", "json"], (0, 1)),
    }, args.runs)
    report(times, "skilldeck list --json")
    if args.cisco:
        scanner = Path(args.cisco).parent / "skill-scanner"
        with tempfile.TemporaryDirectory(prefix="audit-bench-") as tmp:
            n = subset(args.tree, args.cisco_skills, Path(tmp))
            print(f"{n} skills of {tree}: skilldeck audit against cisco-ai-skill-scanner (static analyzers)")
            times = interleaved({
                "skilldeck audit --format json": ([bin_, "audit", "--root", tmp, "--format", "json"], (0, 1)),
                "cisco skill-scanner scan-all": ([str(scanner), "scan-all", tmp, "--recursive", "--format", "json"], (0, 1)),
            }, max(1, args.runs // 2))
            report(times, "skilldeck audit --format json")
    return 0


if __name__ == "__main__":
    sys.exit(main())
