"""Shared fixtures: real skill trees in temporary directories."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Dict


def write_tree(root: Path, files: Dict[str, str]) -> Path:
    """Writes `files` (relative path -> text) under `root`; returns `root`."""
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def mixed_tree(root: Path, outside: Path) -> Path:
    """A tree with most of what discovery meets: nesting, duplicates, a missing
    name, malformed YAML the fallback rescues and one it cannot, block scalars,
    no description, many siblings, a link to a skill outside the root (listed;
    its body is not served: README's Compatibility table), a directory never entered."""
    files = {
        "alpha/SKILL.md": "---\nname: alpha\ndescription: First skill.\n---\n\n# Alpha\n\nDo alpha things.\n",
        "alpha/scripts/run.sh": "echo alpha\n",
        "alpha/reference/notes.md": "notes\n",
        "beta/SKILL.md": "---\nname: beta\ndescription: >\n  Folded over\n  two lines.\n---\nBeta body\n",
        "gamma/SKILL.md": "---\nname: gamma\ndescription: |\n  line one\n  line two\n---\n  indented body  \n",
        "quiet/SKILL.md": "---\nname: quiet\n---\nno description here\n",
        "nested/deep/alpha/SKILL.md": "---\nname: alpha\ndescription: A nested copy.\n---\nloses\n",
        "noname/SKILL.md": "---\ndescription: nameless\n---\nbody\n",
        "broken/SKILL.md": "---\nname: [unclosed\n---\nbody\n",
        "rescued/SKILL.md": "---\nname: rescued\ndescription: a: b: c\n---\nbody\n",
        "nofm/SKILL.md": "just text, no frontmatter\n",
        "unicode/SKILL.md": "---\nname: émoji-ß\ndescription: \"Ünïcödé 🎉 <x> & y\"\n---\nCorpo em português.\n",
    }
    for i in range(14):
        files[f"many/file{i:02}.txt"] = str(i)
    files["many/SKILL.md"] = "---\nname: many\ndescription: Lots of files.\n---\nmany\n"
    files["node_modules/hidden/SKILL.md"] = "---\nname: hidden\ndescription: never\n---\n"
    write_tree(root, files)
    write_tree(outside, {"linked/SKILL.md": "---\nname: linked\ndescription: Through a link.\n---\nlinked body\n"})
    os.symlink(outside / "linked", root / "link")
    return root
