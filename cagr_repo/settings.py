"""What a check reads of the configuration besides its rules: the target branch, the headings
every PR needs, and the `[stack]` check commands."""

from __future__ import annotations

from cagr_core.values import frozen


@frozen
class StackRun:
    """One `[stack]` check command: the command line, and the globs that make it apply (none:
    it always runs)."""

    run: str
    paths: tuple[str, ...] = ()


@frozen
class Settings:
    """`[git] protected_branch`, `[review] pr_sections`, `[stack] on_turn_end` and `ci`."""

    protected_branch: str | None = None
    pr_sections: tuple[str, ...] = ()
    on_turn_end: tuple[StackRun, ...] = ()
    ci: tuple[StackRun, ...] = ()
