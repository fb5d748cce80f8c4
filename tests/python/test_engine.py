"""The engine from Python: agent views, load_skill, budgets, search, stores,
validation, live reloads, and the exception hierarchy."""

from __future__ import annotations

import os
import time
import uuid
from pathlib import Path

import pytest

import skilldeck
from conftest import write_tree


def skill_md(name: str, description: str, body: str, extra: str = "") -> str:
    return f"---\nname: {name}\ndescription: {description}\n{extra}---\n{body}\n"


@pytest.fixture()
def shop(tmp_path: Path) -> Path:
    return write_tree(
        tmp_path / "skills",
        {
            "cardapio/SKILL.md": skill_md("cardapio", "o cardápio", "Mostre o cardápio.", "triggers:\n  - cardápio\n"),
            "formato/SKILL.md": skill_md("formato", "formato das respostas", "Use listas."),
            "pedido/SKILL.md": skill_md(
                "pedido", "fazer um pedido", "Anote o pedido.", "triggers:\n  - quero pedir\ncompanions:\n  - cardapio\n"
            ),
            "pdf-forms/SKILL.md": skill_md("pdf-forms", "Fill PDF forms", "Fill in PDF form fields with pdftk."),
        },
    )


def names(skills: list[skilldeck.Skill]) -> list[str]:
    return [s.name for s in skills]


def test_agent_view_lazy_eager_and_activation_reasons(shop: Path) -> None:
    catalog = skilldeck.Catalog([shop])
    profile = skilldeck.AgentProfile("loja", allow=["cardapio", "formato", "pedido"], eager=["formato"])
    view = catalog.view(profile)
    assert names(view.effective()) == ["cardapio", "formato", "pedido"]
    assert names(view.eager()) == ["formato"]
    assert names(view.lazy()) == ["cardapio", "pedido"]
    acts = view.activate("Oi, quero pedir uma pizza")
    assert [(a.skill.name, a.reason, a.kind, a.detail) for a in acts] == [
        ("formato", "eager", "eager", None),
        ("pedido", "trigger:quero pedir", "trigger", "quero pedir"),
        ("cardapio", "companion:pedido", "companion", "pedido"),
    ]
    blocks = view.active_skills("Oi, quero pedir uma pizza")
    assert "Use listas." in blocks and "Anote o pedido." in blocks
    assert view.render().startswith(
        '<available_skills>\n  <skill name="cardapio" when="cardápio">o cardápio</skill>\n  <skill name="pedido" when="quero pedir">fazer um pedido</skill>\n</available_skills>\n'
    )
    assert skilldeck.AgentProfile("x", eager="all").is_eager("anything")
    assert not skilldeck.AgentProfile("x", allow=["a"]).allows("b")


def test_load_skill_tool_serves_the_lazy_skills(shop: Path) -> None:
    view = skilldeck.Catalog([shop]).view(skilldeck.AgentProfile("loja", eager=["formato"]))
    tool = view.load_skill_tool()
    assert tool.allowed() == ["cardapio", "pdf-forms", "pedido"]
    assert tool.load("formato").output == "skill 'formato' not available for this agent"
    assert tool.load("formato").is_error
    served = tool.call({"name": "cardapio"})
    assert not served.is_error and served.output == "Mostre o cardápio."
    assert tool.call({"nome": 1}).is_error
    assert skilldeck.LoadSkillTool.declaration()["name"] == "load_skill"


def test_budgets_cut_and_report(shop: Path) -> None:
    catalog = skilldeck.Catalog([shop])
    whole = catalog.render()
    fitted = catalog.fit(f"{len(whole)}c")
    assert fitted.text == whole and fitted.report.omitted == [] and fitted.report.unit == "chars"
    cut = catalog.fit("200c")
    assert len(cut.text) <= 200 and cut.report.used == len(cut.text)
    r = cut.report
    assert sorted(r.full + [n for n, _ in r.shortened] + r.omitted) == ["cardapio", "formato", "pdf-forms", "pedido"]
    assert r.unlisted == 0  # every skill of the shop has a description
    closed = catalog.fit("200c", search_tool="find_skills")
    assert "find_skills" in closed.text
    assert catalog.fit("100t").report.unit == "tokens"
    view = catalog.view(skilldeck.AgentProfile("a"))
    assert view.fit("120c").report.limit == 120
    assert len(view.render("120c")) <= 120
    with pytest.raises(skilldeck.BudgetError) as e:
        catalog.fit("8000")
    assert e.value.kind == "syntax" and "8000c" in str(e.value)


def test_search_ranks_and_abstains(shop: Path) -> None:
    catalog = skilldeck.Catalog([shop])
    found = catalog.search("fill a pdf form", 3)
    assert not found.abstained and found.hits[0][0].name == "pdf-forms" and found.hits[0][1] > 0
    assert catalog.search("what is the weather in Lisbon").abstained
    view = catalog.view(skilldeck.AgentProfile("a", allow=["cardapio"]))
    assert [s.name for s, _ in view.search("pdf form").hits] == []


