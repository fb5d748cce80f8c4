#!/usr/bin/env python3
"""Measure the frontmatter mix of a tree of SKILL.md files.

Usage: python3 bench/frontmatter_mix.py TREE [--json]

What share of the frontmatters has each shape the parser meets: nested maps
(`metadata:` and others), block and flow lists, folded (`>`) and literal (`|`)
blocks, quoted scalars, scalars wrapped over indented lines, comments, `allowed-tools`, CRLF line ends, non-ASCII
text, and what share YAML refuses (read with PyYAML's safe loader when it is
importable, as toolnexus does; run it with /work/venvs/toolnexus/bin/python
for that column). bench/gen_tree.py --mix registry reproduces these shares.

Measured on the public registry mirror gabrielmoreira/agent-skills-mirror at
commit 4e7649a87f4d537d80ff59a4fcf2857c2b28ff7e (its SKILL.md files only,
checked out with bench/retrieval/fetch_tree.sh); the numbers are kept in
gen_tree.py's REGISTRY_MIX.
"""

import json
import os
import re
import sys

try:
    import yaml  # PyYAML, as toolnexus reads frontmatter
except ImportError:  # the refusal column is then left out
    yaml = None

KEY = re.compile(r"^([A-Za-z0-9_][A-Za-z0-9_.-]*):(?:[ \t]+(.*)|)$")


def frontmatter(data):
    """The YAML between the fences (SPEC §3), or None."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    if data.startswith(b"---\n"):
        start = 4
    elif data.startswith(b"---\r\n"):
        start = 5
    else:
        return None
    pos = start
    while pos < len(data):
        end = data.find(b"\n", pos)
        line = data[pos:] if end < 0 else data[pos:end]
        if line.rstrip(b" \r") == b"---":
            return data[start:pos]
        if end < 0:
            break
        pos = end + 1
    return None


def shapes(text):
    """The set of shapes one frontmatter shows."""
    found = set()
    lines = text.split("\n")
    if "\r" in text:
        found.add("crlf")
    if any(ord(c) > 127 for c in text):
        found.add("non_ascii")
    for i, line in enumerate(lines):
        stripped = line.strip()
        if stripped.startswith("#"):
            found.add("comment")
            continue
        if not stripped:
            continue
        indent = len(line) - len(line.lstrip(" "))
        if stripped.startswith("- ") or stripped == "-":
            found.add("block_list")
        m = KEY.match(stripped)
        if not m:
            continue
        key, value = m.group(1), (m.group(2) or "").strip()
        if indent == 0 and key == "allowed-tools":
            found.add("allowed_tools")
        if " #" in value and not value.startswith(("'", '"')):
            found.add("comment")
        if value.startswith("["):
            found.add("flow_list")
        elif value.startswith("{"):
            found.add("flow_map")
        elif value.startswith(">"):
            found.add("folded")
        elif value.startswith("|"):
            found.add("literal")
        elif value.startswith(("'", '"')):
            found.add("quoted")
        elif value.startswith(("&", "*", "!")):
            found.add("anchor_alias_tag")
        elif value and indent == 0 and i + 1 < len(lines):
            nxt = lines[i + 1]
            if nxt.startswith(" ") and not KEY.match(nxt.strip()) and not nxt.strip().startswith(("- ", "#")):
                found.add("wrapped")
        if value == "" and indent == 0:
            nxt = next((l for l in lines[i + 1:] if l.strip() and not l.strip().startswith("#")), "")
            nindent = len(nxt) - len(nxt.lstrip(" "))
            if nindent > 0 and KEY.match(nxt.strip()):
                found.add("metadata_map" if key == "metadata" else "other_map")
    if not found - {"non_ascii"}:
        found.add("plain_only")
    return found


def main(argv):
    if not argv or argv[0].startswith("-"):
        sys.exit(__doc__)
    tree, as_json = argv[0], "--json" in argv[1:]
    counts, total, no_fm, refused, sizes = {}, 0, 0, 0, []
    for dirpath, dirnames, filenames in os.walk(tree):
        dirnames.sort()
        if "SKILL.md" not in filenames:
            continue
        try:
            with open(os.path.join(dirpath, "SKILL.md"), "rb") as f:
                fm = frontmatter(f.read())
        except OSError:  # a dangling link or a directory named SKILL.md
            continue
        if fm is None:
            no_fm += 1
            continue
        total += 1
        sizes.append(len(fm))
        text = fm.decode("utf-8", errors="replace")
        for shape in shapes(text):
            counts[shape] = counts.get(shape, 0) + 1
        if yaml is not None:
            try:
                loaded = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
                if not isinstance(loaded, dict):
                    refused += 1
            except yaml.YAMLError:
                refused += 1
    sizes.sort()
    share = {k: round(v / total, 4) for k, v in sorted(counts.items())} if total else {}
    if yaml is not None and total:
        share["refused"] = round(refused / total, 4)
    result = {"tree": tree, "frontmatters": total, "without_frontmatter": no_fm,
              "median_bytes": sizes[len(sizes) // 2] if sizes else 0,
              "p90_bytes": sizes[len(sizes) * 9 // 10] if sizes else 0, "share": share}
    if as_json:
        print(json.dumps(result, indent=1))
        return
    print(f"{total} frontmatters ({no_fm} SKILL.md without one) in {tree}")
    print(f"frontmatter bytes: median {result['median_bytes']}, p90 {result['p90_bytes']}")
    for k, v in sorted(share.items(), key=lambda kv: -kv[1]):
        print(f"  {k:<18} {v * 100:6.2f} %")
    if yaml is None:
        print("  (refused: PyYAML not importable; run with the toolnexus venv's python)")


if __name__ == "__main__":
    main(sys.argv[1:])
