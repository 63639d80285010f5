"""The `dependency_added` selector: which dependencies a package.json change adds.

A name absent from a section before and present in it after is added, so a move between sections
adds it again. Version edits and removals add nothing; a new manifest starts from empty sections;
a deleted one adds nothing. Anything that is not a JSON object with object sections is an error,
never an empty list.
"""

from __future__ import annotations

import json
from typing import Any

from .errors import CagrError

SECTIONS = ("dependencies", "devDependencies", "optionalDependencies", "peerDependencies")


class ManifestError(CagrError):
    """A manifest side that cannot be read as package.json (the rule is then unchecked).

    `side` is "old" (the baseline's copy) or "new" (the change's result).
    """

    def __init__(self, message: str, side: str) -> None:
        super().__init__(message)
        self.side = side


def _sections(content: bytes, side: str) -> dict[str, frozenset[str]]:
    try:
        data: Any = json.loads(content.decode("utf-8-sig"))
    except UnicodeDecodeError as error:
        raise ManifestError(f"the {side} side is not UTF-8 ({error.reason})", side) from error
    except json.JSONDecodeError as error:
        raise ManifestError(
            f"the {side} side is not valid JSON ({error.msg} at line {error.lineno}"
            f" column {error.colno})",
            side,
        ) from error
    except RecursionError as error:
        raise ManifestError(f"the {side} side nests too deeply to read", side) from error
    if not isinstance(data, dict):
        raise ManifestError(f"the {side} side is JSON but not an object", side)
    found: dict[str, frozenset[str]] = {}
    for section in SECTIONS:
        value = data.get(section, {})
        if not isinstance(value, dict):
            raise ManifestError(
                f"{section} on the {side} side is {type(value).__name__}, not an object", side
            )
        found[section] = frozenset(value)
    return found


def added_dependencies(before: bytes | None, after: bytes | None) -> tuple[str, ...]:
    """Sorted `section.name` entries that `after` adds over `before` (None: that side is absent)."""
    if after is None:
        return ()
    new = _sections(after, "new")
    old = _sections(before, "old") if before is not None else dict.fromkeys(SECTIONS, frozenset())
    return tuple(
        f"{section}.{name}" for section in SECTIONS for name in sorted(new[section] - old[section])
    )
