"""Level 1 where hosts read it (SPEC §13): the catalog as `instructions`, within
`--budget`, closed by a line counting what it left out, and `find_skills` for the rest.

Every expected text is pinned: the closing line and the empty-catalog text as bytes,
the catalogs against `skilldeck prompt` with the same flags.
"""

from __future__ import annotations

import itertools
import json
import re
import shutil
from pathlib import Path
from typing import Any

import anyio
import mcp_types as t
import pytest
from mcp.shared.exceptions import MCPError

from support import ERAS, REPO, TRANSPORTS, RawStdio, connect, run_cli, write_tree

pytestmark = pytest.mark.anyio

COMBOS = [pytest.param(tr, era, id=f"{tr}-{era}") for tr, era in itertools.product(TRANSPORTS, ERAS)]
combo = pytest.mark.parametrize(("transport", "era"), COMBOS)

EXAMPLES = ["--root", str(REPO / "examples" / "skills")]
EXAMPLE_NAMES = ["hello-world", "pdf-forms", "release-notes"]
NO_SKILLS = (
    "This server has no skills to offer right now: its catalog is empty. "
    "Do not call its tools to look for skills."
)
CLOSING = re.compile(
    r"\n\n\((\d+) more skills? (?:is|are) not listed here: "
    r"call find_skills with a few words of the task to search every skill\.\)\Z"
)
INVALID_PARAMS = -32602


def closing_line(omitted: int) -> str:
    skills, are = ("skill", "is") if omitted == 1 else ("skills", "are")
    return (
        f"({omitted} more {skills} {are} not listed here: "
        "call find_skills with a few words of the task to search every skill.)"
    )


def prompt(*args: str) -> str:
    return run_cli("prompt", *args, check=True).stdout.decode()


def tool_text(result: t.CallToolResult) -> str:
    assert len(result.content) == 1, result.content
    block = result.content[0]
    assert isinstance(block, t.TextContent), block
    return block.text


HIT = re.compile(r"^(\d+)\. (\S+): (.*)$", re.MULTILINE)


def ranked(result: t.CallToolResult) -> list[str]:
    """The names `find_skills` returned, best first (text only: no structuredContent)."""
    assert not result.is_error, tool_text(result)
    assert result.structured_content is None
    hits = HIT.findall(tool_text(result))
    assert [int(rank) for rank, *_ in hits] == list(range(1, len(hits) + 1))
    return [name for _, name, _ in hits]


async def tool_names(client: Any) -> list[str]:
    return [tool.name for tool in (await client.list_tools()).tools]


# 40 skills whose catalog is far over a small budget: each has a distinct theme
# word in its name and description, so searching a name finds that skill.
THEMES = [
    "kayak", "violin", "glacier", "saffron", "typhoon", "meteor", "origami", "pelican",
    "quartz", "falcon", "lantern", "mosaic", "nebula", "orchard", "pyramid", "quiver",
    "raven", "sapphire", "tundra", "umbrella", "vortex", "walrus", "xylophone", "yodel",
    "zeppelin", "anchor", "bamboo", "cactus", "dolphin", "ember", "fjord", "geyser",
    "harbor", "igloo", "jasmine", "kiwi", "lagoon", "mango", "nectar", "opal",
]


