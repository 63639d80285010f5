"""`rules test` semantics: examples through the runtime evaluator, catching broken matching."""

from __future__ import annotations

import attrs
import pytest

from cagr_config.example_runner import run_examples
from cagr_config.examples import Example, Examples, FixtureChange
from cagr_config.rules import Rule
from cagr_core.changes import Status
from cagr_core.pull_request import Phase
from tests.support.rules import DEPENDENCY_REASON, GUARDS, MIGRATIONS, SCHEMA


def ex(
    *changes: tuple[str, str], body: str | None = None, phase: Phase = Phase.CI, **content: str
) -> Example:
    """An example: (path, status) pairs; `before`/`after` content goes to the first path."""
    items = [FixtureChange(path=path, status=Status(status)) for path, status in changes]
    if content:
        items = [attrs.evolve(items[0], **content), *items[1:]]
    return Example(changes=items, pr_body=body, phase=phase)


# The acceptance tests' rules, given the proposal's examples.
SCHEMA = attrs.evolve(
    SCHEMA,
    examples=Examples(
        valid=[ex(("src/config/schema.ts", "M"), ("schema/cagr.schema.json", "M"))],
        invalid=[ex(("src/config/schema.ts", "M"))],
    ),
)
GUARDS = attrs.evolve(
    GUARDS,
    examples=Examples(
        valid=[ex(("src/guards/a.ts", "A"), ("src/guards/a.test.ts", "A"))],
        invalid=[ex(("src/guards/a.ts", "A"))],
    ),
)
MIGRATIONS = attrs.evolve(
    MIGRATIONS,
    examples=Examples(
        valid=[ex(("migrations/002.sql", "A"))], invalid=[ex(("migrations/001.sql", "M"))]
    ),
)
ADDS_X = {"before": "{}", "after": '{"dependencies":{"x":"1"}}'}
DEPENDENCY = attrs.evolve(
    DEPENDENCY_REASON,
    examples=Examples(
        valid=[
            ex(("package.json", "M"), body="## Risk\nDependency reason: wire format.", **ADDS_X)
        ],
        invalid=[
            ex(("package.json", "M"), body="## Risk\nNone", **ADDS_X),
            ex(("package.json", "M"), phase=Phase.TURN, **ADDS_X),
        ],
    ),
)
ALL = [SCHEMA, GUARDS, MIGRATIONS, DEPENDENCY]


def failures(*rules: Rule) -> list[str]:
    return [f"{r.rule} {r.name}" for r in run_examples(rules) if not r.ok]


def test_correct_rules_pass_their_examples() -> None:
    results = run_examples(ALL)
    assert len(results) == 9
    assert all(r.ok for r in results), [r.said for r in results if not r.ok]


@pytest.mark.parametrize(
    ("rule", "change", "broken"),
    [
        (SCHEMA, {"paths": ("src/config/schema.js",)}, "schema-companion invalid[0]"),
        (SCHEMA, {"require": ("schema/*.yaml",)}, "schema-companion valid[0]"),
        (GUARDS, {"target": "{dir}/{name}.spec.{ext}"}, "guard-tests valid[0]"),
        (GUARDS, {"ignores": ("**/*.ts",)}, "guard-tests invalid[0]"),
        (MIGRATIONS, {"paths": ("migration/**",)}, "immutable-migrations invalid[0]"),
        (DEPENDENCY, {"contains": "None"}, "dependency-reason valid[0]"),
        (DEPENDENCY, {"section": "Summary"}, "dependency-reason valid[0]"),
    ],
)
def test_deliberately_broken_matching_is_caught(
    rule: Rule, change: dict[str, object], broken: str
) -> None:
    assert failures(rule) == []
    assert broken in failures(attrs.evolve(rule, **change))


def test_unchecked_fails_both_valid_and_invalid() -> None:
    rule = attrs.evolve(
        DEPENDENCY,
        examples=Examples(
            valid=[ex(("package.json", "M"), before="{", after="{}", body="")],
            invalid=[ex(("package.json", "M"), **ADDS_X)],
        ),
    )
    results = run_examples([rule])
    assert [r.ok for r in results] == [False, False]
    assert all(r.said.startswith("unchecked") for r in results)


def test_turn_phase_invalid_example_means_deferred() -> None:
    turn_only = attrs.evolve(
        DEPENDENCY,
        examples=Examples(
            valid=[ex(("README.md", "M"), phase=Phase.TURN)],
            invalid=[ex(("package.json", "M"), phase=Phase.TURN, **ADDS_X)],
        ),
    )
    assert failures(turn_only) == []


def test_failure_says_what_the_evaluator_said() -> None:
    broken = attrs.evolve(SCHEMA, require=("schema/*.yaml",))
    (result,) = [r for r in run_examples([broken]) if not r.ok]
    assert result.said.startswith(
        "expected this rule to pass, but:\nChange rule schema-companion failed."
    )
    assert "nothing matching schema/*.yaml changed" in result.said
