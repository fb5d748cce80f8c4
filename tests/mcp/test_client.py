"""The official Python MCP client (mcp 2.3.0) against `skilldeck serve`.

Each test runs over both transports (stdio, Streamable HTTP) and both protocol eras
(`auto`, which negotiates 2026-07-28 through `server/discover`, and `legacy`, the
`initialize` handshake). Everything the server returns is checked against the files on
disk and against what `skilldeck load` prints for the same flags.
"""

from __future__ import annotations

import base64
import itertools
import json
import math
from pathlib import Path
from typing import Any

import mcp_types as t
import pytest
from mcp.shared.exceptions import MCPError

from support import (
    ERAS,
    MAIN_FRONTMATTER,
    MAIN_TREE,
    MODERN,
    SKILLS_EXT,
    STORE_SKILL_MD,
    TRANSPORTS,
    all_resources,
    assert_cacheable,
    cli_load,
    connect,
    http_server,
    open_client,
    digest,
    disk_files,
    list_pages,
    run_cli,
    skill_uri,
    skills_get,
    skills_list,
    skills_list_pages,
    write_tree,
)

pytestmark = pytest.mark.anyio

COMBOS = [pytest.param(tr, era, id=f"{tr}-{era}") for tr, era in itertools.product(TRANSPORTS, ERAS)]
combo = pytest.mark.parametrize(("transport", "era"), COMBOS)

FS_SKILLS = sorted(MAIN_TREE)  # the skills with directories on disk
INVALID_PARAMS = -32602


def content_bytes(contents: t.TextResourceContents | t.BlobResourceContents) -> bytes:
    if isinstance(contents, t.TextResourceContents):
        return contents.text.encode()
    return base64.b64decode(contents.blob, validate=True)


def expects_text(data: bytes) -> bool:
    if b"\x00" in data:
        return False
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def tool_text(result: t.CallToolResult) -> str:
    assert len(result.content) == 1, result.content
    block = result.content[0]
    assert isinstance(block, t.TextContent), block
    return block.text


# --------------------------------------------------------------------------- handshake

@combo
async def test_capabilities(transport: str, era: str, main_tree: Any) -> None:
    async with connect(transport, era, main_tree.args) as client:
        caps = client.server_capabilities
        assert caps.tools is not None
        assert caps.resources is not None
        assert caps.prompts is not None
        if era == "auto":
            assert client.protocol_version == MODERN
            assert caps.extensions is not None and SKILLS_EXT in caps.extensions, caps.extensions
            discover = client.session.discover_result
            assert discover is not None and MODERN in discover.supported_versions


# --------------------------------------------------------------------------- tools

@combo
async def test_tools_list_matches_cli_schema(transport: str, era: str, main_tree: Any) -> None:
    schema = json.loads(run_cli("schema", "--format", "mcp", *main_tree.args, check=True).stdout)
    async with connect(transport, era, main_tree.args) as client:
        tools = (await client.list_tools()).tools
        assert [tool.name for tool in tools] == ["skill"]
        got = [{"name": x.name, "description": x.description, "inputSchema": x.input_schema} for x in tools]
        assert got == [{k: d[k] for k in ("name", "description", "inputSchema")} for d in schema]


@combo
async def test_tools_call_every_skill_matches_cli_load(transport: str, era: str, main_tree: Any) -> None:
    async with connect(transport, era, main_tree.args) as client:
        for name in main_tree.names:
            expected, is_error = cli_load(name, main_tree.args)
            assert not is_error, expected
            result = await client.call_tool("skill", {"name": name})
            assert not result.is_error, tool_text(result)
            assert tool_text(result) == expected, name


@combo
async def test_tools_call_not_found_and_bad_arguments(transport: str, era: str, main_tree: Any) -> None:
    async with connect(transport, era, main_tree.args) as client:
        expected, is_error = cli_load("no-such-skill", main_tree.args)
        assert is_error
        assert expected == 'Skill "no-such-skill" not found. Available skills: ' + ", ".join(sorted(main_tree.names))
        result = await client.call_tool("skill", {"name": "no-such-skill"})
        assert result.is_error is True
        assert tool_text(result) == expected

        result = await client.call_tool("skill", {})
        assert result.is_error is True
        assert tool_text(result) == 'Invalid arguments: missing required argument "name".'

        for bad in ({"name": 7}, {"name": "alpha", "extra": 1}, {"name": None}):
            result = await client.call_tool("skill", bad)
            assert result.is_error is True, bad
            assert tool_text(result).startswith("Invalid arguments: "), (bad, tool_text(result))


