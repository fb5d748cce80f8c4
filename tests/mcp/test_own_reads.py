"""The server's own reads never look like a change (issue 11, found measuring find_skills).

Every open under a watched root is an inotify event. On a tree large enough, a reload's
or a search index build's own opens overflow the kernel's event queue, and an overflow
used to mean "the watcher lost track": a whole reload, whose opens overflowed the queue
again. The server then reloaded and rebuilt its index for ever, and each find_skills call
waited seconds for it. An overflow during the server's own reads is now taken for theirs;
a real change is still seen."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

from support import BIN


def queue_size() -> int:
    try:
        return int(Path("/proc/sys/fs/inotify/max_queued_events").read_text())
    except OSError:
        return 16384


def request(proc: subprocess.Popen[bytes], id_: int, method: str, params: dict | None = None) -> dict:
    message: dict = {"jsonrpc": "2.0", "id": id_, "method": method}
    if params is not None:
        message["params"] = params
    assert proc.stdin and proc.stdout
    proc.stdin.write(json.dumps(message).encode() + b"\n")
    proc.stdin.flush()
    while True:
        answer = json.loads(proc.stdout.readline())
        if answer.get("id") == id_:
            return answer


def test_a_tree_that_overflows_the_watcher_is_not_reloaded_for_ever(tmp_path: Path) -> None:
    # Enough skills that one read of every SKILL.md and body overflows the queue even
    # while the watcher drains it (20,384 at the default size).
    count = queue_size() + 4000
    root = tmp_path / "skills"
    for i in range(count):
        skill = root / f"s{i:05}"
        skill.mkdir(parents=True)
        (skill / "SKILL.md").write_text(f"---\nname: s{i:05}\ndescription: Skill number {i} about topic{i % 97}.\n---\nBody {i}.\n")
    stderr = tmp_path / "stderr"
    env = dict(os.environ, SKILLDECK_LOG="skilldeck_mcp=debug")
    with open(stderr, "wb") as err:
        proc = subprocess.Popen([str(BIN), "serve", "--root", str(root), "--find-skills"],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err, env=env)
        try:
            init = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
            request(proc, 1, "initialize", init)
            assert proc.stdin
            proc.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
            proc.stdin.flush()
            # The first call builds the index (reading every body): its opens overflow the queue.
            request(proc, 2, "tools/call", {"name": "find_skills", "arguments": {"query": "topic5"}})
            time.sleep(4)
            started = time.monotonic()
            for i in range(3, 8):
                answer = request(proc, i, "tools/call", {"name": "find_skills", "arguments": {"query": f"topic{i}"}})
                assert "s000" in answer["result"]["content"][0]["text"]
            assert time.monotonic() - started < 5, "find_skills waited for index rebuilds"
            log = stderr.read_bytes().decode()
            assert "reloading" not in log, log[-2000:]
            # A real change is still seen.
            (root / "s00000" / "SKILL.md").write_text("---\nname: s00000\ndescription: Brand new words zyxwv.\n---\nNew.\n")
            deadline = time.monotonic() + 20
            found = False
            while time.monotonic() < deadline and not found:
                answer = request(proc, 100, "tools/call", {"name": "find_skills", "arguments": {"query": "zyxwv"}})
                found = "s00000" in answer["result"]["content"][0]["text"]
                time.sleep(0.3)
            assert found, "an edit after the overflow was not seen"
        finally:
            proc.kill()
            proc.wait()
