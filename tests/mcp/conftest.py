"""Fixtures for the end-to-end tests of `skilldeck serve` (helpers live in support.py)."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from support import (
    BIN,
    DATA_SKILLS,
    MAIN_TREE,
    STORE_SKILL_MD,
    RawStdio,
    Tree,
    run_cli,
    write_tree,
)


def pytest_configure(config: pytest.Config) -> None:
    if not BIN.is_file():
        raise pytest.UsageError(f"skilldeck binary not found at {BIN}: run `cargo build -p skilldeck-cli` or set SKILLDECK_BIN")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(autouse=True)
def own_cache_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test's servers keep their level-1 cache in a directory of the test's own: a
    server started again by a later test with the same command line would otherwise
    answer `initialize` from an earlier test's run (and none writes to the user's cache)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("cache")))


@pytest.fixture(scope="session")
def main_tree(tmp_path_factory: pytest.TempPathFactory) -> Tree:
    base = tmp_path_factory.mktemp("main")
    root = write_tree(base / "skills", MAIN_TREE)
    (base / "secret.txt").write_bytes(b"TOP SECRET outside every root\n")
    data = base / "data.json"
    data.write_text(json.dumps(DATA_SKILLS))
    store = base / "store.sqlite"
    md = base / "epsilon.md"
    md.write_text(STORE_SKILL_MD)
    run_cli("store", "write", "epsilon", "--file", str(md), "--store", str(store), check=True)
    args = ["--root", str(root), "--skills", str(data), "--store", str(store)]
    return Tree(root=root, args=args, names=["alpha", "beta", "gamma", "delta", "epsilon"], extra={"base": base})


@pytest.fixture(scope="session")
def paged_tree(tmp_path_factory: pytest.TempPathFactory) -> Tree:
    """250 skills, each with two or three files, served with --page-size 100."""
    root = tmp_path_factory.mktemp("paged")
    tree: dict[str, dict[str, bytes]] = {}
    for i in range(250):
        name = f"p{i:03d}"
        files = {
            "SKILL.md": f"---\nname: {name}\ndescription: Paged skill number {i}.\n---\n\nBody {i}.\n".encode(),
            "ref.md": f"reference {i}\n".encode() * (i % 7 + 1),
        }
        if i % 3 == 0:
            files["bin/blob.dat"] = bytes(range(256)) * (i % 5 + 1)
        tree[name] = files
    write_tree(root, tree)
    return Tree(root=root, args=["--root", str(root), "--page-size", "100"], names=sorted(tree))


@pytest.fixture(scope="session")
def limits_tree(tmp_path_factory: pytest.TempPathFactory) -> Tree:
    """Skills at and over the extension's per-skill limits (512 files, 16 MiB)."""
    root = tmp_path_factory.mktemp("limits")

    def md(name: str) -> bytes:
        return f"---\nname: {name}\ndescription: Limits test skill {name}.\n---\n\nBody.\n".encode()

    tree = {
        "at-limit": {"SKILL.md": md("at-limit"), **{f"f/{i:03d}.txt": b"x\n" for i in range(511)}},  # 512 files
        "too-many-files": {"SKILL.md": md("too-many-files"), **{f"f/{i:03d}.txt": b"x\n" for i in range(512)}},  # 513
        "too-big": {"SKILL.md": md("too-big")},
        "bytes-at-limit": {"SKILL.md": md("bytes-at-limit")},
        "small": {"SKILL.md": md("small"), "a.txt": b"a\n"},
    }
    write_tree(root, tree)
    mib16 = 16 * 1024 * 1024
    (root / "too-big" / "big.bin").write_bytes(b"\x00" * mib16)  # + SKILL.md: over 16 MiB
    (root / "bytes-at-limit" / "big.bin").write_bytes(b"\x01" * (mib16 - len(md("bytes-at-limit"))))  # exactly 16 MiB
    names = ["at-limit", "bytes-at-limit", "small", "too-big", "too-many-files"]
    return Tree(root=root, args=["--root", str(root)], names=names)


@pytest.fixture
def raw_stdio(main_tree: Tree) -> Iterator[RawStdio]:
    server = RawStdio(main_tree.args)
    server.handshake()
    try:
        yield server
    finally:
        server.close()
