#!/usr/bin/env python3
"""A public registry's shape at scale: one flat root of N skill directories, a third of
whose names repeat, made from the real `SKILL.md` files of a fetched registry tree.

  python3 bench/flat_tree.py SRC DST [--skills 61452] [--distinct 40419]

SRC is a tree of `SKILL.md` files (bench/retrieval/fetch_tree.sh: agent-skills-mirror at a
pinned commit, 15,728 files); DST must not exist. DST gets N directories directly under it,
`d00000-<slug>` ..., each holding one `SKILL.md`, as the registry tree issues 20 and 23
measured (61,452 `SKILL.md` files directly under one root, 40,419 distinct names). The
first DISTINCT directories take SRC's files in turn (sorted by path), each renamed where
its name is taken already, so every one of them has a name of its own; each directory
after them is a byte-for-byte copy of one of those (the same skill published again by
another author), so its name is a duplicate and it is shadowed. SRC's files with no usable
plain `name:` line keep their text and may be skipped or duplicates: as in the wild.

Deterministic: the same SRC and numbers always give the same tree. Nothing of SRC is
committed; only this script.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

NAME = re.compile(rb"^(name:[ \t]*)([^'\"\s#][^\r\n#]*?)([ \t]*)(\r?\n)", re.MULTILINE)


def head_name(text: bytes) -> tuple[bytes | None, re.Match[bytes] | None]:
    """The plain `name:` value of the frontmatter, and its match; none without one."""
    if not text.startswith(b"---"):
        return None, None
    end = text.find(b"\n---", 3)
    if end < 0:
        return None, None
    match = NAME.search(text, 0, end)
    return (match[2], match) if match else (None, None)


def slug(name: bytes) -> str:
    return re.sub(r"[^a-z0-9-]+", "-", name.decode("utf-8", "replace").lower()).strip("-")[:40] or "skill"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("src", type=Path)
    parser.add_argument("dst", type=Path)
    parser.add_argument("--skills", type=int, default=61452)
    parser.add_argument("--distinct", type=int, default=40419)
    args = parser.parse_args()
    if args.dst.exists():
        raise SystemExit(f"flat_tree: {args.dst} exists")
    if not 0 < args.distinct <= args.skills:
        raise SystemExit("flat_tree: --distinct must be between 1 and --skills")
    sources = []
    for path in sorted(args.src.rglob("SKILL.md")):
        if path.is_file() and not path.is_symlink():
            sources.append(path.read_bytes())
    if not sources:
        raise SystemExit(f"flat_tree: no SKILL.md under {args.src}")
    args.dst.mkdir(parents=True)
    taken: set[bytes] = set()
    made: list[tuple[str, bytes]] = []
    for i in range(args.skills):
        if i < args.distinct:
            text = sources[i % len(sources)]
            name, match = head_name(text)
            if name is not None and match is not None:
                unique, n = name, 1
                while unique in taken:
                    n += 1
                    unique = name + b"-" + str(n).encode()
                taken.add(unique)
                if unique != name:
                    text = text[: match.start(2)] + unique + text[match.end(2) :]
                name = unique
            dir_name = f"d{i:05d}-{slug(name or b'skill')}"
        else:
            # Another author's copy of an earlier skill: the same bytes, a directory of its own.
            original_dir, text = made[(i * 7919) % args.distinct]
            dir_name = f"d{i:05d}-{original_dir.split('-', 1)[1]}"
        skill = args.dst / dir_name
        skill.mkdir()
        (skill / "SKILL.md").write_bytes(text)
        made.append((dir_name, text))
    print(f"flat_tree: {args.skills} skills directly under {args.dst}, {len(taken)} distinct plain names", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
