#!/usr/bin/env python3
"""Wall-clock timing of whole processes, for bench/run.

  timeit.py run KEY RUNS RESULTS -- CMD [ARG...]
      One warm-up run (must exit 0), then RUNS timed runs, each a fresh process
      with stdout/stderr to /dev/null. Appends {"key", "median_ms", "min_ms",
      "runs", "max_rss_kb"} as one JSON line to RESULTS (max_rss_kb: the
      largest peak resident set of a timed run, from wait4's rusage).
  timeit.py count KEY N RESULTS
      Records that tree KEY holds N skills (for memory per skill).
  timeit.py skip KEY WHY RESULTS
      Records that tree KEY was not measured, and why.
  timeit.py report RESULTS [--strict]
      Prints the table and the ratios against their bars. With --strict, exits 1
      if any bar is missed.
"""

import json
import os
import statistics
import subprocess
import sys
import time

# key -> description, in table order
ROWS = [
    ("floor10k", "skilldeck-floor tree10k"),
    ("skilldeck10k", "skilldeck list tree10k"),
    ("pystart", "python -c pass (toolnexus venv)"),
    ("pyimport", "python -c 'import toolnexus.skill'"),
    ("toolnexus10k", "toolnexus list_skills tree10k"),
    ("skilldeck_prompt1k", "skilldeck prompt --format agentskills tree1k"),
    ("agentskills1k", "agentskills to-prompt tree1k"),
    ("skilldeck_validate10k", "skilldeck validate tree10k"),
    ("skillsref_validate10k", "skills_ref.validate() per dir, tree10k, 1 proc"),
    ("skilldeck_validate1", "skilldeck validate (one skill)"),
    ("agentskills_validate1", "agentskills validate (one skill)"),
]


def cmd_run(key, runs, results, cmd):
    warm = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if warm.returncode != 0:
        tail = warm.stderr.decode(errors="replace")[-2000:]
        sys.exit(f"bench: {key}: command failed (exit {warm.returncode}): "
                 f"{' '.join(cmd[:4])}{' ...' if len(cmd) > 4 else ''}\n{tail}")
    times, rss = [], 0
    for _ in range(runs):
        t0 = time.perf_counter()
        child = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        # wait4 gives this child's own rusage (ru_maxrss in KiB on Linux).
        _, _, usage = os.wait4(child.pid, 0)
        times.append((time.perf_counter() - t0) * 1000.0)
        child.returncode = 0
        rss = max(rss, usage.ru_maxrss)
    rec = {"key": key, "median_ms": statistics.median(times), "min_ms": min(times),
           "runs": runs, "max_rss_kb": rss}
    with open(results, "a", encoding="utf-8") as f:
        f.write(json.dumps(rec) + "\n")
    print(f"  {key:<20} median {rec['median_ms']:9.1f} ms   min {rec['min_ms']:9.1f} ms",
          flush=True)


