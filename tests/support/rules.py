"""The four example rules of docs/rules.md, shared by the core tests that exercise them, and
makers of code and layout rules compiled for the core."""

from __future__ import annotations

import json

from cagr_config.compile import compile_code_rule, compile_layout_rule
from cagr_config.rule_kinds import CodeRule, LayoutRule
from cagr_config.rules import AddOnlyRule, PrBodyRule, RequiresRule, SiblingRule
from cagr_core.changes import Change
from cagr_core.ruleset import CompiledRule
from cagr_core.when import When
from tests.support.build import modified

SCHEMA = RequiresRule(
    id="schema-companion",
    paths=["src/config/schema.ts"],
    require=["schema/cagr.schema.json"],
    reason="Run `bun run schema` and include schema/cagr.schema.json in this change.",
)
GUARDS = SiblingRule(
    id="guard-tests",
    paths=["src/guards/**/*.ts"],
    ignores=["**/*.test.ts"],
    target="{dir}/{name}.test.{ext}",
    reason="Add or update the matching .test.ts file in this change.",
)
MIGRATIONS = AddOnlyRule(
    id="immutable-migrations",
    paths=["migrations/**"],
    reason="Restore the merged migration and add a new migration instead.",
)
DEPENDENCY_REASON = PrBodyRule(
    id="dependency-reason",
    paths=["package.json"],
    when=When.DEPENDENCY_ADDED,
    section="Risk",
    contains="Dependency reason:",
    reason="In the PR body's Risk section, write `Dependency reason:` and explain why the new"
    " dependency is needed.",
)
GOOD_BODY = "## Risk\nDependency reason: x reads the required wire format."


def manifest(**sections: dict[str, str]) -> str:
    """A package.json text with these dependency sections."""
    return json.dumps(sections)


def bump(before: str, after: str, path: str = "package.json") -> Change:
    """A manifest edit from `before` to `after`."""
    return modified(path, before, after)


def code_rule(  # a code rule's keys, each with a default
    rule_id: str,
    rule: dict[str, object],
    *,
    paths: tuple[str, ...] = ("**",),
    language: str = "python",
    scope: str = "new",
) -> CompiledRule:
    """A code rule compiled for the core, without examples."""
    return compile_code_rule(
        CodeRule(
            id=rule_id,
            language=language,
            paths=paths,
            rule=rule,
            scope=scope,  # type: ignore[arg-type]
            reason="Fix it.",
        )
    )


def layout_rule(
    rule_id: str, *, name: str | None = None, forbid: bool = False, paths: tuple[str, ...] = ("**",)
) -> CompiledRule:
    """A layout rule compiled for the core, without examples."""
    return compile_layout_rule(
        LayoutRule(id=rule_id, paths=paths, name=name, forbid=forbid, reason="Rename it.")
    )
