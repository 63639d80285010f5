"""What an evaluation says: findings, unchecked items and deferred PR-body obligations."""

from __future__ import annotations

from typing import Literal

from attrs import frozen

from .changes import Range, Unchecked

__all__ = ["Deferred", "Finding", "Report", "Timings", "Verdict"]

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
    """A PR-body obligation that fired where no body is required yet (an agent's turn end).

    `trigger` says what fired it ('Added dependencies.x in package.json'), so a later check of
    the body (the PR gate) can word its finding exactly as CI would.
    """

    rule: str
    section: str
    contains: str | None
    message: str
    fix: str
    trigger: str = ""


@frozen
class Timings:
    """Milliseconds spent, measured by the adapter that ran the stages."""

    collect_ms: float | None = None
    evaluate_ms: float | None = None


@frozen
class Report:
    """The verdict on one change set. Findings win over unchecked; only neither is a pass."""

    findings: tuple[Finding, ...] = ()
    unchecked: tuple[Unchecked, ...] = ()
    deferred: tuple[Deferred, ...] = ()
    range: Range | None = None
    pending_staged: tuple[str, ...] = ()
    timings: Timings = Timings()

    @property
    def status(self) -> Verdict:
        if self.findings:
            return "fail"
        if self.unchecked:
            return "unchecked"
        return "pass"
