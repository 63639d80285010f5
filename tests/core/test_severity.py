"""Severity: a `warn` rule's findings (and undecided items) are shown and never change the
verdict; `cagr rules test` holds warn and error rules to the same examples."""

from __future__ import annotations

import tomllib

from attrs import evolve

from cagr_config.example_runner import run_examples
from cagr_config.rules import RequiresRule, Severity
from cagr_config.validate import structure_config
from cagr_core.render import render_summary, render_text
from cagr_core.report_json import report_data
from tests.support.build import check, modified
from tests.support.rules import DEPENDENCY_REASON, bump


class TestSeverity:
    def test_warn_findings_are_shown_and_pass(self) -> None:
        rule = RequiresRule(
            id="r", paths=["a"], require=["b"], reason="Change b.", severity=Severity.WARN
        )
        report = check(rule, modified("a"))
        assert report.status == "pass"
        assert render_text(report).startswith("Warning: change rule r (merge base abc1234")
        assert "Instead: Change b." in render_text(report)
        assert "0 finding(s), 1 warning(s), 0 unchecked" in render_summary(report)
        assert report_data(report)["findings"][0]["severity"] == "warn"

    def test_a_warn_rule_left_unchecked_does_not_change_the_verdict(self) -> None:
        rule = evolve(DEPENDENCY_REASON, severity=Severity.WARN)
        report = check(rule, bump("{}", "{not json"), body="## Risk\nx")
        (item,) = report.unchecked
        assert item.severity is Severity.WARN
        assert report.status == "pass"
        assert "(severity warn: does not change the verdict)" in render_text(report)

    def test_rules_test_treats_warn_and_error_alike(self) -> None:
        text = _toml(
            'id = "r"\nkind = "requires"\npaths = ["a"]\nrequire = ["b"]\nreason = "x"\n'
            'severity = "warn"\n'
            'examples.invalid = [{ changes = [{ path = "a", status = "M" }, { path = "b",'
            ' status = "M" }] }]\n'
            'examples.valid = [{ changes = [{ path = "a", status = "M" }] }]\n'
        )
        results = run_examples(text.changes.rules)
        assert [r.ok for r in results] == [False, False]


def _toml(text: str):  # type: ignore[no-untyped-def]
    config, issues = structure_config(tomllib.loads("[[changes.rules]]\n" + text), "cagr.toml")
    assert issues == []
    assert config is not None
    return config