@combo
async def test_agent_flags_serve_load_skill(transport: str, era: str, main_tree: Any) -> None:
    args = [*main_tree.args, "--agent", "tester", "--allow", "alpha", "--allow", "beta"]
    async with connect(transport, era, args) as client:
        tools = (await client.list_tools()).tools
        assert [tool.name for tool in tools] == ["load_skill"]
        for name in ("alpha", "beta", "gamma"):
            expected, is_error = cli_load(name, args)
            result = await client.call_tool("load_skill", {"name": name})
            assert bool(result.is_error) == is_error, name
            assert tool_text(result) == expected, name


# --------------------------------------------------------------------------- resources

def expected_fs_uris() -> dict[str, bytes]:
    return {skill_uri(s, rel): data for s, files in MAIN_TREE.items() for rel, data in files.items()}


@combo
async def test_resources_list_and_read_match_disk(transport: str, era: str, main_tree: Any) -> None:
    on_disk = {
        skill_uri(s, rel): data for s in FS_SKILLS for rel, data in disk_files(main_tree.root / s).items()
    }
    assert on_disk == expected_fs_uris()
    async with connect(transport, era, main_tree.args) as client:
        listed = await all_resources(client)
        uris = [str(r.uri) for r in listed]
        assert len(uris) == len(set(uris)), "a resource is listed twice"
        fs_listed = {u for u in uris if u.split("/")[2] in FS_SKILLS}
        assert fs_listed == set(on_disk)
        # data and store skills expose their SKILL.md only
        for name in ("delta", "epsilon"):
            assert [u for u in uris if u.startswith(f"skill://{name}/")] == [skill_uri(name)]
        by_uri = {str(r.uri): r for r in listed}
        for uri, data in on_disk.items():
            if uri.endswith(".md"):
                assert by_uri[uri].mime_type == "text/markdown", uri
            result = await client.read_resource(uri)
            assert len(result.contents) == 1, uri
            contents = result.contents[0]
            assert str(contents.uri) == uri
            if expects_text(data):
                assert isinstance(contents, t.TextResourceContents), uri
            else:
                assert isinstance(contents, t.BlobResourceContents), uri
            assert content_bytes(contents) == data, uri
            if uri.endswith(".md"):
                assert contents.mime_type == "text/markdown", uri
            if era == "auto":
                assert result.result_type == "complete" and result.ttl_ms is not None and result.cache_scope is not None


@combo
async def test_store_skill_md_is_the_stored_text(transport: str, era: str, main_tree: Any) -> None:
    async with connect(transport, era, main_tree.args) as client:
        result = await client.read_resource(skill_uri("epsilon"))
        assert content_bytes(result.contents[0]) == STORE_SKILL_MD.encode()


@combo
async def test_read_unknown_resource_is_invalid_params(transport: str, era: str, main_tree: Any) -> None:
    async with connect(transport, era, main_tree.args) as client:
        for uri in (skill_uri("alpha", "missing.md"), skill_uri("nobody"), "skill://alpha", "file:///etc/passwd"):
            with pytest.raises(MCPError) as err:
                await client.read_resource(uri)
            assert err.value.code == INVALID_PARAMS, (uri, err.value.code, err.value.message)


TRAVERSALS = [
    "skill://alpha/../beta/SKILL.md",
    "skill://alpha/../../secret.txt",
    "skill://alpha/../../../../../../etc/passwd",
    "skill://alpha/%2e%2e/beta/SKILL.md",
    "skill://alpha/%2E%2E/%2E%2E/secret.txt",
    "skill://alpha/..%2f..%2fsecret.txt",
    "skill://alpha/references/../SKILL.md",
    "skill://alpha/./SKILL.md",
    "skill://alpha//etc/passwd",
    "skill:///etc/passwd",
    "skill://alpha/%2Fetc%2Fpasswd",
    "skill://alpha/SKILL.md%00",
    "skill://alpha/SKILL.md\x00.txt",
    "skill://alpha/references\\guide.md",
    "skill://alpha/..\\..\\secret.txt",
    "skill://alpha/%5C..%5Csecret.txt",
    "skill://../alpha/SKILL.md",
    "skill://%2e%2e/alpha/SKILL.md",
    "/etc/passwd",
    "../etc/passwd",
]


@combo
async def test_traversal_forms_are_refused(transport: str, era: str, main_tree: Any) -> None:
    secret = (main_tree.extra["base"] / "secret.txt").read_bytes()
    async with connect(transport, era, main_tree.args) as client:
        for uri in TRAVERSALS:
            with pytest.raises(MCPError) as err:
                result = await client.read_resource(uri)
                leaked = [content_bytes(c) for c in result.contents]
                assert secret not in leaked
                raise AssertionError(f"{uri!r} was served: {leaked!r}")
            assert err.value.code == INVALID_PARAMS, (uri, err.value.code, err.value.message)


