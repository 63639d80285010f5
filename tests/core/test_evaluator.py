"""The evaluator as a whole: caps, and rule order never mattering."""

from __future__ import annotations

from cagr_core import AddOnlyRule, ChangeSet, Limits, Phase, PrBody, RuleSet, evaluate

from .build import RANGE, modified
from .rules import GUARDS, MIGRATIONS, SCHEMA


class TestLimits:
    """Past a cap the result is unchecked with the cap named, never a partial pass."""

    def test_too_many_changes(self) -> None:
        changes = ChangeSet(tuple(modified(f"src/config/f{i}.ts") for i in range(11)))
        report = evaluate(
            RuleSet.compile([SCHEMA]), changes, PrBody(None), Phase.CI, Limits(max_changes=10)
        )
        assert report.status == "unchecked"
        assert report.findings == ()
        assert "11 changed paths are more than the 10" in report.unchecked[0].message

    def test_too_many_rules(self) -> None:
        rules = [AddOnlyRule(id=f"r{i}", paths=["m/**"], reason="x") for i in range(3)]
        report = evaluate(
            RuleSet.compile(rules), ChangeSet(), PrBody(None), Phase.CI, Limits(max_rules=2)
        )
        assert report.status == "unchecked"
        assert "3 change rules are more than the 2" in report.unchecked[0].message


def test_rule_order_never_changes_the_report() -> None:
    changes = ChangeSet((modified("src/config/schema.ts"), modified("migrations/001.sql")), RANGE)
    rules = [SCHEMA, GUARDS, MIGRATIONS]
    reports = {
        evaluate(RuleSet.compile(order), changes, PrBody(None), Phase.CI)
        for order in (rules, rules[::-1], rules[1:] + rules[:1])
    }
    assert len(reports) == 1
    (report,) = reports
    assert [f.rule for f in report.findings] == ["immutable-migrations", "schema-companion"]
