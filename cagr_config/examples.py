"""Rule examples (the values): a small change notation turned into the evaluator's ChangeSet.

This is a test adapter to the one evaluator, not a second diff format. `status` implies which
sides exist (A: after only; D: before only; M, T: both); `before`/`after` give content for sides
that exist. M keeps the kind and changes the content; T turns a regular file into a symlink.
"""

from __future__ import annotations

import hashlib

from attrs import field, frozen

from cagr_core.changes import MODE_BY_KIND, Change, ChangeSet, Kind, Side, Status
from cagr_core.errors import CagrError
from cagr_core.pull_request import Phase, PrBody

from .field_docs import doc, text_doc


class FixtureError(CagrError):
    """An example that describes an impossible change."""


@frozen(kw_only=True)
class FixtureChange:
    """One path in an example: its status and optional content on the sides that exist."""

    path: str = field(metadata=doc("Repo-relative path, `/`-separated."))
    status: Status = field(
        metadata=doc("A added, M modified, D deleted, T type changed (file to symlink).")
    )
    before: str | None = field(
        default=None, metadata=text_doc("Content at the baseline (M, D, T).")
    )
    after: str | None = field(default=None, metadata=text_doc("Content in the result (A, M, T)."))


@frozen(kw_only=True)
class Example:
    """One valid or invalid example of a rule; `pr_body` None means no PR metadata."""

    changes: tuple[FixtureChange, ...] = field(
        converter=tuple, metadata=doc("The change: unique paths with their status.")
    )
    pr_body: str | None = field(
        default=None,
        metadata=text_doc("The pull request description; leave it out for 'no PR metadata'."),
    )
    phase: Phase = field(
        default=Phase.CI,
        metadata=doc("ci (default): a PR body is required; turn: an agent's turn end."),
    )

    @property
    def body(self) -> PrBody:
        return PrBody(self.pr_body)


@frozen(kw_only=True)
class Examples:
    """A rule's examples: each valid one must pass, each invalid one must fail that rule."""

    valid: tuple[Example, ...] = field(
        default=(), converter=tuple, metadata=doc("Changes the rule must accept (at least one).")
    )
    invalid: tuple[Example, ...] = field(
        default=(), converter=tuple, metadata=doc("Changes the rule must reject (at least one).")
    )


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