@pytest.fixture(scope="module")
def big_tree(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    root = tmp_path_factory.mktemp("level1") / "skills"
    tree = {
        f"{theme}-helper": {
            "SKILL.md": (
                f"---\nname: {theme}-helper\n"
                f"description: Everything about the {theme}, step by step, for users who ask about a {theme}.\n"
                f"---\n\nHow to work with a {theme}.\n"
            ).encode()
        }
        for theme in THEMES
    }
    write_tree(root, tree)
    return ["--root", str(root)]


# --------------------------------------------------------------------------- instructions

@combo
async def test_instructions_carry_the_example_catalog(transport: str, era: str) -> None:
    async with connect(transport, era, EXAMPLES) as client:
        instructions = client.instructions
        assert instructions == prompt(*EXAMPLES)
        for name in EXAMPLE_NAMES:
            assert f"- **{name}**: " in instructions, name
        # Small enough to list whole: no closing line, no find_skills.
        assert CLOSING.search(instructions) is None
        assert await tool_names(client) == ["skill"]


@pytest.mark.parametrize("era", ERAS)
async def test_instructions_in_the_agentskills_format(era: str) -> None:
    async with connect("stdio", era, [*EXAMPLES, "--format", "agentskills"]) as client:
        assert client.instructions == prompt(*EXAMPLES, "--format", "agentskills")


def test_instructions_on_the_wire_are_the_catalog_bytes() -> None:
    raw = RawStdio(EXAMPLES)
    try:
        result = raw.handshake()
        assert result["instructions"] == prompt(*EXAMPLES)
        assert result["capabilities"]["tools"] == {"listChanged": True}
    finally:
        raw.close()


@combo
async def test_a_cut_catalog_counts_what_it_left_out(transport: str, era: str, big_tree: list[str]) -> None:
    async with connect(transport, era, [*big_tree, "--budget", "1000c"]) as client:
        instructions = client.instructions
        assert instructions is not None and len(instructions) <= 1000
        match = CLOSING.search(instructions)
        assert match is not None, instructions[-300:]
        listed = [f"{theme}-helper" for theme in THEMES if f"- **{theme}-helper**: " in instructions]
        omitted = sorted(f"{theme}-helper" for theme in THEMES if f"{theme}-helper" not in listed)
        assert listed and omitted
        assert int(match.group(1)) == len(omitted)
        assert instructions.endswith("\n\n" + closing_line(len(omitted)))
        # The listed part is the same catalog, fitted to what the line leaves.
        assert instructions.startswith(prompt(*big_tree).split("\n- **")[0])
        assert await tool_names(client) == ["skill", "find_skills"]
        # Every skill left out is one search away, by its own name.
        for name in omitted:
            result = await client.call_tool("find_skills", {"query": name, "limit": 3})
            assert ranked(result)[0] == name, tool_text(result)


async def test_a_cut_below_a_readable_share_shows_fewer_skills_whole(big_tree: list[str]) -> None:
    """Room for every name with a short description, not for every description whole: the
    descriptions here are shorter than the readable share (`CLOSED_MIN_SHARE`, 120), so
    rather than 40 shortened ones the skills that fit show whole, and the line counts the rest."""
    whole = len(prompt(*big_tree))
    async with connect("stdio", "legacy", [*big_tree, "--budget", f"{whole - 200}c"]) as client:
        instructions = client.instructions
        assert instructions is not None and "…" not in instructions
        match = CLOSING.search(instructions)
        assert match is not None, instructions[-300:]
        listed = [theme for theme in THEMES if f"- **{theme}-helper**: Everything about the {theme}, " in instructions]
        assert 0 < len(listed) < len(THEMES)
        assert int(match.group(1)) == len(THEMES) - len(listed)
        assert await tool_names(client) == ["skill", "find_skills"]


async def test_a_budget_too_small_for_any_entry_sends_the_line_alone(big_tree: list[str]) -> None:
    async with connect("stdio", "legacy", [*big_tree, "--budget", "120c"]) as client:
        assert client.instructions == closing_line(len(THEMES))


@pytest.mark.parametrize("era", ERAS)
async def test_an_empty_catalog_says_so(era: str, tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    async with connect("stdio", era, ["--root", str(tmp_path / "empty")]) as client:
        assert client.instructions == NO_SKILLS.replace(
            " Do not", f" It looked for skills (directories holding a SKILL.md) in {tmp_path / 'empty'}. Do not"
        )
        assert await tool_names(client) == ["skill"]
    # A server that reads no directory has nowhere to name.
    (tmp_path / "none.json").write_text("[]")
    async with connect("stdio", era, ["--skills", str(tmp_path / "none.json")]) as client:
        assert client.instructions == NO_SKILLS


def test_a_bad_budget_is_refused_before_serving() -> None:
    proc = run_cli("serve", *EXAMPLES, "--budget", "2000")
    assert proc.returncode == 2
    assert b"invalid budget \"2000\"" in proc.stderr, proc.stderr


# --------------------------------------------------------------------------- find_skills

@combo
async def test_find_skills_ranks_and_says_how_to_load(transport: str, era: str) -> None:
    async with connect(transport, era, [*EXAMPLES, "--find-skills"]) as client:
        assert await tool_names(client) == ["skill", "find_skills"]
        result = await client.call_tool("find_skills", {"query": "fill in a PDF form", "limit": 1})
        assert ranked(result) == ["pdf-forms"]
        description = "Fill and check PDF forms. Use when the user supplies a PDF with form fields to complete."
        assert tool_text(result) == (
            "Skills that match, best first:\n"
            f"1. pdf-forms: {description}\n"
            "\n"
            "Load one with the skill tool: {\"name\": \"pdf-forms\"}."
        )
        # The default limit returns more than one, best first.
        result = await client.call_tool("find_skills", {"query": "fill in a PDF form"})
        assert ranked(result)[0] == "pdf-forms" and len(ranked(result)) > 1
        # Neither the query nor a score is echoed: the answer's size is the hits'.
        assert "fill in" not in tool_text(result) and "score" not in tool_text(result)
        huge = "pdf form " * 400_000
        result = await client.call_tool("find_skills", {"query": huge, "limit": 1})
        assert len(tool_text(result)) < 1000, len(tool_text(result))


async def test_find_skills_abstains_on_a_request_no_skill_fits() -> None:
    async with connect("stdio", "legacy", [*EXAMPLES, "--find-skills"]) as client:
        result = await client.call_tool("find_skills", {"query": "quantum chromodynamics lattice simulation"})
        assert not result.is_error
        assert tool_text(result) == (
            "No skill matches these words well. Try other words, or go on without a skill."
        )
        assert result.structured_content is None


BAD_ARGUMENTS = [
    ({}, "Invalid arguments: missing required argument \"query\"."),
    ({"query": 3}, "Invalid arguments: \"query\" must be a string."),
    ({"query": "  \n"}, "Invalid arguments: \"query\" must hold a few words of the task."),
    ({"query": "pdf", "limit": 0}, "Invalid arguments: \"limit\" must be an integer from 1 to 50."),
    ({"query": "pdf", "limit": 51}, "Invalid arguments: \"limit\" must be an integer from 1 to 50."),
    ({"query": "pdf", "limit": "5"}, "Invalid arguments: \"limit\" must be an integer from 1 to 50."),
    ({"query": "pdf", "limit": 2.5}, "Invalid arguments: \"limit\" must be an integer from 1 to 50."),
    (
        {"query": "pdf", "name": "pdf-forms"},
        "Invalid arguments: unknown argument \"name\"; the find_skills tool takes \"query\" and \"limit\".",
    ),
]


async def test_find_skills_bad_arguments_are_error_results() -> None:
    async with connect("stdio", "legacy", [*EXAMPLES, "--find-skills"]) as client:
        for args, message in BAD_ARGUMENTS:
            result = await client.call_tool("find_skills", args)
            assert result.is_error, args
            assert tool_text(result) == message, args


async def test_find_skills_is_not_offered_when_everything_is_listed() -> None:
    async with connect("stdio", "legacy", EXAMPLES) as client:
        with pytest.raises(MCPError) as err:
            await client.call_tool("find_skills", {"query": "pdf"})
        assert err.value.code == INVALID_PARAMS
        assert err.value.message == "Unknown tool: find_skills"


# --------------------------------------------------------------------------- agents

AGENT = ["--agent", "shop", "--allow", "pdf-forms", "--allow", "hello-world"]


@pytest.mark.parametrize("era", ERAS)
async def test_an_agent_sees_its_own_skills_only(era: str) -> None:
    async with connect("stdio", era, [*EXAMPLES, *AGENT, "--find-skills"]) as client:
        instructions = client.instructions
        assert instructions == prompt(*EXAMPLES, *AGENT, "--format", "insika")
        assert 'name="pdf-forms"' in instructions and 'name="hello-world"' in instructions
        assert "release-notes" not in instructions
        assert await tool_names(client) == ["load_skill", "find_skills"]
        found = await client.call_tool("find_skills", {"query": "fill in a PDF form"})
        assert ranked(found)[0] == "pdf-forms"
        assert tool_text(found).endswith("\n\nLoad one with the load_skill tool: {\"name\": \"pdf-forms\"}.")
        # Not even by its exact name, nor by its description's words.
        for query in ["release-notes", "draft release notes changelog entry release announcement"]:
            result = await client.call_tool("find_skills", {"query": query, "limit": 50})
            assert "release-notes" not in ranked(result), (query, tool_text(result))


async def test_an_agent_catalog_over_budget_closes_with_its_own_count(big_tree: list[str]) -> None:
    allowed = [f"{theme}-helper" for theme in THEMES[:30]]
    agent = ["--agent", "a", *itertools.chain.from_iterable(("--allow", name) for name in allowed)]
    async with connect("stdio", "legacy", [*big_tree, *agent, "--budget", "1000c"]) as client:
        instructions = client.instructions
        match = CLOSING.search(instructions)
        assert match is not None and len(instructions) <= 1000
        shown = [name for name in allowed if f'name="{name}"' in instructions]
        assert int(match.group(1)) == len(allowed) - len(shown)
        assert all(f"{theme}-helper" not in instructions for theme in THEMES[30:])


def test_find_skills_arguments_schema() -> None:
    raw = RawStdio([*EXAMPLES, "--find-skills"])
    try:
        raw.handshake()
        tools = raw.request("tools/list")["result"]["tools"]
        assert [tool["name"] for tool in tools] == ["skill", "find_skills"]
        assert json.dumps(tools[1], sort_keys=True) == json.dumps(
            {
                "name": "find_skills",
                "description": (
                    "Search every skill this server offers, including those not listed in its instructions, "
                    "by a few words of the task at hand. Returns the best matches, best first, each with its "
                    "description; then load one by its name."
                ),
                "inputSchema": {
                    "type": "object",
                    "properties": {
                        "query": {"type": "string", "description": "A few words of the task, such as \"fill in a PDF form\"."},
                        "limit": {
                            "type": "integer",
                            "minimum": 1,
                            "maximum": 50,
                            "default": 10,
                            "description": "The most skills to return.",
                        },
                    },
                    "required": ["query"],
                    "additionalProperties": False,
                },
            },
            sort_keys=True,
        )
    finally:
        raw.close()


# --------------------------------------------------------------------------- a catalog that changes

class ToolChanges:
    """A message handler that waits for notifications/tools/list_changed."""

    def __init__(self) -> None:
        self.event = anyio.Event()

    async def __call__(self, message: Any) -> None:
        if isinstance(message, t.ToolListChangedNotification):
            self.event.set()

    async def wait(self, timeout: float = 15) -> None:
        with anyio.fail_after(timeout):
            await self.event.wait()
        self.event = anyio.Event()


async def test_find_skills_comes_and_goes_with_the_budget(tmp_path: Path) -> None:
    """Tools are re-read on tools/list_changed; instructions are not (hosts read them once)."""
    skill = lambda theme: {  # noqa: E731
        "SKILL.md": f"---\nname: {theme}-helper\ndescription: All about the {theme}.\n---\n\nBody.\n".encode()
    }
    root = write_tree(tmp_path / "skills", {f"{theme}-helper": skill(theme) for theme in THEMES[:2]})
    changes = ToolChanges()
    async with connect("stdio", "legacy", ["--root", str(root), "--budget", "400c"], message_handler=changes) as client:
        first = client.instructions
        assert CLOSING.search(first) is None
        assert await tool_names(client) == ["skill"]
        write_tree(root, {f"{theme}-helper": skill(theme) for theme in THEMES[2:20]})
        await changes.wait()
        assert await tool_names(client) == ["skill", "find_skills"]
        result = await client.call_tool("find_skills", {"query": "falcon-helper"})
        assert ranked(result)[0] == "falcon-helper"
        # This session's instructions are what initialize sent; a new session gets the new catalog.
        assert client.instructions == first
        for name in [f"{theme}-helper" for theme in THEMES[2:20]]:
            shutil.rmtree(root / name)
        await changes.wait()
        assert await tool_names(client) == ["skill"]
    async with connect("stdio", "legacy", ["--root", str(root), "--budget", "400c"]) as client:
        assert client.instructions == first
