"""skilldeck: an Agent Skills engine, from Python.

Two layers over one engine (the Rust crate ``skilldeck``, compiled into
``skilldeck._skilldeck``):

* a drop-in for toolnexus 0.21.0's skill API -- ``load_skills``,
  ``list_skills``, ``SkillDef`` -- whose outputs are toolnexus's byte for byte,
  so that changing one import line moves a toolnexus user here;
* the engine itself: ``Catalog``, ``LiveCatalog``, ``AgentProfile`` and its
  ``AgentView``, ``LoadSkillTool``, budgets, ``Store``, ``validate`` and search.

Errors are ``SkillError`` subclasses (``BuildError``, ``StoreError``,
``BudgetError``) whose ``kind`` names the case.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Awaitable, Callable, Dict, List, Literal, Optional, Sequence, Union

from ._skilldeck import (
    TOOLNEXUS_EMPTY,
    TOOLNEXUS_PREAMBLE,
    Activation,
    AgentProfile,
    AgentView,
    BudgetError,
    BudgetReport,
    BuildError,
    Catalog,
    Diagnostic,
    Fitted,
    LiveCatalog,
    LoadSkillTool,
    SearchResults,
    Skill,
    SkillError,
    Skip,
    Store,
    StoreError,
    ToolResult,
    ValidationReport,
    CatalogWarning,
    __version__,
    skill_tool_declaration,
    validate,
)
from ._skill_list import SkillList

__all__ = [
    "SKILLS_PROMPT_PREAMBLE",
    "SKILL_TOOL_DESCRIPTION",
    "Activation",
    "AgentProfile",
    "AgentView",
    "BudgetError",
    "BudgetReport",
    "BuildError",
    "Catalog",
    "CatalogWarning",
    "Diagnostic",
    "Fitted",
    "LiveCatalog",
    "LoadSkillTool",
    "SearchResults",
    "Skill",
    "SkillDef",
    "SkillError",
    "SkillInfo",
    "SkillInventory",
    "SkillList",
    "SkillSkip",
    "SkillSource",
    "Skip",
    "Store",
    "StoreError",
    "Tool",
    "ToolResult",
    "ValidationReport",
    "list_skills",
    "load_skills",
    "validate",
    "__version__",
]

_DECLARATION = skill_tool_declaration()

#: The ``skill`` tool's description: toolnexus's text.
SKILL_TOOL_DESCRIPTION: str = _DECLARATION["description"]
#: The first two lines of ``prompt()`` when some skill has a description.
SKILLS_PROMPT_PREAMBLE: str = TOOLNEXUS_PREAMBLE

#: toolnexus's names for the engine's types: a skill, and a skipped candidate.
SkillInfo = Skill
SkillSkip = Skip


@dataclass
class SkillDef:
    """A skill supplied as data, bypassing the file system (toolnexus's ``SkillDef``).

    ``resources`` are the logical names listed in ``<skill_files>``; ``base``
    defaults to ``skill://<name>/``.
    """

    name: str
    content: str
    description: Optional[str] = None
    resources: Optional[List[str]] = None
    base: Optional[str] = None


@dataclass
class Tool:
    """toolnexus's tool shape: ``await tool.execute({"name": ...})`` returns a ``ToolResult``."""

    name: str
    description: str
    input_schema: Dict[str, Any]
    source: Literal["skill"]
    execute: Callable[..., Awaitable[ToolResult]] = field(repr=False)


#: A provider of data skills: called at build (and at every reload of a ``LiveCatalog``).
SkillProvider = Callable[[], Sequence[Any]]


class SkillSource:
    """What ``load_skills`` returns: the exposed ``skills`` by name, the ``skill``
    ``tool``, ``prompt()``, the ``skipped`` candidates and the build's ``warnings``."""

    def __init__(self, catalog: Catalog) -> None:
        #: The engine's snapshot behind this source.
        self.catalog: Catalog = catalog
        #: Every candidate discovery refused, with its reason.
        self.skipped: List[Skip] = catalog.skips
        #: What toolnexus prints on stderr (missing roots, duplicates, filter names, a failed provider).
        self.warnings: List[CatalogWarning] = catalog.warnings
        self.tool: Tool = Tool(
            name=_DECLARATION["name"],
            description=SKILL_TOOL_DESCRIPTION,
            input_schema=_DECLARATION["input_schema"],
            source="skill",
            execute=self._execute,
        )

    @cached_property
    def skills(self) -> Dict[str, Skill]:
        """The exposed skills by name, in discovery order (made on first use: a
        caller that only wants ``prompt()`` and the tool never pays for 10,000
        ``Skill`` objects)."""
        return self.catalog.by_name()

    def prompt(self) -> str:
        """The markdown catalog for the system prompt: toolnexus's, byte for byte."""
        return self.catalog.render()

    async def _execute(self, args: Optional[Dict[str, Any]] = None, ctx: Any = None) -> ToolResult:
        # toolnexus reads the name this way: a missing one is "", anything else its str().
        return self.catalog.load(str((args or {}).get("name", "")))


@dataclass
class SkillInventory:
    """What ``list_skills`` returns: every skill (unfiltered), the skips, the warnings."""

    skills: List[Skill]
    skipped: List[Skip]
    warnings: List[CatalogWarning] = field(default_factory=list)


def _roots(dirs: Union[str, Sequence[str], None]) -> List[str]:
    return [] if dirs is None else ([dirs] if isinstance(dirs, str) else list(dirs))


def load_skills(
    dirs: Union[str, Sequence[str], None] = None,
    *,
    skills: Optional[Sequence[Any]] = None,
    filter: Optional[Dict[str, bool]] = None,
    sample_limit: int = 0,
    provider: Optional[SkillProvider] = None,
) -> SkillSource:
    """Discover skills (directories and/or data) and build the ``skill`` tool, as toolnexus.

    ``filter`` is the allow/drop list (``{name: True}`` allows, ``{name: False}``
    drops); ``sample_limit`` is 0 (ten files), n > 0 or -1 (no file list);
    ``provider`` is called once for more ``SkillDef``s (a failure is a warning).
    Raises ``BuildError`` for a sample limit below -1.
    """
    return SkillSource(
        Catalog(_roots(dirs), skills=list(skills or []), filter=filter, sample_limit=sample_limit, provider=provider)
    )


def list_skills(
    dirs: Union[str, Sequence[str], None] = None,
    *,
    skills: Optional[Sequence[Any]] = None,
    provider: Optional[SkillProvider] = None,
) -> SkillInventory:
    """Discover and check skills from the same sources, unfiltered: skills, skips, warnings."""
    catalog = Catalog(_roots(dirs), skills=list(skills or []), provider=provider)
    return SkillInventory(skills=catalog.inventory(), skipped=catalog.skips, warnings=catalog.warnings)
