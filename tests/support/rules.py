"""The four example rules of docs/rules.md, shared by the core tests that exercise them."""

from __future__ import annotations

import json

from cagr_config.rules import AddOnlyRule, PrBodyRule, RequiresRule, SiblingRule
from cagr_core.changes import Change
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
