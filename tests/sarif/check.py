#!/usr/bin/env python3
"""`skilldeck audit --format sarif` against the official SARIF 2.1.0 schema.

  python tests/sarif/check.py SCHEMA.json

SCHEMA is OASIS's sarif-2.1.0-rtm.5.json as Microsoft's @microsoft/jest-sarif package ships
it on npm (scripts/test fetches it: CI reaches only the package registries). The audit runs
over the labelled corpus (tests/audit-corpus: findings of every severity, positions, allow
markers) and over a directory holding no skill (a log with no results), with $SKILLDECK_BIN;
each log must validate, and the corpus's must hold a result for every finding of the JSON
report of the same run, at its position.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import jsonschema

CORPUS = Path(__file__).resolve().parent.parent / "audit-corpus"


def audit(fmt: str, *paths: Path) -> dict:
    done = subprocess.run(
        [os.environ["SKILLDECK_BIN"], "audit", "--format", fmt, *map(str, paths)],
        capture_output=True,
        check=False,
    )
    if done.returncode not in (0, 1):
        sys.exit(f"skilldeck audit exited {done.returncode}: {done.stderr.decode(errors='replace')}")
    return json.loads(done.stdout)


def main() -> None:
    schema = json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))
    validator = jsonschema.Draft4Validator(schema)
    roots = [CORPUS / "malicious", CORPUS / "benign"]
    with tempfile.TemporaryDirectory() as empty:
        logs = {"corpus": audit("sarif", *roots), "no skill": audit("sarif", Path(empty))}
    for name, log in logs.items():
        errors = sorted(validator.iter_errors(log), key=lambda e: list(e.absolute_path))
        for error in errors[:20]:
            print(f"{name}: {'/'.join(map(str, error.absolute_path))}: {error.message}")
        if errors:
            sys.exit(f"{name}: {len(errors)} schema errors")
    assert logs["no skill"]["runs"][0]["results"] == [], logs["no skill"]
    # Every finding of the JSON report is a result of the SARIF log, at its place.
    report = audit("json", *roots)
    findings = {
        (f["rule"], f["line"], f["column"]) for skill in report["skills"] for f in skill["findings"]
    }
    results = {
        (
            r["ruleId"],
            r["locations"][0]["physicalLocation"]["region"]["startLine"],
            r["locations"][0]["physicalLocation"]["region"]["startColumn"],
        )
        for r in logs["corpus"]["runs"][0]["results"]
    }
    assert findings and findings <= results, sorted(findings - results)[:10]
    print(f"SARIF 2.1.0: {len(logs['corpus']['runs'][0]['results'])} results validate against {Path(sys.argv[1]).name}")


if __name__ == "__main__":
    main()
