"""Rule examples turned into the evaluator's ChangeSet: the change notation's meaning.

Standard library only, and read through attributes (an example's `changes`, each with `path`,
`status`, `before`, `after`), so the config model's Example values (`examples`) and the quick
compile's plain ones (`quick`) are judged by the same code. `status` implies which sides exist
(A: after only; D: before only; M, T: both); `before`/`after` give content for sides that exist.
M keeps the kind and changes the content; T turns a regular file into a symlink.
"""

from __future__ import annotations

import hashlib

from cagr_core.changes import MODE_BY_KIND, Change, ChangeSet, Kind, Side, Status
from cagr_core.errors import CagrError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Protocol

    class FixtureChange(Protocol):
        """What is read of an example's entry (examples.FixtureChange, or a quick one)."""

        @property
        def path(self) -> str: ...
        @property
        def status(self) -> Status: ...
        @property
        def before(self) -> str | None: ...
        @property
        def after(self) -> str | None: ...

    class Example(Protocol):
        """What is read of an example (examples.Example, or a quick one)."""

        @property
        def changes(self) -> Sequence[FixtureChange]: ...


class FixtureError(CagrError):
    """An example that describes an impossible change."""


def example_oid(path: str, side: str, content: str | None) -> str:
    """A made-up object id for an example's side: distinct per path, side and content."""
    seed = f"{side}\0{path}\0{content}".encode("utf-8", "surrogateescape")
    return hashlib.sha1(seed, usedforsecurity=False).hexdigest()


def _side(kind: Kind, path: str, name: str, content: str | None) -> Side:
    data = None if content is None else content.encode("utf-8", "surrogateescape")
    return Side(MODE_BY_KIND[kind], example_oid(path, name, content), data)


def path_problem(path: str) -> str | None:
    if "\0" in path:
        return "a path cannot hold a NUL character"
    if any(part in ("", ".", "..") for part in path.split("/")):
        return (
            "not a repo-relative path git can record (no leading or trailing /, no //, no ."
            " or .. parts);"
            " write it from the repository root, e.g. src/app.ts"
        )
    return None


def fixture_change(item: FixtureChange) -> Change:
    """The Change an example entry stands for; FixtureError when it cannot exist."""
    problem = path_problem(item.path)
    if problem is not None:
        raise FixtureError(f"{item.path!r}: {problem}")
    status = item.status
    if status is Status.ADDED and item.before is not None:
        raise FixtureError(f"{item.path}: an addition has no before side; remove `before`")
    if status is Status.DELETED and item.after is not None:
        raise FixtureError(f"{item.path}: a deletion has no after side; remove `after`")
    if status is Status.MODIFIED and item.before is not None and item.before == item.after:
        raise FixtureError(f"{item.path}: before and after are the same, which is no change")
    old = None
    new = None
    if status is not Status.ADDED:
        old = _side(Kind.REGULAR, item.path, "before", item.before)
    if status is not Status.DELETED:
        kind = Kind.SYMLINK if status is Status.TYPE_CHANGED else Kind.REGULAR
        new = _side(kind, item.path, "after", item.after)
    try:
        return Change(item.path, old, new)
    except ValueError as error:
        raise FixtureError(str(error)) from error


def fixture_changeset(example: Example) -> ChangeSet:
    """The example's changes as a ChangeSet (no range: examples have no git history)."""
    paths = [item.path for item in example.changes]
    duplicates = sorted({path for path in paths if paths.count(path) > 1})
    if duplicates:
        raise FixtureError(f"an example lists {', '.join(duplicates)} more than once")
    changes = ChangeSet(tuple(fixture_change(item) for item in example.changes))
    for side in ("before", "after"):
        present = {c.path for c in changes.changes if (c.old if side == "before" else c.new)}
        for path in sorted(present):
            folder = path.rpartition("/")[0]
            while folder:
                if folder in present:
                    raise FixtureError(
                        f"{folder} is a file and the folder of {path} on the {side} side;"
                        " one path cannot be both (a file replaced by a folder is D of the"
                        " file and A of what is in the folder)"
                    )
                folder = folder.rpartition("/")[0]
    return changes
