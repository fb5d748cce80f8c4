"""Fixtures for the browser tests of `skilldeck studio` (helpers live in support.py)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from support import (
    AXE,
    BIN,
    CHROMIUM,
    CHROMIUM_ARGS,
    OtherService,
    Pages,
    Studio,
    chromium_missing,
    drop_store,
    fresh_store,
    skill_md,
    write_disk_skill,
)

DISK_SKILL = "disk-skill"
DISK_SKILL_MD = skill_md(DISK_SKILL, "A skill read from the --root directory.", "# Disk\n\nDisk body.")


def pytest_configure(config: pytest.Config) -> None:
    if not BIN.is_file():
        raise pytest.UsageError(f"skilldeck binary not found at {BIN}: run `cargo build -p skilldeck-cli` or set SKILLDECK_BIN")
    if not AXE.is_file():
        raise pytest.UsageError(f"axe-core not found at {AXE}: scripts/test installs it (npm install --prefix target/axe axe-core)")


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    missing = chromium_missing()
    if missing:
        # CI installs Chromium (scripts/test): there a missing browser is a failure, not a skip.
        if os.environ.get("CI"):
            pytest.fail(missing)
        print(f"\nskipping the Studio browser tests: {missing}")
        pytest.skip(missing)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def context(browser: Any) -> Iterator[Any]:
    # bypass_csp: axe-core goes in as an inline script, which the Studio's
    # Content-Security-Policy refuses; and the hostile-input tests must show that
    # values are escaped, not that the policy would have blocked them anyway.
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, bypass_csp=True)
    ctx.set_default_timeout(15_000)
    yield ctx
    ctx.close()


@dataclass
class Setup:
    """A running Studio over a fresh store and a root with one disk skill."""

    studio: Studio
    root: Path
    store: str
    kind: str

    def close(self) -> None:
        self.studio.close()
        drop_store(self.store)

    @property
    def sources(self) -> list[str]:
        """The source flags the Studio runs with, for the CLI checks."""
        return ["--root", str(self.root), "--store", self.store]


def start(kind: str, tmp: Path, root: Path | None = None) -> Setup:
    if root is None:
        root = tmp / "skills"
        write_disk_skill(root, DISK_SKILL, DISK_SKILL_MD)
    store = fresh_store(kind, tmp)
    return Setup(Studio(["--root", str(root), "--store", store]), root, store, kind)


STORES = [
    pytest.param("sqlite", id="sqlite"),
    pytest.param(
        "postgres",
        id="postgres",
        marks=pytest.mark.skipif(
            not os.environ.get("SKILLDECK_TEST_POSTGRES"),
            reason="set SKILLDECK_TEST_POSTGRES to a PostgreSQL URL to run the Studio on PostgreSQL",
        ),
    ),
]


@pytest.fixture(params=STORES)
def setup(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Setup]:
    s = start(request.param, tmp_path)
    try:
        yield s
    finally:
        s.close()


@pytest.fixture
def sqlite_setup(tmp_path: Path) -> Iterator[Setup]:
    s = start("sqlite", tmp_path)
    try:
        yield s
    finally:
        s.close()


@pytest.fixture
def other_service() -> Iterator[OtherService]:
    """A second loopback server, standing in for the host's other local services."""
    service = OtherService()
    try:
        yield service
    finally:
        service.close()


@pytest.fixture
def pages(request: pytest.FixtureRequest) -> Pages:
    """Screenshots under target/studio-artifacts/TEST-NAME/, axe, dialogs, script errors."""
    name = request.node.name.replace("[", "-").replace("]", "").replace("/", "_")
    return Pages(prefix=name)
