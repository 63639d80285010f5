"""What changed between a baseline and a result: paths, sides (mode, kind, object id), ranges."""

from __future__ import annotations

import enum
from itertools import pairwise

from .severity import Severity
from .values import field, value

TYPE_CHECKING = False  # not typing's: the PR gate reads reports with these values
if TYPE_CHECKING:
    from .code import CodeRead
    from .dependencies import Declared, Format, ManifestProblem

# The most of one side's content cagr loads; a longer side is loaded cut one byte over, so
# whoever reads it can tell it was cut. No reader of content reads more (the manifests'
# MAX_MANIFEST_BYTES, code rules' MAX_CODE_BYTES; add_only's whitespace compares this much).
MAX_CONTENT_BYTES = 1024 * 1024


class Kind(enum.Enum):
    """What a git tree entry is, from its mode."""

    REGULAR = "regular"
    EXECUTABLE = "executable"
    SYMLINK = "symlink"
    GITLINK = "gitlink"

    @classmethod
    def from_mode(cls, mode: int) -> Kind:
        kind = _KIND_BY_MODE.get(mode)
        if kind is None:
            raise ValueError(f"not a git file mode: {mode:o}")
        return kind

    @property
    def is_file(self) -> bool:
        """A regular file, executable or not: the only kind that can stand in as a companion."""
        return self in (Kind.REGULAR, Kind.EXECUTABLE)

    @property
    def described(self) -> str:
        return _DESCRIBED[self]


_KIND_BY_MODE = {
    0o100644: Kind.REGULAR,
    0o100755: Kind.EXECUTABLE,
    0o120000: Kind.SYMLINK,
    0o160000: Kind.GITLINK,
}
MODE_BY_KIND = {kind: mode for mode, kind in _KIND_BY_MODE.items()}
_DESCRIBED = {
    Kind.REGULAR: "regular file",
    Kind.EXECUTABLE: "executable file",
    Kind.SYMLINK: "symlink",
    Kind.GITLINK: "submodule",
}


class Status(enum.Enum):
    """git's raw status letters, without renames or copies."""

    ADDED = "A"
    MODIFIED = "M"
    DELETED = "D"
    TYPE_CHANGED = "T"


def _check_mode(_: object, __: object, mode: int) -> None:
    Kind.from_mode(mode)


@value
class Side:
    """One side of a change: the entry's mode and object id, and its content when it was loaded.

    `content` is loaded only for paths a selector reads (manifests); None means not loaded.
    `dependencies`: what the content declares as each manifest format a rule reads it as (or why
    it could not be read), filled in by cagr_manifests.read_change; `code`: what each code rule
    that selects the path matched in it (or why it could not search it), by cagr_code.
    """

    mode: int = field(validator=_check_mode)
    oid: str
    content: bytes | None = None
    dependencies: tuple[tuple[Format, Declared | ManifestProblem], ...] = ()
    code: tuple[tuple[str, CodeRead], ...] = ()

    @property
    def kind(self) -> Kind:
        return Kind.from_mode(self.mode)

    def declared(self, manifest: Format) -> Declared | ManifestProblem | None:
        """What this side declares read as `manifest` (None: it was not read so)."""
        return next((read for f, read in self.dependencies if f is manifest), None)

    def code_read(self, rule: str) -> CodeRead | None:
        """What the code rule `rule` found in this side (None: it was not searched)."""
        return next((read for r, read in self.code if r == rule), None)


