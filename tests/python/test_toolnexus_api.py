"""The toolnexus drop-in, held to toolnexus 0.21.0 itself: the same calls on the
same real trees must give the same bytes (toolnexus is imported in this process;
without it these tests skip and say so)."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any, Dict, List, Optional

import pytest

import skilldeck
from conftest import mixed_tree, write_tree

toolnexus = pytest.importorskip("toolnexus", reason="toolnexus 0.21.0 (the oracle) is not installed in this venv")


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def outputs(source: Any, names: List[str]) -> List[Any]:
    """Each name's tool result as (output, is_error, metadata)."""
    results = []
    for name in names:
        r = run(source.tool.execute({"name": name}))
        results.append((r.output, r.is_error, r.metadata))
    return results


def same(ours: Any, theirs: Any, probe: List[str]) -> None:
    assert ours.prompt() == theirs.prompt()
    assert list(ours.skills) == list(theirs.skills)
    for name in probe:
        if name not in ours.skills:
            continue
        a, b = ours.skills[name], theirs.skills[name]
        assert (a.name, a.description, a.location, a.content, a.origin) == (
            b.name,
            b.description,
            b.location,
            b.content,
            b.origin,
        )
    assert [(s.location, s.reason) for s in ours.skipped] == [(s.location, s.reason) for s in theirs.skipped]
    assert outputs(ours, probe) == outputs(theirs, probe)


@pytest.fixture()
def tree(tmp_path: Path) -> Path:
    return mixed_tree(tmp_path / "skills", tmp_path / "outside")


#: Every skill of the mixed tree but `linked`, whose body lies outside every root
#: (skilldeck lists it but does not serve it, on purpose: README's Compatibility table).
PROBE = ["alpha", "beta", "gamma", "quiet", "many", "rescued", "émoji-ß", "nope", "", "hidden"]


