"""A real MCP host against `skilldeck serve`: Claude Code in print mode, its model
replaced by a loopback stand-in for the Messages API that records every request.

The host is `@anthropic-ai/claude-code` from npm (`SKILLDECK_CLAUDE`, the path of its
`claude` binary; scripts/test installs it into target/claude-code). Without it the
test is skipped. Nothing leaves the machine: the base URL is the stand-in's, the key
is a dummy, telemetry and non-essential traffic are off.

Checked: every example skill's name is in what the model is sent (Claude Code puts a
server's `instructions` under "# MCP Server Instructions"), and a model turn that
calls `find_skills` and then `skill` with the name it found gets the skill's body.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from messages_standin import MessagesStandin, text, tool_use
from support import BIN, CLAUDE_OFFLINE_ENV, REPO, run_cli

CLAUDE = os.environ.get("SKILLDECK_CLAUDE")
EXAMPLES = REPO / "examples" / "skills"
EXAMPLE_NAMES = ["hello-world", "pdf-forms", "release-notes"]
FIND = "mcp__skilldeck__find_skills"
SKILL = "mcp__skilldeck__skill"

pytestmark = pytest.mark.skipif(not CLAUDE, reason="SKILLDECK_CLAUDE (Claude Code's claude binary) is not set")


def last_user_blocks(request: dict[str, Any]) -> list[dict[str, Any]]:
    """The blocks of the last user message (Claude Code may put a system message after it)."""
    users = [m for m in request.get("messages") or [] if m["role"] == "user"]
    if not users:
        return []
    content = users[-1]["content"]
    return content if isinstance(content, list) else [{"type": "text", "text": content}]


def tool_result(request: dict[str, Any], id_: str) -> str | None:
    """The text of the tool result for `id_` in the request's last user message."""
    for block in last_user_blocks(request):
        if block.get("type") == "tool_result" and block.get("tool_use_id") == id_:
            content = block.get("content")
            if isinstance(content, str):
                return content
            return "".join(part.get("text", "") for part in content or [])
    return None


def offers(request: dict[str, Any], tool: str) -> bool:
    return any(t.get("name") == tool for t in request.get("tools") or [])


def script(request: dict[str, Any]) -> list[dict[str, Any]] | None:
    """The model: search, load the top hit by the name the search returned, then stop."""
    if not offers(request, FIND):
        return None
    # Claude Code sends every result of the turn in one user message: the latest first.
    if tool_result(request, "toolu_skill") is not None:
        return text("The form is filled.")
    found = tool_result(request, "toolu_find")
    if found is not None:
        top = re.search(r"^1\. (\S+): ", found, re.MULTILINE)
        return tool_use("toolu_skill", SKILL, {"name": top.group(1)}) if top else text("No skill found.")
    if any(b.get("type") == "text" and "PDF" in b.get("text", "") for b in last_user_blocks(request)):
        return tool_use("toolu_find", FIND, {"query": "fill in a PDF form"})
    return None


def host_env(home: Path, model: MessagesStandin) -> dict[str, str]:
    """Claude Code's environment: a fake home, the stand-in model, nothing leaving the machine."""
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "ANTHROPIC_BASE_URL": model.url,
        "ANTHROPIC_API_KEY": "sk-ant-standin",
        **CLAUDE_OFFLINE_ENV,
    }


def test_claude_code_sees_the_catalog_and_loads_a_found_skill(tmp_path: Path) -> None:
    assert CLAUDE is not None
    config = {
        "mcpServers": {
            "skilldeck": {
                "type": "stdio",
                "command": str(BIN),
                "args": ["serve", "--root", str(EXAMPLES), "--find-skills"],
            }
        }
    }
    (tmp_path / "mcp.json").write_text(json.dumps(config))
    (tmp_path / "home").mkdir()
    with MessagesStandin([script]) as model:
        env = host_env(tmp_path / "home", model)
        proc = subprocess.run(
            [
                CLAUDE, "-p", "Here is a PDF with form fields: please fill it in for me.",
                "--mcp-config", str(tmp_path / "mcp.json"), "--strict-mcp-config",
                "--allowedTools", f"{FIND},{SKILL}",
                "--output-format", "json",
            ],
            cwd=tmp_path, env=env, capture_output=True, timeout=180,
        )
        assert proc.returncode == 0, (proc.stdout[-2000:], proc.stderr[-2000:])
        assert json.loads(proc.stdout)["result"] == "The form is filled."
        requests = [r for r in model.requests if offers(r, FIND)]

    # Every example skill's name reaches the model, in the server's instructions.
    first = json.dumps(requests[0])
    instructions = run_cli("prompt", "--root", str(EXAMPLES), check=True).stdout.decode()
    assert json.dumps(instructions)[1:-1] in first
    for name in EXAMPLE_NAMES:
        assert f"- **{name}**: " in first, name
    assert [t["name"] for t in requests[0]["tools"] if t["name"].startswith("mcp__skilldeck__")] == [FIND, SKILL]

    # find_skills, then skill with the name it returned: the turn after gets the body.
    found = next(tool_result(r, "toolu_find") for r in requests if tool_result(r, "toolu_find") is not None)
    assert found.startswith("Skills that match, best first:\n1. pdf-forms: "), found
    loaded = next(tool_result(r, "toolu_skill") for r in requests if tool_result(r, "toolu_skill") is not None)
    body = run_cli("load", "pdf-forms", "--root", str(EXAMPLES), check=True).stdout.decode()
    assert loaded == body
    assert "1. List the form's fields before writing anything" in loaded


