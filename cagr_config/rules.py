"""Change-rule values for the four kinds, as configured (the editor schema is derived from them)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal

from attrs import field, frozen

from cagr_core.severity import Severity
from cagr_core.when import When
from cagr_core.whitespace import Whitespace

from .examples import Examples
from .field_docs import doc

_KIND = {**doc("The rule kind."), "required": True}


def _tuple(value: Iterable[str]) -> tuple[str, ...]:
    return tuple(value)


def _id() -> Any:
    return field(metadata=doc("Unique across all rules: letters, digits, `.`, `_`, `-`."))


def _paths() -> Any:
    return field(
        converter=_tuple,
        metadata=doc(
            "Trigger globs from the root: a leading / anchors at the root, a pattern without"
            " a slash matches basenames anywhere, ** spans folders, braces give alternatives."
            " A named part ({app}) matches like * and names what it matched, for require and"
            " target."
        ),
    )


def _ignores() -> Any:
    return field(
        default=(),
        converter=_tuple,
        metadata=doc(
            "Globs removed from the trigger paths (never from required companions); no named parts."
        ),
    )


def _reason() -> Any:
    return field(metadata=doc("What to do instead; printed as the fix when the rule fails."))


def _note() -> Any:
    return field(default=None, metadata=doc("Optional explanation shown by `cagr explain`."))


def _severity() -> Any:
    return field(
        default=Severity.ERROR,
        metadata=doc(
            "error (default): a finding fails the check, blocks an agent's stop and denies at"
            " the PR gate. warn: findings are shown everywhere but never fail, block or deny."
        ),
    )


def _waive_label() -> Any:
    return field(
        default=None,
        metadata=doc(
            "In CI only: when the pull or merge request carries this label, the rule's findings"
            " are reported as waived (never as passed). Nothing else waives a rule."
        ),
    )


def _waive_authors() -> Any:
    return field(
        default=(),
        converter=_tuple,
        metadata=doc(
            "In CI only: when the pull or merge request was opened by one of these accounts"
            " (renovate[bot]), the rule's findings are reported as waived (never as passed)."
        ),
    )


def _ignore_dependencies() -> Any:
    return field(
        default=(),
        converter=_tuple,
        metadata=doc(
            "With a dependency trigger: dependency names matching one of these globs (@types/*)"
            " never fire the rule. Python and Rust names compare folded (case, - _ .)."
        ),
    )


def _examples() -> Any:
    return field(
        factory=Examples,
        metadata={**doc("At least one valid and one invalid example."), "required": True},
    )


def _when() -> Any:
    return field(
        default=When.CHANGED,
        metadata=doc(
            "changed (default): any selected path changes. added: a selected path is added."
            " dependency_added: a selected manifest (package.json, pyproject.toml, a"
            " requirements file, Cargo.toml, go.mod) adds a dependency. dependency_changed: it"
            " adds or removes one or changes its requirement."
        ),
    )


def _format() -> Any:
    return field(
        default=None,
        metadata=doc(
            "With a dependency trigger: read every selected path as this format instead of"
            " by its file name. requirements: a pip requirements file."
        ),
    )


@frozen(kw_only=True)
class RequireAdded:
    """A `require` entry that only an added file satisfies (an edit of an old one does not)."""

    path: str = field(
        metadata=doc("The glob an added regular file must match (named parts filled in).")
    )
    status: Literal["added"] = field(metadata=doc("`added`: only an added file counts."))


Requirement = str | RequireAdded
Targets = str | tuple[str, ...]


def require_glob(entry: Requirement) -> str:
    """The glob of one `require` entry."""
    return entry if isinstance(entry, str) else entry.path


def describe_requirement(entry: Requirement) -> str:
    """One `require` entry for messages: the glob, marked when only an added file counts."""
    return entry if isinstance(entry, str) else f"{entry.path} (added)"


def _optional_tuple(value: Iterable[str] | None) -> tuple[str, ...] | None:
    return None if value is None else tuple(value)


def _targets(value: str | Iterable[str]) -> Targets:
    return value if isinstance(value, str) else tuple(value)


@frozen(kw_only=True)
class RequiresRule:
    """If a selected path changes, each `require` glob must match an added or modified file."""

    id: str = _id()
    kind: Literal["requires"] = field(default="requires", metadata=_KIND)
    paths: tuple[str, ...] = _paths()
    ignores: tuple[str, ...] = _ignores()
    when: When = _when()
    format: Literal["requirements"] | None = _format()
    require: tuple[Requirement, ...] = field(
        converter=tuple,
        metadata=doc(
            "Each entry must match an added or modified regular file: a glob, or"
            ' { path = GLOB, status = "added" } when only an added file may satisfy it. A'
            " named part of paths ({app}) is what it matched, taken literally: each binding"
            " needs its own companion."
        ),
    )
    ignore_dependencies: tuple[str, ...] = _ignore_dependencies()
    reason: str = _reason()
    note: str | None = _note()
    severity: Severity = _severity()
    waive_label: str | None = _waive_label()
    waive_authors: tuple[str, ...] = _waive_authors()
    examples: Examples = _examples()


@frozen(kw_only=True)
class AddOnlyRule:
    """A selected path present at the baseline keeps its content, type and mode."""

    id: str = _id()
    kind: Literal["add_only"] = field(default="add_only", metadata=_KIND)
    paths: tuple[str, ...] = _paths()
    ignores: tuple[str, ...] = _ignores()
    ignore_whitespace: Whitespace | None = field(
        default=None,
        metadata=doc(
            "Optional: an edit that changes only whitespace does not count, as git diff's option"
            " of that name shows it: all-space (-w), space-change (-b) or space-at-eol"
            " (--ignore-space-at-eol). Unset: any edit counts. Where whitespace means something"
            " (Python's indentation, a string), all-space and space-change let a real change by."
        ),
    )
    reason: str = _reason()
    note: str | None = _note()
    severity: Severity = _severity()
    waive_label: str | None = _waive_label()
    waive_authors: tuple[str, ...] = _waive_authors()
    examples: Examples = _examples()


@frozen(kw_only=True)
class SiblingRule:
    """Each added selected path needs its rendered `target` added or modified in the change."""

    id: str = _id()
    kind: Literal["sibling"] = field(default="sibling", metadata=_KIND)
    paths: tuple[str, ...] = _paths()
    ignores: tuple[str, ...] = _ignores()
    target: Targets = field(
        converter=_targets,
        metadata=doc(
            "The companion path for an added file, from {dir}, {name} (last extension removed),"
            " {ext} and the named parts of paths; one exact path, no glob syntax. A list: any"
            " one of them satisfies."
        ),
    )
    reason: str = _reason()
    note: str | None = _note()
    severity: Severity = _severity()
    waive_label: str | None = _waive_label()
    waive_authors: tuple[str, ...] = _waive_authors()
    examples: Examples = _examples()

    @property
    def targets(self) -> tuple[str, ...]:
        """Every accepted target template, in the order written."""
        return (self.target,) if isinstance(self.target, str) else self.target


@frozen(kw_only=True)
class PrBodyRule:
    """If the selector fires, the PR body's `section` has substance (after `contains`, if set)
    and, with `checklist`, a task-list item."""

    id: str = _id()
    kind: Literal["pr_body"] = field(default="pr_body", metadata=_KIND)
    paths: tuple[str, ...] = _paths()
    ignores: tuple[str, ...] = _ignores()
    when: When = _when()
    format: Literal["requirements"] | None = _format()
    section: str = field(
        metadata=doc(
            "The heading of the PR description that must have substance: a name (Risk: `##"
            " Risk`, level 2) or the heading with its marks (`### AI usage`, level 3)."
        )
    )
    contains: str | None = field(
        default=None,
        metadata=doc("Literal, case-sensitive text that must appear there, followed by text."),
    )
    placeholders: tuple[str, ...] | None = field(
        default=None,
        converter=_optional_tuple,
        metadata=doc(
            "The words that are no answer in this section, instead of the default ones (TODO,"
            " TBD, TBA, N/A, NA, None, FIXME, XXX, WIP); [] for none, so that None is an answer."
        ),
    )
    checklist: bool = field(
        default=False,
        metadata=doc(
            "The section must also hold a task-list item (`- [ ] ...` or `- [x] ...`, ticked or"
            " not), as a checklist the PR template asks to keep."
        ),
    )
    ignore_dependencies: tuple[str, ...] = _ignore_dependencies()
    reason: str = _reason()
    note: str | None = _note()
    severity: Severity = _severity()
    waive_label: str | None = _waive_label()
    waive_authors: tuple[str, ...] = _waive_authors()
    examples: Examples = _examples()


__all__ = [
    "RULE_KINDS",
    "AddOnlyRule",
    "PrBodyRule",
    "RequireAdded",
    "Requirement",
    "RequiresRule",
    "Rule",
    "Severity",
    "SiblingRule",
    "Targets",
    "When",
    "describe_requirement",
    "require_glob",
]

Rule = RequiresRule | AddOnlyRule | SiblingRule | PrBodyRule
RULE_KINDS: dict[str, type[Rule]] = {
    "requires": RequiresRule,
    "add_only": AddOnlyRule,
    "sibling": SiblingRule,
    "pr_body": PrBodyRule,
}