@combo
async def test_odd_file_names_round_trip(transport: str, era: str, tmp_path: Any) -> None:
    root = tmp_path / "skills"
    files = {
        "SKILL.md": b"---\nname: odd\ndescription: Files with spaces and non-ASCII names.\n---\n\nBody.\n",
        "with space.txt": b"space\n",
        "caf\u00e9/na\u00efve.md": "# naïve\n".encode(),
        "percent%41.txt": b"percent\n",
        "hash#.txt": b"hash\n",
    }
    for rel, data in files.items():
        (root / "odd" / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / "odd" / rel).write_bytes(data)
    async with connect(transport, era, ["--root", str(root)]) as client:
        listed = [str(r.uri) for r in await all_resources(client)]
        assert len(listed) == len(files), listed
        got = {}
        for uri in listed:
            result = await client.read_resource(uri)
            got[uri] = content_bytes(result.contents[0])
        assert sorted(got.values()) == sorted(files.values())
        entry = (await skills_get(client, skill_uri("odd")))["skill"]
        assert {r["uri"] for r in entry["resources"]} == set(listed)
        for r in entry["resources"]:
            assert r["digest"] == digest(got[r["uri"]]) and r["size"] == len(got[r["uri"]])


# --------------------------------------------------------------------------- skills/*

def check_entry(entry: dict[str, Any], name: str, files: dict[str, bytes]) -> None:
    """A complete manifest: uri, verbatim frontmatter name, every file once with its digest and size."""
    assert entry["uri"] == skill_uri(name)
    assert entry["frontmatter"]["name"] == name
    resources = entry["resources"]
    assert isinstance(resources, list)
    uris = [r["uri"] for r in resources]
    assert len(uris) == len(set(uris)), f"{name}: a file is listed twice"
    expected = {skill_uri(name, rel): data for rel, data in files.items()}
    assert set(uris) == set(expected), name
    for r in resources:
        data = expected[r["uri"]]
        assert r["digest"] == digest(data), r["uri"]
        assert r["size"] == len(data), r["uri"]


@combo
async def test_skills_list_entries_are_complete(transport: str, era: str, main_tree: Any) -> None:
    async with connect(transport, era, main_tree.args) as client:
        pages = await skills_list_pages(client)
        assert len(pages) == 1
        for page in pages:
            assert_cacheable(page)
        entries = {e["frontmatter"]["name"]: e for page in pages for e in page["skills"]}
        assert sorted(entries) == sorted(main_tree.names)
        for name in FS_SKILLS:
            check_entry(entries[name], name, disk_files(main_tree.root / name))
            assert entries[name]["frontmatter"] == MAIN_FRONTMATTER[name]
        # data and store skills: only SKILL.md, whose digest matches what resources/read serves
        for name in ("delta", "epsilon"):
            entry = entries[name]
            read = await client.read_resource(skill_uri(name))
            check_entry(entry, name, {"SKILL.md": content_bytes(read.contents[0])})
        assert entries["delta"]["frontmatter"]["description"] == "A data skill given as JSON."
        assert entries["epsilon"]["frontmatter"] == {
            "name": "epsilon", "description": "A skill kept in the SQLite store."
        }


@combo
async def test_skills_get(transport: str, era: str, main_tree: Any) -> None:
    async with connect(transport, era, main_tree.args) as client:
        listed = {e["uri"]: e for e in (await skills_list(client))["skills"]}
        for uri, entry in listed.items():
            got = await skills_get(client, uri)
            assert_cacheable(got)
            assert got["skill"] == entry, uri
        for uri in (skill_uri("nobody"), skill_uri("alpha", "references/guide.md"), "skill://alpha", "nonsense"):
            with pytest.raises(MCPError) as err:
                await skills_get(client, uri)
            assert err.value.code == INVALID_PARAMS, uri
            assert err.value.message == f"No skill is served at {uri}", err.value.message


