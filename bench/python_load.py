#!/usr/bin/env python3
"""skilldeck's Python package against toolnexus's Python on the 10k bench tree.

  python bench/python_load.py [TREE] [--runs N]

Times `load_skills(TREE)` followed by `prompt()` in this interpreter, which must
have both `skilldeck` (pip install ./crates/skilldeck-py) and `toolnexus==0.21.0`
installed (scripts/test's target/venvs/py has both). TREE defaults to bench/run's
target/bench/tree10k, generated with bench/gen_tree.py when missing. Each library
gets one warm-up, then N alternating timed runs; the medians and their ratio (bar:
skilldeck at least 20x faster) are printed. Both see a warm page cache.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Tuple

ROOT = Path(__file__).resolve().parents[1]
BAR = 20.0


def timed(load: Callable[[str], Any], tree: str) -> Tuple[float, float]:
    """Wall time and this process's CPU time (every thread's) of one load + prompt."""
    start, cpu = time.perf_counter(), time.process_time()
    source = load(tree)
    prompt = source.prompt()
    took, used = time.perf_counter() - start, time.process_time() - cpu
    assert prompt.startswith("Skills provide"), prompt[:80]
    return took, used


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tree", nargs="?", default=str(ROOT / "target" / "bench" / "tree10k"))
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    tree = Path(args.tree)
    if not tree.is_dir():
        print(f"generating {tree} (10000 skills)", file=sys.stderr)
        subprocess.run([sys.executable, str(ROOT / "bench" / "gen_tree.py"), str(tree), "10000"], check=True)

    import skilldeck
    import toolnexus.skill

    # Same skills, same prompt, before anything is timed.
    ours, theirs = skilldeck.load_skills(str(tree)), toolnexus.skill.load_skills(str(tree))
    assert ours.prompt() == theirs.prompt(), "the prompts differ"
    count = len(ours.skills)

    loaders: Dict[str, Callable[[str], Any]] = {"skilldeck": skilldeck.load_skills, "toolnexus": toolnexus.skill.load_skills}
    times: Dict[str, List[float]] = {name: [] for name in loaders}
    cpu: Dict[str, List[float]] = {name: [] for name in loaders}
    for name, load in loaders.items():
        timed(load, str(tree))  # warm-up
    for _ in range(args.runs):
        for name, load in loaders.items():
            wall, used = timed(load, str(tree))
            times[name].append(wall)
            cpu[name].append(used)
    med = {name: statistics.median(t) for name, t in times.items()}
    med_cpu = {name: statistics.median(t) for name, t in cpu.items()}
    for name, m in med.items():
        print(
            f"{name:10} load_skills + prompt(), {count} skills: median {m * 1000:8.1f} ms wall "
            f"(min {min(times[name]) * 1000:.1f}), {med_cpu[name] * 1000:8.1f} ms CPU, {args.runs} runs"
        )
    ratio = med["toolnexus"] / med["skilldeck"]
    # CPU time says what the work costs when the machine is shared (the wall ratio
    # shrinks when other processes take the cores skilldeck's walk runs on).
    print(f"ratio toolnexus/skilldeck, CPU time: {med_cpu['toolnexus'] / med_cpu['skilldeck']:.1f}x")
    print(f"ratio toolnexus/skilldeck, wall time: {ratio:.1f}x (bar {BAR:.0f}x) {'ok' if ratio >= BAR else 'MISSED'}")
    return 0 if ratio >= BAR else 1


if __name__ == "__main__":
    sys.exit(main())
