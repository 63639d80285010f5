"""What an evaluation says: findings, unchecked items and deferred PR-body obligations."""

from __future__ import annotations

from .changes import Range, Unchecked
from .severity import Severity
from .values import replace, value

__all__ = [
    "AddedDependency",
    "ConfigChanges",
    "Deferred",
    "Finding",
    "Report",
    "TargetRules",
    "Timings",
    "UncommittedConfig",
    "Verdict",
    "Waived",
    "each_rule_first",
    "waive",
]

TYPE_CHECKING = False  # not typing's: a check need not import it
if TYPE_CHECKING:
    from typing import Literal

    Verdict = Literal["pass", "fail", "unchecked", "waived"]
else:
    Verdict = str  # what a Verdict is at run time


HEAD = "head"  # the branch's own configuration (a working-tree check: the working tree's)
TARGET = "target"  # the configuration at the target commit (CI judges by it too)
BOTH = "both"  # a rule both configurations hold alike
CONFIG_SOURCES = (HEAD, TARGET, BOTH)


@value
class AddedDependency:
    """A dependency a manifest change adds: its name as written, the manifest's section as
    written (None for a requirements file, which has none), and the manifest's path. `change`:
    `added`, or for a `dependency_changed` rule `removed` or `changed` (its requirement)."""

    name: str
    section: str | None
    manifest: str
    change: str = "added"


@value
class Finding:
    """One violated obligation: what changed and what is missing (`message`), and the fix.

    `paths` are repository paths only: the changes that fired the rule and the changed paths at
    fault. What was required goes apart: `requires`, the `require` entries (as written, an
    added-only entry marked `(added)`) nothing in the change satisfied; `targets`, every path a
    sibling rule would accept, and `target` the first of them; `dependencies`, every dependency
    that fired a `dependency_added` rule (its message names only the first few); `parts`, what
    the named parts of the rule's paths matched for this obligation. `severity`, `waive_label`
    and `waive_authors` are the rule's; `config_source` says whose rule it is: the branch's own
    (HEAD), the target's (TARGET: a rule the branch removed, or the target's form of a rule it
    changed) or a rule both hold alike (BOTH). A code rule's finding has the match's `line` and
    `column` (1-based) in its one path; other findings judge whole files (None).
    """

    rule: str
    kind: str
    message: str
    fix: str
    paths: tuple[str, ...]
    requires: tuple[str, ...] = ()
    target: str | None = None
    dependencies: tuple[AddedDependency, ...] = ()
    severity: Severity = Severity.ERROR
    waive_label: str | None = None
    targets: tuple[str, ...] = ()
    parts: tuple[tuple[str, str], ...] = ()
    waive_authors: tuple[str, ...] = ()
    config_source: str = HEAD  # which configuration's rule found it: HEAD, TARGET or BOTH
    line: int | None = None
    column: int | None = None


@value
class Waived:
    """A finding a CI run did not count: the pull request carries the rule's `label`, or was
    opened by one of its `waive_authors` (`author`); exactly one of the two is set."""

    finding: Finding
    label: str | None = None
    author: str | None = None

    @property
    def by(self) -> str:
        """What waived it, for messages: `label no-migration` or `author renovate[bot]`."""
        return f"label {self.label}" if self.label is not None else f"author {self.author}"


@value
class Deferred:
    """A PR-body obligation that fired where no body is required yet (an agent's turn end).

    `trigger` says what fired it ('Added dependencies.x in package.json'), so a later check of
    the body (the PR gate) can word its finding exactly as CI would; `paths` are the changes
    that fired it. `dependencies` lists every added dependency that fired it; the message and
    trigger name the first few.
    """

    rule: str
    section: str
    contains: str | None
    message: str
    fix: str
    trigger: str = ""
    dependencies: tuple[AddedDependency, ...] = ()
    severity: Severity = Severity.ERROR
    waive_label: str | None = None
    paths: tuple[str, ...] = ()
    placeholders: tuple[str, ...] | None = None  # the rule's own placeholder words, if any
    waive_authors: tuple[str, ...] = ()
    checklist: bool = False  # the section must hold a task-list item


@value
class Timings:
    """Milliseconds spent, measured by the adapter that ran the stages."""

    collect_ms: float | None = None
    evaluate_ms: float | None = None


@value
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


@value
class UncommittedConfig:
    """A committed check judged by HEAD's rules while the working tree's configuration differs:
    what the working tree has that HEAD does not (rule ids; other keys whose value differs)."""

    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    changed: tuple[str, ...] = ()
    settings: tuple[str, ...] = ()
    note: str | None = None  # what else: the working tree's is invalid, or lacks a file

    def describe(self) -> str:
        """One line for the top of a report."""
        parts = [
            f"{label} {', '.join(ids)}"
            for label, ids in (
                ("rules only in the working tree:", self.added),
                ("rules only at HEAD:", self.removed),
                ("rules that differ:", self.changed),
                ("settings that differ:", self.settings),
            )
            if ids
        ]
        if self.note is not None:
            parts.append(self.note)
        listed = f" ({'; '.join(parts)})" if parts else ""
        return (
            "Judged by the rules committed at HEAD; the working tree's cagr configuration"
            f" differs{listed} and did not judge: commit it to have it count."
        )


