#!/usr/bin/env python3
"""A registry tree at a larger scale: N copies of a real tree, the copies' skills renamed.

  python3 bench/scale_tree.py SRC DST [--copies 4]

Copies every file of SRC (for example a public registry's mirror from
bench/retrieval/fetch_tree.sh: some 15,700 `SKILL.md` files) into DST/copy-1 ...
DST/copy-N. In copy K >= 2, each `SKILL.md` whose frontmatter names the skill with a plain
(unquoted) `name:` line is renamed `NAME-copyK`, so the copies are distinct skills with the
registry's own shapes (frontmatter, bodies, files); quoted or missing names stay as they
are and are shadowed by copy 1's. Four copies give about 63,000 `SKILL.md` files, the
scale of the 61,452-file registry tree issue 11 speaks of, which is not fetchable here.
DST must not exist.
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
from pathlib import Path

NAME = re.compile(rb"^(name:[ \t]*)([^'\"\s#][^\r\n#]*?)([ \t]*)(\r?\n)", re.MULTILINE)


def rename(text: bytes, suffix: str) -> bytes:
    """`text` with its frontmatter's plain `name:` value suffixed; unchanged otherwise."""
    if not text.startswith(b"---"):
        return text
    end = text.find(b"\n---", 3)
    if end < 0:
        return text
    head, rest = text[:end], text[end:]
    renamed, count = NAME.subn(lambda m: m[1] + m[2] + suffix.encode() + m[3] + m[4], head, count=1)
    return renamed + rest if count else text


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("src", type=Path)
    parser.add_argument("dst", type=Path)
    parser.add_argument("--copies", type=int, default=4)
    args = parser.parse_args()
    if args.dst.exists():
        raise SystemExit(f"scale_tree: {args.dst} exists")
    files = 0
    for k in range(1, args.copies + 1):
        copy = args.dst / f"copy-{k}"
        shutil.copytree(args.src, copy, symlinks=True)
        if k == 1:
            continue
        for skill_md in copy.rglob("SKILL.md"):
            if skill_md.is_symlink() or not skill_md.is_file():
                continue
            text = skill_md.read_bytes()
            renamed = rename(text, f"-copy{k}")
            if renamed != text:
                skill_md.write_bytes(renamed)
                files += 1
    print(f"{args.dst}: {args.copies} copies of {args.src}, {files} SKILL.md renamed", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
