"""What fires a `requires` or `pr_body` rule: any change of a selected path, or a dependency a
selected manifest adds."""

from __future__ import annotations

import enum


class When(enum.Enum):
    """What fires a `requires` or `pr_body` rule."""

    CHANGED = "changed"
    DEPENDENCY_ADDED = "dependency_added"
