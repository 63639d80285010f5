"""The evaluator as a whole: caps, and rule order never mattering."""

from __future__ import annotations

from unittest import mock

from cagr_config.compile import compile_rules
from cagr_config.rules import AddOnlyRule, RequiresRule
from cagr_core.changes import ChangeSet
from cagr_core.evaluator import Limits
from cagr_core.globs import PathMatcher
from cagr_core.pull_request import Phase, PrBody
from tests.support.build import RANGE, deleted, modified
from tests.support.evaluation import judge
from tests.support.rules import GUARDS, MIGRATIONS, SCHEMA


class TestLimits:
    """Past a cap the result is unchecked with the cap named, never a partial pass."""

    def test_too_many_changes(self) -> None:
        changes = ChangeSet(tuple(modified(f"src/config/f{i}.ts") for i in range(11)))
        report = judge(
            compile_rules([SCHEMA]), changes, PrBody(None), Phase.CI, Limits(max_changes=10)
        )
        assert report.status == "unchecked"
        assert report.findings == ()
        assert "11 changed paths are more than the 10" in report.unchecked[0].message

    def test_too_many_rules(self) -> None:
        rules = [AddOnlyRule(id=f"r{i}", paths=["m/**"], reason="x") for i in range(3)]
        report = judge(
            compile_rules(rules), ChangeSet(), PrBody(None), Phase.CI, Limits(max_rules=2)
        )
        assert report.status == "unchecked"
        assert "3 change rules are more than the 2" in report.unchecked[0].message


def test_rule_order_never_changes_the_report() -> None:
    changes = ChangeSet((modified("src/config/schema.ts"), modified("migrations/001.sql")), RANGE)
    rules = [SCHEMA, GUARDS, MIGRATIONS]
    reports = {
        judge(compile_rules(order), changes, PrBody(None), Phase.CI)
        for order in (rules, rules[::-1], rules[1:] + rules[:1])
    }
    assert len(reports) == 1
    (report,) = reports
    assert [f.rule for f in report.findings] == ["immutable-migrations", "schema-companion"]


def test_failing_requires_rules_take_their_near_misses_from_the_index() -> None:
    """Each failing rule names the first change its missing entry matches (a near miss); that
    comes from the one walk over the paths, not from trying the entry on every change."""
    rules = [
        RequiresRule(
            id=f"r{n:03}", paths=[f"p{n:03}/src/**"], require=[f"p{n:03}/NEWS.md"], reason="x"
        )
        for n in range(100)
    ]
    changes = [modified(f"p{n:03}/src/f{i}.py") for n in range(100) for i in range(20)]
    changes.append(deleted("p007/NEWS.md"))  # one near miss, which does not count
    tried = 0
    real = PathMatcher.matches

    def counted(self: PathMatcher, path: str) -> bool:
        nonlocal tried
        tried += 1
        return real(self, path)

    ruleset = compile_rules(rules)
    with mock.patch.object(PathMatcher, "matches", counted):
        report = judge(ruleset, ChangeSet(tuple(changes), RANGE), PrBody(None), Phase.CI)
    assert len(report.findings) == 100
    near = next(f for f in report.findings if f.rule == "r007")
    assert near.paths[-1] == "p007/NEWS.md"
    assert "p007/NEWS.md was deleted, which does not count" in near.message
    # Each path is tried by the few matchers the index proposes for it (its package's trigger),
    # never by all 100 missing entries: the scan this replaced made 100 x 2,001 tries.
    assert tried <= 2 * len(changes)
    assert report == judge(
        ruleset, ChangeSet(tuple(changes), RANGE), PrBody(None), Phase.CI, naive=True
    )
