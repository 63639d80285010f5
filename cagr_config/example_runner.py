"""Running each rule's examples through the runtime evaluator (what `cagr rules test` does).

An invalid example must produce that rule's finding (at phase `turn`, a `pr_body` rule's deferred
obligation counts); a valid one must produce neither. Unchecked fails both: it is never evidence.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from attrs import frozen

import cagr_code
from cagr_core.changes import MODE_BY_KIND, Change, ChangeSet, Kind, Side
from cagr_core.evaluator import evaluate
from cagr_core.pull_request import Phase, PrBody
from cagr_core.render import render_details
from cagr_core.report import Report
from cagr_core.ruleset import RuleSet
from cagr_manifests import read_changes
from cagr_markdown import parsed

from .compile import compile_any
from .examples import Example, FixtureError, example_oid, fixture_changeset
from .rule_kinds import CodeExample

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .compile import JudgedRule

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


def _code_changes(example: CodeExample) -> ChangeSet:
    """A code example's file as a one-change ChangeSet: added without `before`, deleted
    without `after`, else modified."""
    sides = []
    for name, content in (("before", example.before), ("after", example.after)):
        data = None if content is None else content.encode("utf-8", "surrogateescape")
        side = None
        if data is not None:
            side = Side(MODE_BY_KIND[Kind.REGULAR], example_oid(example.path, name, content), data)
        sides.append(side)
    return ChangeSet((Change(example.path, sides[0], sides[1]),))


def _run(
    rule: JudgedRule, ruleset: RuleSet, label: Label, index: int, example: Example | CodeExample
) -> ExampleResult:
    try:
        if isinstance(example, CodeExample):
            changes = cagr_code.read_changes(ruleset, _code_changes(example))
            report = evaluate(ruleset, changes, PrBody.unavailable(), Phase.TURN)
        else:
            changes = read_changes(ruleset, fixture_changeset(example))
            report = evaluate(ruleset, changes, parsed(example.body), example.phase)
    except (FixtureError, ValueError) as error:
        return ExampleResult(
            rule.id, rule.kind, label, index, False, f"impossible example: {error}"
        )
    return _judged(rule, report, label, index)


def _judged(rule: JudgedRule, report: Report, label: Label, index: int) -> ExampleResult:
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


def run_examples(rules: Iterable[JudgedRule]) -> list[ExampleResult]:
    """Every example of every change, code and layout rule, in rule-id order, valid before
    invalid (guards' examples run through the shell reader: cagr_hooks.guards)."""
    results = []
    for rule in sorted(rules, key=lambda rule: rule.id):
        ruleset = RuleSet((compile_any(rule),))
        examples = rule.examples
        groups: tuple[tuple[Label, tuple[Example | CodeExample, ...]], ...] = (
            ("valid", examples.valid),
            ("invalid", examples.invalid),
        )
        for label, group in groups:
            for index, example in enumerate(group):
                results.append(_run(rule, ruleset, label, index, example))
    return results