@value
class Change:
    """One path that differs between baseline and result (a rename: a deletion plus an addition)."""

    path: str
    old: Side | None
    new: Side | None

    def __post_init__(self) -> None:
        if not self.path or self.path.startswith("/") or self.path.endswith("/"):
            raise ValueError(f"not a repo-relative path: {self.path!r}")
        if self.old is None and self.new is None:
            raise ValueError(f"{self.path!r}: a change needs at least one side")
        if (
            self.old is not None
            and self.new is not None
            and (self.old.mode, self.old.oid) == (self.new.mode, self.new.oid)
        ):
            raise ValueError(f"{self.path!r}: both sides are the same entry; that is no change")

    @property
    def status(self) -> Status:
        if self.old is None:
            return Status.ADDED
        if self.new is None:
            return Status.DELETED
        if self.old.kind.is_file and self.new.kind.is_file:
            return Status.MODIFIED  # git reports 100644 <-> 100755 as M
        if self.old.kind is self.new.kind:
            return Status.MODIFIED
        return Status.TYPE_CHANGED

    @property
    def exists_as_file(self) -> bool:
        """Present in the result as a regular (or executable) file."""
        return self.new is not None and self.new.kind.is_file


if TYPE_CHECKING:
    from typing import Literal

    Result = Literal["working-tree", "committed", "snapshot"]
else:
    Result = str  # what a Result is at run time


@value
class Range:
    """The resolved range: target ref and commit, merge base, and head (None: the working tree).

    `chosen_by` says which rule chose the target (`--base`, `[git] protected_branch`,
    `origin/HEAD`, `default main`, or the caller's own), when the caller said. A `snapshot`
    judges no change: the working tree's files, each as if added (`cagr check`), with no target,
    base or head (empty strings).
    """

    target_ref: str
    target: str
    base: str
    head: str | None
    chosen_by: str | None = None
    snapshot: bool = False

    @classmethod
    def of_snapshot(cls) -> Range:
        """The range of a snapshot check: no target, base or head."""
        return cls("", "", "", None, None, snapshot=True)

    @property
    def result(self) -> Result:
        if self.snapshot:
            return "snapshot"
        return "working-tree" if self.head is None else "committed"

    @property
    def label(self) -> str:
        """For messages: 'merge base abc1234 to working tree'."""
        if self.snapshot:
            return "snapshot of the working tree's files"
        end = "working tree" if self.head is None else self.head[:7]
        return f"merge base {self.base[:7]} to {end}"


class Stage(enum.Enum):
    """Where in a check something could not be decided."""

    CONFIG = "config"  # the configuration could not be read
    RANGE = "range"  # the target, merge base or history
    COLLECT = "collect"  # the change itself (index, files, objects)
    LIMITS = "limits"  # a cap on changes or rules
    SELECTOR = "selector"  # a manifest the dependency selector needs
    TEMPLATE = "template"  # a sibling target that cannot be rendered
    BODY = "body"  # the PR description
    DEADLINE = "deadline"  # the time for the check ran out
    STACK = "stack"  # a `[stack]` check command
    CODE = "code"  # a file a code rule searches (its language, its text, ast-grep)


@value
class Unchecked:
    """Something cagr could not check. Never a pass: it is reported, and CI exits non-zero."""

    rule: str | None
    stage: Stage
    message: str
    # Set when only this path is unknown, not the whole change; a path ending in `/` stands for
    # everything beneath that folder (one that could not be listed).
    path: str | None = None
    # A `warn` rule's unchecked item is shown but, like its findings, never changes the verdict.
    severity: Severity = Severity.ERROR


def _sorted_unique(changes: tuple[Change, ...]) -> tuple[Change, ...]:
    ordered = tuple(sorted(changes, key=lambda change: change.path))
    for before, after in pairwise(ordered):
        if before.path == after.path:
            raise ValueError(f"{after.path!r} appears twice in one change set")
    return ordered


@value
class ChangeSet:
    """The changes of one range, sorted by path, plus what collection could not see.

    `pending_staged`: paths whose staged content differs from the working tree (never counted).
    `unchecked`: what collection could not read. An item without a path means the set is
    incomplete; an item with a path means only that path's change is unknown (it is not among
    `changes`), so rules that never look at it can still be decided.
    """

    changes: tuple[Change, ...] = field(default=(), converter=_sorted_unique)
    range: Range | None = None
    pending_staged: tuple[str, ...] = ()
    unchecked: tuple[Unchecked, ...] = ()

    @property
    def complete(self) -> bool:
        """Nothing unknown but, at most, some individual paths."""
        return all(item.path is not None for item in self.unchecked)