@value
class TargetRules:
    """The target's configuration beside the branch's: the rules only the target has
    (`only_target`: the branch removed them, or the target added them since), only the branch
    has (`only_head`), or both have in other forms (`changed`), the settings that differ, and
    `invalid`, why the target's cannot judge (its problems, or why git cannot give its files).
    `judged`: the target's rules judged this check too (CI); otherwise the report only says how
    they differ (local checks)."""

    commit: str
    judged: bool
    only_target: tuple[str, ...] = ()
    only_head: tuple[str, ...] = ()
    changed: tuple[str, ...] = ()
    settings: tuple[str, ...] = ()
    invalid: str | None = None

    def loosens(self) -> bool:
        """Whether the branch's own rules may judge less than the target's do."""
        settings = {"review.pr_sections", "stack.ci"} & set(self.settings)
        return bool(self.only_target or self.changed or settings or self.invalid)

    def describe(self) -> str:
        """One paragraph for reports."""
        at = f"the target's configuration (at {self.commit[:7]})"
        if self.invalid is not None:
            judged = (
                "only this branch's rules judged. In CI a change that edits cagr's configuration"
                " (it may be the repair) is judged by its own rules alone, and any other change"
                " is unchecked until the target's configuration is repaired"
            )
            return f"{at[0].upper()}{at[1:]} cannot judge ({self.invalid}); {judged}."
        parts = [
            f"{label} {', '.join(ids)}"
            for label, ids in (
                ("rules only the target has:", self.only_target),
                ("rules whose forms differ:", self.changed),
                ("rules only this branch has:", self.only_head),
                ("settings that differ:", self.settings),
            )
            if ids
        ]
        if self.judged:
            return (
                f"Judged by {at} and by this branch's own ({'; '.join(parts)}): a rule only the"
                " target has judges as the target has it, a rule whose forms differ judges in"
                " both, and [review].pr_sections and [stack].ci are the union of both."
            )
        return (
            f"This branch's cagr configuration differs from {at} ({'; '.join(parts)}). It"
            " judged this check; `cagr ci` judges by both, so a rule only the target has, or"
            " changed here, judges there as the target has it too."
        )


@value
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
    waived: tuple[Waived, ...] = ()
    uncommitted_config: UncommittedConfig | None = None
    config_sources: tuple[str, ...] = (HEAD,)  # whose rules judged: (TARGET, HEAD) in CI
    target_config: TargetRules | None = None  # how the target's rules differ (None: alike)
    rules_filter: tuple[str, ...] | None = None  # only these rules ran (`--rule`); None: all
    fired: tuple[str, ...] = ()  # the rules whose trigger the change matched, met or not

    @property
    def errors(self) -> tuple[Finding, ...]:
        """The findings that fail the check (severity error)."""
        return tuple(f for f in self.findings if f.severity is Severity.ERROR)

    @property
    def warnings(self) -> tuple[Finding, ...]:
        """The findings of `warn` rules: shown, never failing."""
        return tuple(f for f in self.findings if f.severity is Severity.WARN)

    @property
    def status(self) -> Verdict:
        """fail: an error finding; unchecked: an error rule (or the change) undecided; waived:
        findings a label waived; else pass. `warn` rules never change it."""
        if self.errors:
            return "fail"
        if any(item.severity is Severity.ERROR for item in self.unchecked):
            return "unchecked"
        if self.waived:
            return "waived"
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


def same_account(one: str, other: str) -> bool:
    """Whether two logins name one account: GitHub and GitLab compare them ignoring case."""
    return one.casefold() == other.casefold()


def waive(report: Report, labels: frozenset[str] | None, author: str | None = None) -> Report:
    """The report with each finding whose rule's `waive_label` is among `labels`, or whose
    `waive_authors` name `author`, moved to `waived` (only CI knows a pull request's labels
    and author; nothing else calls this)."""
    kept: list[Finding] = []
    waived: list[Waived] = []
    for finding in report.findings:
        if labels is not None and finding.waive_label is not None and finding.waive_label in labels:
            waived.append(Waived(finding, label=finding.waive_label))
        elif author is not None and any(same_account(author, a) for a in finding.waive_authors):
            waived.append(Waived(finding, author=author))
        else:
            kept.append(finding)
    return replace(report, findings=tuple(kept), waived=report.waived + tuple(waived))
