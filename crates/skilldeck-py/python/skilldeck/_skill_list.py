"""``Catalog.skills``: a list, as ``skips`` and ``warnings`` are.

It was a method; code that still calls it gets the same list and a
``DeprecationWarning``, so that moving to the property breaks nothing.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, List

if TYPE_CHECKING:
    from ._skilldeck import Skill


class SkillList(List["Skill"]):
    """The exposed skills, in collection order."""

    def __call__(self) -> "SkillList":
        warnings.warn(
            "Catalog.skills is a property: write catalog.skills, not catalog.skills()",
            DeprecationWarning,
            stacklevel=2,
        )
        return self
