"""What fires a `requires` or `pr_body` rule: any change of a selected path, an added one, or a
dependency a selected manifest adds (or adds, removes or changes)."""

from __future__ import annotations

import enum


class When(enum.Enum):
    """What fires a `requires` or `pr_body` rule."""

    CHANGED = "changed"
    ADDED = "added"
    DEPENDENCY_ADDED = "dependency_added"
    DEPENDENCY_CHANGED = "dependency_changed"

    @property
    def reads_manifests(self) -> bool:
        """Whether the trigger reads the selected manifests' dependencies."""
        return self in (When.DEPENDENCY_ADDED, When.DEPENDENCY_CHANGED)