def test_agentskills_format_and_unknown_format(shop: Path) -> None:
    catalog = skilldeck.Catalog([shop])
    assert catalog.render("agentskills").startswith("<available_skills>\n<skill>\n<name>\ncardapio\n</name>")
    with pytest.raises(TypeError):
        catalog.render("html")


def test_sqlite_store_on_a_real_file(tmp_path: Path, shop: Path) -> None:
    db = tmp_path / "skills.db"
    store = skilldeck.Store(str(db))
    store.write("receita", skill_md("receita", "uma receita", "Misture."))
    store.write("privada", skill_md("privada", "só minha", "Segredo."), agent="loja")
    assert db.is_file()
    assert store.names() == ["receita"] and store.agents() == ["loja"]
    assert store.get("receita") == skill_md("receita", "uma receita", "Misture.")
    with pytest.raises(skilldeck.StoreError) as e:
        store.write("receita", "---\nname: receita\n---\n", create_only=True)
    assert e.value.kind == "already-exists" and "receita" in str(e.value)
    catalog = skilldeck.Catalog([shop], store=skilldeck.Store(str(db)))
    assert catalog.get("receita") is not None and catalog.get("receita").content.strip() == "Misture."  # type: ignore[union-attr]
    assert "privada" in names(catalog.view(skilldeck.AgentProfile("loja")).all())
    assert store.delete("receita") and not store.delete("receita")


def test_store_write_refuses_what_write_skill_refuses(tmp_path: Path) -> None:
    store = skilldeck.Store(str(tmp_path / "skills.db"))
    refusals = [
        ("greet", skill_md("other", "the other one", "Body."), "name-mismatch",
         "frontmatter `name` 'other' is not the skill name 'greet'"),
        ("a\nb", skill_md("ab", "d", "x"), "invalid-name", "a skill name cannot contain U+000A, a control character"),
        (" ", skill_md("x", "d", "x"), "invalid-name", "name is required"),
        ("x", "no frontmatter", "missing-frontmatter", "SKILL.md missing YAML frontmatter (--- ... ---)"),
        ("wipe", skill_md("wipe", "d", "```sh\nrm -rf ~\n```"), "risky",
         "the audit found 1 finding at high or above, the first SKILL.md:6:1: critical exec.destructive-delete: "
         "a recursive delete of the home or root directory; nothing was written"),
    ]
    for name, content, kind, message in refusals:
        with pytest.raises(skilldeck.StoreError) as e:
            store.write(name, content)
        assert (e.value.kind, str(e.value)) == (kind, message)
    with pytest.raises(skilldeck.StoreError) as e:
        store.write("ok", skill_md("ok", "d", "x"), agent="bia\u202e")
    assert e.value.kind == "invalid-name"
    assert store.names() == [] and store.agents() == []
    store.write("wipe", skill_md("wipe", "d", "```sh\nrm -rf ~\n```"), allow_risk=True)
    assert store.names() == ["wipe"]


def test_a_store_that_is_not_a_database_is_a_store_error(tmp_path: Path) -> None:
    bad = tmp_path / "not.db"
    bad.write_text("this is not SQLite " * 100)
    with pytest.raises(skilldeck.StoreError) as e:
        skilldeck.Store(str(bad)).names()
    assert e.value.kind == "backend" and str(bad) in str(e.value)


def test_postgres_store() -> None:
    url = os.environ.get("SKILLDECK_TEST_POSTGRES")
    if not url:
        if os.environ.get("CI"):
            pytest.fail("SKILLDECK_TEST_POSTGRES is unset in CI")
        pytest.skip("SKILLDECK_TEST_POSTGRES is unset: no PostgreSQL server to test against")
    store = skilldeck.Store(url)
    name = "py-" + uuid.uuid4().hex[:12]
    try:
        store.write(name, skill_md(name, "from python", "Body."))
        assert store.get(name) == skill_md(name, "from python", "Body.")
        catalog = skilldeck.Catalog(store=store)
        assert catalog.get(name) is not None
    finally:
        store.delete(name)


def test_validate_reports_skills_ref_findings(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "x/SKILL.md": "---\nname: other\n---\nbody\n",
            "Bad_Name/SKILL.md": "---\nname: Bad_Name\ndescription: d\n---\nbody\n",
        },
    )
    (report,) = skilldeck.validate(tmp_path / "x")
    assert not report.is_valid and report.dir == tmp_path / "x" and report.skill_md == tmp_path / "x" / "SKILL.md"
    assert [(d.severity, d.check, d.message, d.line, d.column) for d in report.diagnostics] == [
        ("warning", "name-directory", "Directory name 'x' must match skill name 'other'", 2, 7),
        ("error", "missing-description", "Missing required field in frontmatter: description", None, None),
    ]
    assert str(report.diagnostics[0]) == f"{tmp_path}/x/SKILL.md:2:7: warning: Directory name 'x' must match skill name 'other'"
    (lenient,) = skilldeck.validate(str(tmp_path / "Bad_Name"))
    assert lenient.is_valid and [d.check for d in lenient.diagnostics] == ["name-lowercase", "name-characters"]
    (strict,) = skilldeck.validate(tmp_path / "Bad_Name", strict=True)
    assert not strict.is_valid and {d.severity for d in strict.diagnostics} == {"error"}
    assert [r.dir.name for r in skilldeck.validate(tmp_path)] == ["Bad_Name", "x"]


