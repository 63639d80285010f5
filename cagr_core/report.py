"""What an evaluation says: findings, unchecked items and deferred PR-body obligations."""

from __future__ import annotations

from typing import Literal

from attrs import frozen

from .changes import Range, Unchecked

__all__ = [
    "AddedDependency",
    "ConfigChanges",
    "Deferred",
    "Finding",
    "Report",
    "Timings",
    "Verdict",
    "each_rule_first",
]

Verdict = Literal["pass", "fail", "unchecked"]


@frozen
class AddedDependency:
    """A dependency a manifest change adds: its name, the manifest's section, and the manifest."""

    name: str
    section: str
    manifest: str


@frozen
class Finding:
    """One violated obligation: what changed and what is missing (`message`), and the fix.

    `paths` are repository paths only: the changes that fired the rule and the changed paths at
    fault. What was required goes apart: `requires`, the `require` globs (as written) nothing in
    the change satisfied; `target`, the path a sibling rule wanted; `dependencies`, every
    dependency that fired a `dependency_added` rule (its message names only the first few).
    """

    rule: str
    kind: str
    message: str
    fix: str
    paths: tuple[str, ...]
    requires: tuple[str, ...] = ()
    target: str | None = None
    dependencies: tuple[AddedDependency, ...] = ()


@frozen
class Deferred:
    """A PR-body obligation that fired where no body is required yet (an agent's turn end).

    `trigger` says what fired it ('Added dependencies.x in package.json'), so a later check of
    the body (the PR gate) can word its finding exactly as CI would. `dependencies` lists every
    added dependency that fired it; the message and trigger name the first few.
    """

    rule: str
    section: str
    contains: str | None
    message: str
    fix: str
    trigger: str = ""
    dependencies: tuple[AddedDependency, ...] = ()


@frozen
class Timings:
    """Milliseconds spent, measured by the adapter that ran the stages."""

    collect_ms: float | None = None
    evaluate_ms: float | None = None


@frozen
class ConfigChanges:
    """How the change edits cagr's own configuration, against the merge base: the rules that
    judge this change are partly its own."""

    files: tuple[str, ...]  # the config files the change adds, edits or deletes
    added: tuple[str, ...] = ()  # rule ids
    removed: tuple[str, ...] = ()
    changed: tuple[str, ...] = ()
    settings: tuple[str, ...] = ()  # other keys whose value changed, e.g. git.protected_branch
    note: str | None = None  # what else to know: the base's rules unreadable, a self-target

    def describe(self) -> str:
        """One paragraph for reports."""
        parts = [
            f"{label} {', '.join(ids)}"
            for label, ids in (
                ("rules added:", self.added),
                ("rules removed:", self.removed),
                ("rules changed:", self.changed),
                ("settings changed:", self.settings),
            )
            if ids
        ]
        if self.note is not None:
            parts.append(self.note)
        head = (
            f"This change edits cagr's own configuration ({', '.join(self.files)}) against the"
            " merge base"
            if self.files
            else "This check was shaped by the checkout's own cagr configuration"
        )
        return (
            f"{head}: {'; '.join(parts)}. The rules that judged it are partly its own;"
            " review those edits like code."
        )


@frozen
class Report:
    """The verdict on one change set. Findings win over unchecked; only neither is a pass."""

    findings: tuple[Finding, ...] = ()
    unchecked: tuple[Unchecked, ...] = ()
    deferred: tuple[Deferred, ...] = ()
    range: Range | None = None
    pending_staged: tuple[str, ...] = ()
    timings: Timings = Timings()
    rules_checked: int = 0  # rules run on the change: 0 when it could not be collected or capped
    changed_paths: int = 0
    uncommitted: int | None = None  # committed checks: paths the working tree has otherwise
    config_changes: ConfigChanges | None = None

    @property
    def status(self) -> Verdict:
        if self.findings:
            return "fail"
        if self.unchecked:
            return "unchecked"
        return "pass"


def each_rule_first(findings: tuple[Finding, ...]) -> list[Finding]:
    """Findings taken a rule at a time (each rule's first, then each rule's second, ...), so
    that any first N of them cover every failing rule before any rule's Nth finding."""
    by_rule: dict[str, list[Finding]] = {}
    for finding in findings:
        by_rule.setdefault(finding.rule, []).append(finding)
    ordered: list[Finding] = []
    for rank in range(max((len(group) for group in by_rule.values()), default=0)):
        ordered.extend(group[rank] for group in by_rule.values() if rank < len(group))
    return ordered
