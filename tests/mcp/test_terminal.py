"""`skilldeck serve` typed at a prompt (issue 26, item 7): with a terminal on stdin, one
line on stderr says it waits for an MCP client and how a host is set up; with a pipe (a
host), nothing."""

from __future__ import annotations

import os
import pty
import select
import subprocess
from pathlib import Path

from support import BIN, REPO

EXAMPLES_ARGS = ["--root", str(REPO / "examples" / "skills")]

WAITING = "skilldeck: serving MCP over stdio: waiting for an MCP client to write to this terminal."


def test_serve_on_a_terminal_says_what_it_waits_for(tmp_path: Path) -> None:
    controller, terminal = pty.openpty()
    proc = subprocess.Popen(
        [str(BIN), "serve", *EXAMPLES_ARGS], stdin=terminal, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        env={"HOME": str(tmp_path)},
    )
    os.close(terminal)
    try:
        assert proc.stderr is not None
        ready, _, _ = select.select([proc.stderr], [], [], 30)
        assert ready, "serve said nothing within 30 s"
        line = proc.stderr.readline().decode()
        assert line.startswith(WAITING), line
        assert "Using skilldeck in a host" in line and line.endswith("Press Ctrl-C to stop\n"), line
    finally:
        proc.kill()
        proc.wait()
        os.close(controller)


def test_serve_on_a_pipe_says_nothing_of_it() -> None:
    proc = subprocess.run([str(BIN), "serve", *EXAMPLES_ARGS], input=b"", capture_output=True, timeout=60)
    assert proc.returncode == 0
    assert WAITING not in proc.stderr.decode()