@combo
async def test_skills_list_pagination(transport: str, era: str, paged_tree: Any) -> None:
    async with connect(transport, era, paged_tree.args) as client:
        pages = await skills_list_pages(client)
        assert [len(p["skills"]) for p in pages] == [100, 100, 50]
        assert "nextCursor" not in pages[-1] or pages[-1]["nextCursor"] is None
        names = []
        for page in pages:
            assert_cacheable(page)
            for entry in page["skills"]:
                name = entry["frontmatter"]["name"]
                names.append(name)
                check_entry(entry, name, disk_files(paged_tree.root / name))  # never split across pages
        assert sorted(names) == paged_tree.names and len(names) == len(set(names))

        with pytest.raises(MCPError) as err:
            await skills_list(client, "not-a-cursor")
        assert err.value.code == INVALID_PARAMS
        assert err.value.message == "Invalid skills cursor"


@combo
async def test_resources_list_pagination(transport: str, era: str, paged_tree: Any) -> None:
    """resources/list pages whole skills, page-size skills at a time, in URI order."""
    async with connect(transport, era, paged_tree.args) as client:
        pages = await list_pages(client.list_resources)
        skills_per_page = [len({str(r.uri).split("/")[2] for r in p.resources}) for p in pages]
        assert skills_per_page == [100, 100, 50]
        uris = [str(r.uri) for p in pages for r in p.resources]
        expected = [skill_uri(name, rel) for name in paged_tree.names for rel in sorted(disk_files(paged_tree.root / name))]
        assert sorted(uris) == sorted(expected) and len(uris) == len(set(uris))
        # A skill's files are all on one page.
        owners = [{str(r.uri).split("/")[2] for r in p.resources} for p in pages]
        assert all(not (a & b) for i, a in enumerate(owners) for b in owners[i + 1:])

        with pytest.raises(MCPError) as err:
            await client.list_resources(cursor="not-a-cursor")
        assert err.value.code == INVALID_PARAMS
        assert err.value.message == "Invalid resources cursor"


@pytest.mark.parametrize("size", [1, 2, 7])
async def test_skills_list_small_pages(size: int, main_tree: Any) -> None:
    async with connect("stdio", "auto", [*main_tree.args, "--page-size", str(size)]) as client:
        pages = await skills_list_pages(client)
        assert all(len(p["skills"]) <= size for p in pages)
        assert all(len(p["skills"]) == size for p in pages[:-1])
        names = [e["frontmatter"]["name"] for p in pages for e in p["skills"]]
        assert sorted(names) == sorted(main_tree.names)


@pytest.mark.parametrize("era", ERAS)
async def test_skill_limits(era: str, limits_tree: Any) -> None:
    async with connect("stdio", era, limits_tree.args) as client:
        entries = {e["frontmatter"]["name"]: e for p in await skills_list_pages(client) for e in p["skills"]}
        assert sorted(entries) == ["at-limit", "bytes-at-limit", "small"]
        assert len(entries["at-limit"]["resources"]) == 512
        assert sum(r["size"] for r in entries["bytes-at-limit"]["resources"]) == 16 * 1024 * 1024
        for name in ("at-limit", "bytes-at-limit"):
            check_entry(entries[name], name, disk_files(limits_tree.root / name))
        served = {str(r.uri).split("/")[2] for r in await all_resources(client)}
        prompts = {p.name for p in (await client.list_prompts()).prompts}
        for name in ("too-many-files", "too-big"):
            with pytest.raises(MCPError) as err:
                await skills_get(client, skill_uri(name))
            assert err.value.code == INVALID_PARAMS
            assert name not in served and name not in prompts, name
            with pytest.raises(MCPError) as err:
                await client.read_resource(skill_uri(name))
            assert err.value.code == INVALID_PARAMS


async def test_a_skill_over_the_limits_is_left_out_of_every_surface(limits_tree: Any) -> None:
    """One rule for what is exposed (issue 19, item 13): a skill the resources leave out is
    not served by the tool, named in level 1 or found by find_skills either. (The first
    instructions may be sent before the publication that decides it is built: a session
    that starts after it gets the level 1 without the skill.)"""
    with http_server([*limits_tree.args, "--find-skills"]) as server:
        async with open_client(server.url, "legacy") as first:
            await all_resources(first)
        async with open_client(server.url, "legacy") as client:
            instructions = client.instructions or ""
            found = (await client.call_tool("find_skills", {"query": "limits test skill", "limit": 50})).content[0].text
            for name, why in [
                ("too-many-files", "it has more than 512 files (the Skills extension's limit)"),
                ("too-big", "its files add up to more than 16777216 bytes (16 MiB, the Skills extension's limit)"),
            ]:
                result = await client.call_tool("skill", {"name": name})
                assert result.is_error
                assert result.content[0].text == f'Skill "{name}" is not served: {why}.'
                assert f"**{name}**" not in instructions
                assert f" {name}:" not in found and f" {name} " not in found
            served = await client.call_tool("skill", {"name": "small"})
            assert not served.is_error
            assert "**small**" in instructions and "small" in found
            missing = await client.call_tool("skill", {"name": "nope"})
            assert missing.content[0].text == 'Skill "nope" not found. Available skills: at-limit, bytes-at-limit, small'


