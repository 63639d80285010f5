"""The compiled configuration: what a check reads of it, and what cagr keeps between calls.

Standard library and the core's values only: a check that reads a kept configuration (see
`kept`) never loads the config model, cattrs or wcmatch.
"""

from __future__ import annotations

from cagr_core.guards import Guard
from cagr_core.ruleset import RuleSet
from cagr_core.values import value


@value
class StackRun:
    """One `[stack]` check command: the command line, and the globs that make it apply (none:
    it always runs)."""

    run: str
    paths: tuple[str, ...] = ()


@value
class Settings:
    """`[git] protected_branch`, `[review] pr_sections`, `[stack] on_turn_end` and `ci`."""

    protected_branch: str | None = None
    pr_sections: tuple[str, ...] = ()
    on_turn_end: tuple[StackRun, ...] = ()
    ci: tuple[StackRun, ...] = ()


@value
class Compiled:
    """A configuration compiled: its rules (change, code and layout rules), its other settings,
    a digest of the effective rules (stable across formatting and source order), the file each
    rule is declared in, the configured command guards and the built-in guards turned off."""

    rules: RuleSet
    settings: Settings
    rules_digest: str
    rule_sources: tuple[tuple[str, str], ...]  # (rule id, source file)
    guards: tuple[Guard, ...] = ()
    disabled_guards: tuple[str, ...] = ()