def test_claude_code_with_no_root_gets_the_skills_of_the_project_it_runs_in(tmp_path: Path) -> None:
    """`serve` with no flag at all, as a new user first adds it: the host starts it in the
    project, and the project's `.agents/skills` (which Claude Code does not read itself)
    reach the model, whatever the host's roots say."""
    assert CLAUDE is not None
    project, home = tmp_path / "project", tmp_path / "home"
    shutil.copytree(EXAMPLES, project / ".agents" / "skills")
    (project / ".git").mkdir()
    home.mkdir()
    config = {"mcpServers": {"skilldeck": {"type": "stdio", "command": str(BIN), "args": ["serve"]}}}
    (tmp_path / "mcp.json").write_text(json.dumps(config))
    with MessagesStandin([]) as model:
        proc = subprocess.run(
            [
                CLAUDE, "-p", "Which skills can you use?",
                "--mcp-config", str(tmp_path / "mcp.json"), "--strict-mcp-config",
                "--output-format", "json",
            ],
            cwd=project, env=host_env(home, model), capture_output=True, timeout=180,
        )
        assert proc.returncode == 0, (proc.stdout[-2000:], proc.stderr[-2000:])
        requests = [r for r in model.requests if offers(r, SKILL)]
    assert requests, "the model was never offered the skill tool"
    first = json.dumps(requests[0])
    instructions = run_cli("prompt", "--root", str(project / ".agents" / "skills"), check=True).stdout.decode()
    assert json.dumps(instructions)[1:-1] in first
    for name in EXAMPLE_NAMES:
        assert f"- **{name}**: " in first, name


WORDS = (
    "alpha beta gamma delta render parse deploy audit chart invoice email slack docker cloud token schema graph "
    "table image video sound music code review test build release monitor metric alert log trace cache queue "
    "stream batch index search query store backup restore migrate sync fetch crawl scrape translate summarize "
    "classify detect extract convert compress encrypt sign verify"
).split()
LARGE = 40_000


@pytest.fixture(scope="module")
def forty_thousand(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A registry's size: 40,000 skills directly under one root, and the example skills."""
    import random

    rng = random.Random(20)
    root = tmp_path_factory.mktemp("registry")
    for i in range(LARGE):
        name = f"s{i:05d}-" + "-".join(rng.sample(WORDS, 2))
        (root / name).mkdir()
        description = "Use when you need to " + " ".join(rng.sample(WORDS, 8)) + " for the team."
        body = " ".join(rng.sample(WORDS, 40))
        (root / name / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {description}\n---\n\n{body}\n")
    for name in EXAMPLE_NAMES:
        shutil.copytree(EXAMPLES / name, root / name)
    return root


def test_claude_code_with_its_defaults_reaches_a_skill_among_forty_thousand(
    tmp_path: Path, forty_thousand: Path
) -> None:
    """Issue 20: Claude Code as a user leaves it (no MCP environment variable) in front of
    `serve` over 40,000 skills, twice with one home. Each time the first model request
    carries both tools and the server's instructions, and a turn that calls find_skills,
    then skill with the name it found, gets the body. The first start's instructions say the
    catalog is loading (it is not read within a host's patience); the second's are the real
    level 1, from the last run's cache, closed by the line that counts what it leaves out."""
    assert CLAUDE is not None
    config = {"mcpServers": {"skilldeck": {"type": "stdio", "command": str(BIN), "args": ["serve", "--root", str(forty_thousand)]}}}
    (tmp_path / "mcp.json").write_text(json.dumps(config))
    home = tmp_path / "home"
    home.mkdir()
    body = run_cli("load", "pdf-forms", "--root", str(forty_thousand), check=True).stdout.decode()
    seen: list[str] = []
    for _ in range(2):
        with MessagesStandin([script]) as model:
            proc = subprocess.run(
                [
                    CLAUDE, "-p", "Here is a PDF with form fields: please fill it in for me.",
                    "--mcp-config", str(tmp_path / "mcp.json"), "--strict-mcp-config",
                    "--allowedTools", f"{FIND},{SKILL}", "--output-format", "json",
                ],
                cwd=tmp_path, env=host_env(home, model), capture_output=True, timeout=600,
            )
            assert proc.returncode == 0, (proc.stdout[-2000:], proc.stderr[-2000:])
            assert json.loads(proc.stdout)["result"] == "The form is filled."
            requests = [r for r in model.requests if offers(r, SKILL)]
        assert requests, "the model was never offered the skill tool"
        assert [t["name"] for t in requests[0]["tools"] if t["name"].startswith("mcp__skilldeck__")] == [FIND, SKILL]
        first = json.dumps(requests[0])
        assert "## skilldeck" in first
        seen.append(first)
        loaded = next(tool_result(r, "toolu_skill") for r in requests if tool_result(r, "toolu_skill") is not None)
        assert loaded == body
    assert "catalog is still being read" in seen[0]
    assert "## Available Skills" in seen[1] and "more skills are not listed here: call find_skills" in seen[1]
