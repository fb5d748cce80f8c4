#!/usr/bin/env python3
"""What `skilldeck audit` finds, against cisco-ai-skill-scanner's static mode, in one run.

  python3 bench/audit_quality.py [--bin target/release/skilldeck] [--cisco PYTHON]
                                 [--corpus tests/audit-corpus] [--tree DIR] [--sample 20]

  e.g. python3 bench/audit_quality.py --cisco /work/venvs/cisco/bin/python --tree /work/trees/mirror

The labelled corpus (tests/audit-corpus): recall on the malicious skills (`malicious/` and
the known misses in `gaps/`, together) and false positives on `benign/`, each as the share
of skills whose worst finding is at or above each severity. With `--cisco PYTHON` (the
interpreter of a venv holding `pip install cisco-ai-skill-scanner`; no LLM judge, none is
reachable) the scanner's `scan-all` runs on the same folders and its table follows.

With `--tree DIR` (a public registry's tree: bench/retrieval/fetch_tree.sh DIR --full),
the share of its skills flagged `high` or above (issue 22's bar: at most 1%), the rules
behind those flags, and a sample of SAMPLE flagged findings for review, each as
`path:line:column rule: excerpt`.
"""

from __future__ import annotations

import argparse
import collections
import json
import random
import subprocess
import sys
from pathlib import Path

SEVERITIES = ["info", "low", "medium", "high", "critical"]
RANK = {s: i for i, s in enumerate(SEVERITIES)}


def skilldeck_worst(bin_: str, root: Path) -> dict[str, str | None]:
    """Each skill directory under ROOT (by name) and skilldeck's worst severity, or None."""
    out = subprocess.run([bin_, "audit", "--root", str(root), "--format", "json"], capture_output=True, text=True)
    if out.returncode not in (0, 1):
        sys.exit(f"skilldeck audit {root} exited {out.returncode}: {out.stderr}")
    return {Path(s["dir"]).name: s["max_severity"] for s in json.loads(out.stdout)["skills"]}


def cisco_worst(python: str, root: Path) -> dict[str, str | None]:
    """The same from cisco-ai-skill-scanner's `scan-all` (static analyzers only)."""
    scanner = str(Path(python).parent / "skill-scanner")
    out = subprocess.run([scanner, "scan-all", str(root), "--recursive", "--format", "json"],
                         capture_output=True, text=True)
    if out.returncode not in (0, 1):
        sys.exit(f"skill-scanner {root} exited {out.returncode}: {out.stderr[-2000:]}")
    worst = {}
    for result in json.loads(out.stdout)["results"]:
        severities = [f["severity"].lower() for f in result["findings"] if f["severity"].lower() in RANK]
        worst[Path(result["skill_path"]).name] = max(severities, key=RANK.__getitem__, default=None)
    return worst


def table(label: str, malicious: dict, benign: dict) -> None:
    """Recall and false positives at each threshold."""
    print(f"\n{label}")
    print(f"  {'at or above':<12} {'recall (malicious)':>22} {'false positives (benign)':>26}")
    for severity in reversed(SEVERITIES[1:]):
        def share(worst: dict) -> str:
            hit = sum(1 for w in worst.values() if w is not None and RANK[w] >= RANK[severity])
            return f"{hit}/{len(worst)} ({hit / max(1, len(worst)):.1%})"
        print(f"  {severity:<12} {share(malicious):>22} {share(benign):>26}")


def corpus(args: argparse.Namespace) -> None:
    root = Path(args.corpus)
    if not (root / "benign").is_dir():
        print(f"{root}: no labelled corpus here; skipped")
        return
    folders = {kind: root / kind for kind in ("malicious", "gaps", "benign")}
    ours = {kind: skilldeck_worst(args.bin, path) for kind, path in folders.items() if path.is_dir()}
    malicious = {**ours["malicious"], **ours.get("gaps", {})}
    table(f"skilldeck audit on {root} ({len(malicious)} malicious, {len(ours['benign'])} benign)",
          malicious, ours["benign"])
    if args.cisco:
        theirs = {kind: cisco_worst(args.cisco, path) for kind, path in folders.items() if path.is_dir()}
        table("cisco-ai-skill-scanner scan-all (static analyzers)",
              {**theirs["malicious"], **theirs.get("gaps", {})}, theirs["benign"])
        missed = sorted(n for n, w in malicious.items() if w is None or RANK[w] < RANK["high"])
        caught = {**theirs["malicious"], **theirs.get("gaps", {})}
        by_them = [n for n in missed if caught.get(n) and RANK[caught[n]] >= RANK["high"]]
        print(f"\n  below high for skilldeck but high or above for the scanner: {', '.join(by_them) or 'none'}")


def wild(args: argparse.Namespace) -> None:
    out = subprocess.run([args.bin, "audit", "--root", args.tree, "--format", "json"], capture_output=True, text=True)
    if out.returncode not in (0, 1):
        sys.exit(f"skilldeck audit {args.tree} exited {out.returncode}: {out.stderr[-2000:]}")
    skills = json.loads(out.stdout)["skills"]
    flagged = [s for s in skills if s["max_severity"] and RANK[s["max_severity"]] >= RANK["high"]]
    print(f"\n{args.tree}: {len(flagged)} of {len(skills)} skills flagged high or above "
          f"({len(flagged) / max(1, len(skills)):.2%}; bar: at most 1%)")
    rules = collections.Counter()
    high = []
    for s in flagged:
        found = [f for f in s["findings"] if RANK[f["severity"]] >= RANK["high"]]
        rules.update({f["rule"] for f in found})
        high.extend(found)
    for rule, n in rules.most_common():
        print(f"  {n:5d} skills  {rule}")
    random.seed(22)
    print(f"\n  a sample of {min(args.sample, len(high))} of those findings, for review:")
    for f in random.sample(high, min(args.sample, len(high))):
        print(f"  {f['path']}:{f['line']}:{f['column']} {f['rule']}: {f['excerpt'][:100]}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bin", default="target/release/skilldeck")
    parser.add_argument("--cisco", metavar="PYTHON", help="a venv's python with cisco-ai-skill-scanner")
    parser.add_argument("--corpus", default="tests/audit-corpus")
    parser.add_argument("--tree", help="a public registry's tree: the share flagged high in the wild")
    parser.add_argument("--sample", type=int, default=20)
    args = parser.parse_args()
    corpus(args)
    if args.tree:
        wild(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
