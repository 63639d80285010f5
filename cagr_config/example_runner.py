"""Running each rule's examples through the runtime evaluator (what `cagr rules test` does).

An invalid example must produce that rule's finding (at phase `turn`, a `pr_body` rule's deferred
obligation counts); a valid one must produce neither. Unchecked fails both: it is never evidence.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from attrs import frozen

from cagr_core.evaluator import evaluate
from cagr_core.render import render_details
from cagr_core.ruleset import RuleSet
from cagr_manifests import read_changes
from cagr_markdown import parsed

from .compile import compile_rule
from .examples import Example, FixtureError, fixture_changeset
from .rules import Rule

Label = Literal["valid", "invalid"]


@frozen
class ExampleResult:
    """One example's outcome: `said` is what the evaluator reported, for a failing example."""

    rule: str
    kind: str
    label: Label
    index: int
    ok: bool
    said: str

    @property
    def name(self) -> str:
        return f"{self.label}[{self.index}]"


def _run(rule: Rule, ruleset: RuleSet, label: Label, index: int, example: Example) -> ExampleResult:
    try:
        changes = read_changes(ruleset, fixture_changeset(example))
    except FixtureError as error:
        return ExampleResult(
            rule.id, rule.kind, label, index, False, f"impossible example: {error}"
        )
    report = evaluate(ruleset, changes, parsed(example.body), example.phase)
    fired = any(f.rule == rule.id for f in report.findings) or any(
        d.rule == rule.id for d in report.deferred
    )
    if report.unchecked:
        ok = False
        said = "unchecked, which is never a pass or a failure:\n" + render_details(report)
    elif label == "invalid":
        ok = fired
        said = "" if ok else "expected this rule to fail, but it passed"
    else:
        ok = not fired
        said = "" if ok else "expected this rule to pass, but:\n" + render_details(report)
    return ExampleResult(rule.id, rule.kind, label, index, ok, said)


def run_examples(rules: Iterable[Rule]) -> list[ExampleResult]:
    """Every example of every rule, in rule-id order, valid before invalid."""
    results = []
    for rule in sorted(rules, key=lambda rule: rule.id):
        ruleset = RuleSet((compile_rule(rule),))
        examples = rule.examples
        for label, group in (("valid", examples.valid), ("invalid", examples.invalid)):
            for index, example in enumerate(group):
                results.append(_run(rule, ruleset, label, index, example))  # type: ignore[arg-type]
    return results