def test_live_catalog_reload_changed(shop: Path) -> None:
    live = skilldeck.LiveCatalog([shop])
    before = live.snapshot()
    path = shop / "formato" / "SKILL.md"
    path.write_text(skill_md("formato", "formato novo", "Use tabelas."))
    new = shop / "novo" / "SKILL.md"
    new.parent.mkdir()
    new.write_text(skill_md("novo", "um novo", "Novo."))
    after = live.reload_changed([path, new])
    assert before.get("formato").description == "formato das respostas"  # type: ignore[union-attr]
    assert after.get("formato").description == "formato novo"  # type: ignore[union-attr]
    assert "novo" in after.by_name() and "novo" not in before.by_name()
    assert live.snapshot().render() == after.render() == live.reload().render()


def test_live_provider_is_called_at_every_reload(shop: Path) -> None:
    calls: list[int] = []

    def provide() -> list[skilldeck.SkillDef]:
        calls.append(1)
        return [skilldeck.SkillDef(name=f"p{len(calls)}", content="x", description="d")]

    live = skilldeck.LiveCatalog([shop], provider=provide)
    assert "p1" in live.snapshot().by_name()
    assert "p2" in live.reload().by_name()


def test_the_gil_is_released_during_a_walk(tmp_path: Path) -> None:
    """Another Python thread runs while a catalog of many skills is built."""
    import threading

    for i in range(3000):
        write_tree(tmp_path, {f"s{i}/SKILL.md": skill_md(f"s{i}", "d", "b")})
    ticks = 0
    done = threading.Event()

    def tick() -> None:
        nonlocal ticks
        while not done.is_set():
            ticks += 1
            time.sleep(0)

    t = threading.Thread(target=tick)
    t.start()
    try:
        start = time.perf_counter()
        catalog = skilldeck.Catalog([tmp_path])
        took = time.perf_counter() - start
    finally:
        done.set()
        t.join()
    assert len(catalog) == 3000
    # Holding the GIL would leave the other thread at most a tick per switch interval (5 ms).
    assert ticks > 2 * took / 0.005 + 10


def test_the_skill_tool_checks_a_model_s_arguments() -> None:
    """The native tool applies the engine's argument checks (the toolnexus layer
    reads arguments as toolnexus does)."""
    catalog = skilldeck.Catalog(skills=[skilldeck.SkillDef(name="a", content="A", description="d")])
    assert [(r.output, r.is_error) for r in (catalog.call({"name": 5}), catalog.call({}))] == [
        ('Invalid arguments: "name" must be a string.', True),
        ('Invalid arguments: missing required argument "name".', True),
    ]
    ok = catalog.call({"name": "a"})
    assert not ok.is_error and ok.metadata == {"name": "a", "dir": "skill://a/"} and ok.parts is None
    assert ok.output == catalog.load("a").output
    assert repr(catalog) == "Catalog(1 skills, 0 skips, 0 warnings)"


def test_every_error_is_a_skill_error() -> None:
    for cls in (skilldeck.BuildError, skilldeck.StoreError, skilldeck.BudgetError):
        assert issubclass(cls, skilldeck.SkillError) and cls.__module__ == "skilldeck"
    assert not hasattr(skilldeck, "Warning"), "a star import must not shadow the builtin Warning"


def test_a_catalog_takes_one_path_or_a_list_of_them(shop: Path) -> None:
    """Issue 26, item 10: `Catalog("/path")` failed with PyO3's "Can't extract `str` to `Vec`"."""
    expected = ["cardapio", "formato", "pedido", "pdf-forms"]
    for roots in (str(shop), shop, [shop], (str(shop),), [os.fspath(shop)]):
        assert sorted(names(skilldeck.Catalog(roots).skills)) == sorted(expected), roots
    assert sorted(names(skilldeck.LiveCatalog(str(shop)).snapshot().skills)) == sorted(expected)
    assert skilldeck.Catalog().skills == []
    with pytest.raises(TypeError, match=r"^roots must be a path \(str or os.PathLike\) or a list of paths, got int"):
        skilldeck.Catalog(3)  # type: ignore[arg-type]


def test_catalog_skills_is_a_property_and_calling_it_still_works_with_a_warning(shop: Path) -> None:
    catalog = skilldeck.Catalog(shop)
    assert isinstance(catalog.skills, list) and len(catalog.skills) == 4
    with pytest.warns(DeprecationWarning, match=r"Catalog\.skills is a property"):
        called = catalog.skills()
    assert names(called) == names(catalog.skills)


def test_the_package_says_its_version() -> None:
    pyproject = (Path(__file__).resolve().parents[2] / "crates/skilldeck-py/pyproject.toml").read_text()
    assert f'version = "{skilldeck.__version__}"' in pyproject
    assert skilldeck.__version__ == skilldeck._skilldeck.__version__