def test_a_mixed_tree_gives_toolnexus_bytes(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    same(skilldeck.load_skills(str(tree)), toolnexus.load_skills(str(tree)), PROBE)


@pytest.mark.parametrize("limit", [0, 1, 3, -1])
def test_sample_limits_give_toolnexus_bytes(tree: Path, limit: int) -> None:
    defs = [skilldeck.SkillDef(name="data", content=" body ", description="d", resources=["a", "b", "c", "d"])]
    tdefs = [toolnexus.SkillDef(name="data", content=" body ", description="d", resources=["a", "b", "c", "d"])]
    same(
        skilldeck.load_skills(str(tree), skills=defs, sample_limit=limit),
        toolnexus.load_skills(str(tree), skills=tdefs, sample_limit=limit),
        PROBE + ["data"],
    )


@pytest.mark.parametrize(
    "filter",
    [None, {}, {"alpha": True, "many": True}, {"beta": False}, {"alpha": True, "nope": True}, {"nope": False}],
)
def test_filters_give_toolnexus_bytes(tree: Path, filter: Optional[Dict[str, bool]]) -> None:
    same(
        skilldeck.load_skills([str(tree)], filter=filter),
        toolnexus.load_skills([str(tree)], filter=filter),
        PROBE,
    )


def test_roots_and_data_skills_compose_as_toolnexus(tree: Path, tmp_path: Path) -> None:
    second = write_tree(
        tmp_path / "second",
        {"beta/SKILL.md": "---\nname: beta\ndescription: second\n---\nx\n", "zeta/SKILL.md": "---\nname: zeta\ndescription: z\n---\nz\n"},
    )
    missing = str(tmp_path / "missing")
    ours = skilldeck.load_skills(
        [str(tree), str(second), missing],
        skills=[skilldeck.SkillDef(name="zeta", content="data"), skilldeck.SkillDef(name="", content="x")],
    )
    theirs = toolnexus.load_skills(
        [str(tree), str(second), missing],
        skills=[toolnexus.SkillDef(name="zeta", content="data"), toolnexus.SkillDef(name="", content="x")],
    )
    same(ours, theirs, PROBE + ["zeta"])
    assert [w.kind for w in ours.warnings if w.kind == "root-not-found"] == ["root-not-found"]


def test_toolnexus_skill_defs_are_accepted(tree: Path) -> None:
    """A toolnexus user's own SkillDef objects work unchanged."""
    src = skilldeck.load_skills(skills=[toolnexus.SkillDef(name="x", content="body", resources=["r"])])
    assert run(src.tool.execute({"name": "x"})).output == run(
        toolnexus.load_skills(skills=[toolnexus.SkillDef(name="x", content="body", resources=["r"])]).tool.execute(
            {"name": "x"}
        )
    ).output


def test_list_skills_gives_toolnexus_inventory(tree: Path) -> None:
    ours = skilldeck.list_skills(str(tree), skills=[skilldeck.SkillDef(name="alpha", content="dup")])
    theirs = toolnexus.list_skills(str(tree), skills=[toolnexus.SkillDef(name="alpha", content="dup")])
    assert [(s.name, s.location, s.description) for s in ours.skills] == [
        (s.name, s.location, s.description) for s in theirs.skills
    ]
    assert [(s.location, s.reason) for s in ours.skipped] == [(s.location, s.reason) for s in theirs.skipped]
    assert [w.kind for w in ours.warnings if w.kind == "duplicate-name"] == ["duplicate-name", "duplicate-name"]


def test_tool_declaration_is_toolnexus(tree: Path) -> None:
    ours, theirs = skilldeck.load_skills(str(tree)).tool, toolnexus.load_skills(str(tree)).tool
    assert (ours.name, ours.description, ours.input_schema, ours.source) == (
        theirs.name,
        theirs.description,
        theirs.input_schema,
        theirs.source,
    )
    assert skilldeck.SKILL_TOOL_DESCRIPTION == toolnexus.skill.SKILL_TOOL_DESCRIPTION
    assert skilldeck.SKILLS_PROMPT_PREAMBLE == toolnexus.SKILLS_PROMPT_PREAMBLE


def test_odd_arguments_are_read_as_toolnexus_reads_them(tree: Path) -> None:
    ours, theirs = skilldeck.load_skills(str(tree)), toolnexus.load_skills(str(tree))
    for args in [None, {}, {"name": 5}, {"name": None}, {"other": "alpha"}]:
        a = run(ours.tool.execute(args))
        b = run(theirs.tool.execute(args))
        assert (a.output, a.is_error, a.metadata) == (b.output, b.is_error, b.metadata)


def test_no_skills_prompt(tmp_path: Path) -> None:
    assert skilldeck.load_skills(str(tmp_path)).prompt() == toolnexus.load_skills(str(tmp_path)).prompt()
    assert skilldeck.load_skills().prompt() == "No skills are currently available."


def test_provider_failure_is_a_warning_and_the_rest_loads(tree: Path) -> None:
    """toolnexus's S1 rule for providers (its toolkit test, at the loader here)."""

    def boom() -> List[skilldeck.SkillDef]:
        raise RuntimeError("boom")

    src = skilldeck.load_skills(str(tree), provider=boom)
    assert "alpha" in src.prompt()
    assert [str(w) for w in src.warnings if w.kind == "provider-failed"] == ["skill provider failed: boom"]

    calls: List[int] = []

    def more() -> List[skilldeck.SkillDef]:
        calls.append(1)
        return [skilldeck.SkillDef(name="extra", content="E", description="from the provider")]

    src = skilldeck.load_skills(str(tree), provider=more)
    assert calls == [1]
    assert "- **extra**: from the provider" in src.prompt()
    assert run(src.tool.execute({"name": "extra"})).output.startswith('<skill_content name="extra">')

    bad = skilldeck.load_skills(provider=lambda: "nope")
    assert [w.message for w in bad.warnings] == ["skill provider failed: expected a list, got: 'nope'"]


def test_a_sample_limit_below_minus_one_is_a_build_error(tree: Path) -> None:
    with pytest.raises(skilldeck.BuildError) as e:
        skilldeck.load_skills(str(tree), sample_limit=-2)
    assert e.value.kind == "sample-limit"
    assert isinstance(e.value, skilldeck.SkillError)
    assert "-2" in str(e.value)


def test_unreadable_body_is_os_error(tmp_path: Path) -> None:
    write_tree(tmp_path, {"gone/SKILL.md": "---\nname: gone\ndescription: d\n---\nbody\n"})
    src = skilldeck.load_skills(str(tmp_path))
    os.remove(tmp_path / "gone" / "SKILL.md")
    with pytest.raises(OSError):
        src.skills["gone"].content


def test_a_refused_block_is_rescued_as_toolnexus_0_21_does(tmp_path: Path) -> None:
    """toolnexus 0.16's test_frontmatter_malformed_yaml_does_not_crash input, which
    0.21.0's line-wise fallback rescues (so 0.21.0 fails that old test too)."""
    write_tree(tmp_path, {"s/SKILL.md": '---\nname: s\ndescription: "unterminated\n---\nbody\n'})
    ours, theirs = skilldeck.load_skills(str(tmp_path)), toolnexus.load_skills(str(tmp_path))
    same(ours, theirs, ["s"])
    assert ours.skills["s"].description == '"unterminated'
    assert [w.kind for w in ours.warnings] == ["recovered-frontmatter"]


def test_documented_differences_hold(tmp_path: Path) -> None:
    """Where skilldeck differs on purpose (README's Compatibility table): CRLF bodies
    keep their bytes; a body behind a link out of every root is listed, not served."""
    outside = write_tree(tmp_path / "outside", {"linked/SKILL.md": "---\nname: linked\ndescription: l\n---\nsecret\n"})
    root = write_tree(tmp_path / "root", {"crlf/SKILL.md": "---\r\nname: crlf\r\ndescription: d\r\n---\r\na\r\nb\r\n"})
    os.symlink(outside / "linked", root / "link")
    src = skilldeck.load_skills(str(root))
    assert src.skills["crlf"].content == "a\r\nb\r\n"
    assert toolnexus.load_skills(str(root)).skills["crlf"].content == "a\nb\n"
    assert "- **linked**: l" in src.prompt()
    served = run(src.tool.execute({"name": "linked"}))
    assert served.is_error and served.output.startswith('Skill "linked" could not be read: ')
    assert "secret" not in served.output