async def test_resource_names_say_whose_file_it_is(main_tree: Any) -> None:
    """A SKILL.md is named by its skill (the Skills extension); any other file
    by its skill and its path in it: `alpha/references/guide.md`."""
    async with connect("stdio", "auto", main_tree.args) as client:
        listed = await all_resources(client)
    names = {str(r.uri): (r.name, r.description) for r in listed}
    assert len(names) == len(listed)
    for name in FS_SKILLS:
        for rel in disk_files(main_tree.root / name):
            if rel == "SKILL.md":
                assert names[skill_uri(name)] == (name, MAIN_FRONTMATTER[name]["description"]), name
            else:
                assert names[skill_uri(name, rel)] == (f"{name}/{rel}", None), rel
    assert names[skill_uri("delta")] == ("delta", "A data skill given as JSON.")


async def test_default_pages_fit_client_page_caps(tmp_path: Path) -> None:
    """2,001 skills of two files each, served with the default page size (2,000
    skills): every list takes two pages, the second holding the last skill; a
    100,000-skill catalog takes 50, under MCP Inspector's cap of 64 pages."""
    count = 2001
    tree = {
        f"s{i:04d}": {
            "SKILL.md": f"---\nname: s{i:04d}\ndescription: Skill {i}.\n---\nBody {i}.\n".encode(),
            "README.md": b"# Read me\n",
        }
        for i in range(count)
    }
    root = write_tree(tmp_path / "skills", tree)
    async with connect("stdio", "auto", ["--root", str(root)]) as client:
        resource_pages = [p.resources for p in await list_pages(client.list_resources)]
        prompt_pages = [p.prompts for p in await list_pages(client.list_prompts)]
        skill_pages = await skills_list_pages(client)
    assert [len(p) for p in resource_pages] == [4000, 2]
    assert [len(p) for p in prompt_pages] == [2000, 1]
    assert [len(p["skills"]) for p in skill_pages] == [2000, 1]
    assert [r.name for r in resource_pages[1]] == ["s2000/README.md", "s2000"]
    assert [p.name for p in prompt_pages[1]] == ["s2000"]
    assert math.ceil(100_000 / len(prompt_pages[0])) == 50


@pytest.mark.parametrize("size", ["0", "10001", "-1", "many"])
def test_page_size_out_of_range_is_refused(size: str, tmp_path: Path) -> None:
    proc = run_cli("serve", "--root", str(tmp_path), f"--page-size={size}")
    assert proc.returncode == 2
    stderr = proc.stderr.decode()
    assert stderr.startswith(f"error: invalid value '{size}' for '--page-size <N>': "), stderr
    if size in ("0", "10001"):
        assert f"{size} is not in 1..=10000" in stderr, stderr


def test_page_size_is_documented() -> None:
    help_text = run_cli("serve", "--help", check=True).stdout.decode()
    assert "--page-size <N>" in help_text
    assert "[default: 2000]" in help_text


@combo
async def test_prompts_list_pagination(transport: str, era: str, paged_tree: Any) -> None:
    async with connect(transport, era, paged_tree.args) as client:
        pages = await list_pages(client.list_prompts)
        assert [len(p.prompts) for p in pages] == [100, 100, 50]
        assert [p.name for page in pages for p in page.prompts] == paged_tree.names
        with pytest.raises(MCPError) as err:
            await client.list_prompts(cursor="not-a-cursor")
        assert err.value.code == INVALID_PARAMS
        assert err.value.message == "Invalid prompts cursor"


# --------------------------------------------------------------------------- prompts

@combo
async def test_prompts_are_the_tool_output(transport: str, era: str, main_tree: Any) -> None:
    async with connect(transport, era, main_tree.args) as client:
        prompts = (await client.list_prompts()).prompts
        assert sorted(p.name for p in prompts) == sorted(main_tree.names)
        for prompt in prompts:
            assert not prompt.arguments, prompt
        for name in main_tree.names:
            expected, _ = cli_load(name, main_tree.args)
            result = await client.get_prompt(name)
            assert len(result.messages) == 1
            message = result.messages[0]
            assert message.role == "user"
            assert isinstance(message.content, t.TextContent)
            assert message.content.text == expected, name
        with pytest.raises(MCPError) as err:
            await client.get_prompt("no-such-skill")
        assert err.value.code == INVALID_PARAMS