def cmd_report(results, strict):
    res = {}
    with open(results, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                rec = json.loads(line)
                res[rec["key"]] = rec
    med = {k: r["median_ms"] for k, r in res.items() if "median_ms" in r}

    print()
    print(f"{'measurement':<48} {'median ms':>10} {'min ms':>10}")
    for key, desc in ROWS:
        if key in res:
            print(f"{desc:<48} {res[key]['median_ms']:>10.1f} {res[key]['min_ms']:>10.1f}")
    if "toolnexus10k" in med and "pyimport" in med:
        net = med["toolnexus10k"] - med["pyimport"]
        print(f"{'toolnexus list_skills tree10k, minus import':<48} {net:>10.1f}")

    def ratio(a, b):
        return med[a] / med[b] if a in med and b in med and med[b] > 0 else None

    missed = False
    print()
    print(f"{'ratio':<64} {'value':>10} {'bar':>8}  verdict")

    def line(desc, value, bar=None, op=None):
        nonlocal missed
        if value is None:
            print(f"{desc:<64} {'n/a':>10}")
            return
        verdict = ""
        if bar is not None:
            ok = value <= bar if op == "<=" else value >= bar
            verdict = "PASS" if ok else "MISS"
            missed |= not ok
        bar_s = f"{op} {bar:g}" if bar is not None else ""
        print(f"{desc:<64} {value:>10.2f} {bar_s:>8}  {verdict}")

    line("skilldeck / floor (10k)", ratio("skilldeck10k", "floor10k"), 1.5, "<=")
    line("toolnexus / skilldeck (10k, whole process)",
         ratio("toolnexus10k", "skilldeck10k"), 25, ">=")
    if all(k in med for k in ("toolnexus10k", "pyimport", "skilldeck10k")):
        line("toolnexus / skilldeck (10k, minus import)",
             (med["toolnexus10k"] - med["pyimport"]) / med["skilldeck10k"])
    line("agentskills / skilldeck (1k prompt)",
         ratio("agentskills1k", "skilldeck_prompt1k"))
    line("skills-ref / skilldeck (10k validate)",
         ratio("skillsref_validate10k", "skilldeck_validate10k"))
    line("agentskills / skilldeck (validate one skill)",
         ratio("agentskills_validate1", "skilldeck_validate1"))
    trees(res, line)
    runs = sorted({r["runs"] for r in res.values() if "runs" in r})
    print(f"\n(median of {'/'.join(map(str, runs))} runs after a warm-up; warm page cache; "
          "shared machine: trust ratios over absolute times)")
    return 1 if (strict and missed) else 0


# The trees of real shapes: (suffix, description, bar on skilldeck / floor).
TREES = [
    ("10k", "bench tree, plain frontmatter (10k)", 1.5),
    ("mix10k", "registry mix, generated (10k)", 1.5),
    ("registry", "public registry tree", 1.3),
]


def trees(res, line):
    """skilldeck `list` against the floor and toolnexus on each tree, and
    skilldeck's peak memory per skill."""
    med = {k: r["median_ms"] for k, r in res.items() if "median_ms" in r}
    print()
    print(f"{'tree':<40} {'skilldeck':>10} {'floor':>8} {'toolnexus':>10} {'peak RSS':>9} {'per skill':>10}")
    shown = []
    for suffix, desc, bar in TREES:
        sd, fl, tn = (f"{k}{suffix}" for k in ("skilldeck", "floor", "toolnexus"))
        if sd not in med:
            print(f"{desc:<40} {'skipped':>10}  {res.get('skip' + suffix, {}).get('why', '')}")
            continue
        rss = res[sd].get("max_rss_kb", 0)
        count = res.get(f"count{suffix}", {}).get("n", 0)
        per = f"{rss * 1024 / count / 1024:.1f} KiB" if count else "n/a"
        print(f"{desc:<40} {med[sd]:>8.1f}ms {med.get(fl, 0):>6.1f}ms {med.get(tn, 0):>8.0f}ms "
              f"{rss / 1024:>7.1f}MB {per:>10}")
        shown.append((suffix, desc, bar))
    print()
    for suffix, desc, bar in shown:
        sd, fl, tn = (f"{k}{suffix}" for k in ("skilldeck", "floor", "toolnexus"))
        if fl in med:
            line(f"skilldeck / floor ({desc})", med[sd] / med[fl], bar, "<=")
        if tn in med:
            line(f"toolnexus / skilldeck ({desc})", med[tn] / med[sd], 25, ">=")


def cmd_count(key, n, results):
    with open(results, "a", encoding="utf-8") as f:
        f.write(json.dumps({"key": key, "n": n}) + "\n")


def cmd_skip(key, why, results):
    with open(results, "a", encoding="utf-8") as f:
        f.write(json.dumps({"key": key, "why": why}) + "\n")


def main(argv):
    if len(argv) >= 5 and argv[0] == "run" and "--" in argv:
        sep = argv.index("--")
        key, runs, results = argv[1:4]
        return cmd_run(key, int(runs), results, argv[sep + 1:])
    if len(argv) == 4 and argv[0] == "count":
        return cmd_count(argv[1], int(argv[2]), argv[3])
    if len(argv) == 4 and argv[0] == "skip":
        return cmd_skip(argv[1], argv[2], argv[3])
    if len(argv) >= 2 and argv[0] == "report":
        return cmd_report(argv[1], "--strict" in argv[2:])
    sys.exit(__doc__)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
