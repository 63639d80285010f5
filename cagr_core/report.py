"""What an evaluation says: findings, unchecked items and deferred PR-body obligations."""

from __future__ import annotations

from typing import Literal

from attrs import frozen

from .changes import Range, Unchecked

__all__ = ["ConfigChanges", "Deferred", "Finding", "Report", "Timings", "Verdict"]

Verdict = Literal["pass", "fail", "unchecked"]


@frozen
class Finding:
    """One violated obligation: what changed and what is missing (`message`), and the fix."""

    rule: str
    kind: str
    message: str
    fix: str
    paths: tuple[str, ...]


@frozen
class Deferred:
    """A PR-body obligation that fired where no body is required yet (an agent's turn end)."""

    rule: str
    section: str
    contains: str | None
    message: str
    fix: str


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
    config_changes: ConfigChanges | None = None

    @property
    def status(self) -> Verdict:
        if self.findings:
            return "fail"
        if self.unchecked:
            return "unchecked"
        return "pass"
