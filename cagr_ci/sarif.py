"""A SARIF 2.1.0 log of a CI run's findings, for code scanning (`cagr ci --sarif FILE`).

One rule descriptor per rule that has findings (its fix is the help text), one
result per finding on its first path (file level: change rules judge files, not lines), at
level `warning` for a `warn` rule, and unchecked items as tool notifications, so a log of an
incomplete check never reads as clean. A finding a pull-request label waived is a result with
an external suppression whose justification names the label.
Findings without a path (`[review].pr_sections`) are results without a location: valid SARIF,
though code scanning lists only results it can place in a file.
"""

from __future__ import annotations

import hashlib
from typing import Any
from urllib.parse import quote

from cagr_core.report import Finding
from cagr_core.severity import Severity
from cagr_core.version import VERSION

from .run import CiResult

SCHEMA = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)


def path_uri(path: str) -> str:
    """A repo-relative path as a relative URI reference (every byte outside the unreserved
    set percent-encoded; names that are not UTF-8 keep their original bytes)."""
    return quote(path.encode("utf-8", "surrogateescape"), safe="/-._~")


def _fingerprint(finding: Finding) -> str:
    text = "\0".join([finding.rule, finding.message, *finding.paths])
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()[:32]


def sarif_log(result: CiResult) -> dict[str, Any]:
    """The log of one run (one SARIF run)."""
    report = result.report
    shown = [(finding, None) for finding in report.findings] + [
        (waived.finding, waived.label) for waived in report.waived
    ]
    findings = tuple(finding for finding, _ in shown)
    rule_ids = list(dict.fromkeys(finding.rule for finding in findings))
    rules = [
        {
            "id": rule,
            "shortDescription": {"text": f"cagr change rule {rule}"},
            "help": {"text": _first_fix(findings, rule)},
            "defaultConfiguration": {"level": _level(_first(findings, rule))},
            "properties": {"kind": _first(findings, rule).kind},
        }
        for rule in rule_ids
    ]
    results = [
        {
            "ruleId": finding.rule,
            "ruleIndex": rule_ids.index(finding.rule),
            "kind": "fail",
            "level": _level(finding),
            "message": {"text": f"{finding.message} Instead: {finding.fix}"},
            "locations": [_location(path) for path in finding.paths[:1]],
            "partialFingerprints": {"cagrFinding/v1": _fingerprint(finding)},
            **({} if label is None else {"suppressions": [_suppression(label)]}),
        }
        for finding, label in shown
    ]
    notifications = [
        {
            "level": "warning",
            "message": {"text": f"Unchecked ({item.stage.value}): {item.message}"},
            **({"locations": [_location(item.path)]} if item.path else {}),
        }
        for item in result.report.unchecked
    ] + [
        {"level": "error", "message": {"text": f"{problem.message} Instead: {problem.fix}"}}
        for problem in result.problems
    ]
    invocation: dict[str, Any] = {"executionSuccessful": not result.report.unchecked}
    if notifications:
        invocation["toolExecutionNotifications"] = notifications
    run: dict[str, Any] = {
        "tool": {
            "driver": {
                "name": "cagr",
                "version": VERSION,
                "rules": rules,
            }
        },
        "invocations": [invocation],
        "results": results,
    }
    if result.report.range is not None:
        range_ = result.report.range
        run["properties"] = {
            "target": range_.target,
            "mergeBase": range_.base,
            "head": range_.head,
        }
    return {"$schema": SCHEMA, "version": "2.1.0", "runs": [run]}


def _location(path: str) -> dict[str, Any]:
    return {
        "physicalLocation": {
            "artifactLocation": {"uri": path_uri(path), "uriBaseId": "%SRCROOT%"},
            "region": {"startLine": 1},
        }
    }


def _suppression(label: str) -> dict[str, Any]:
    """A waived finding: suppressed outside the code, by the pull request's label."""
    return {
        "kind": "external",
        "status": "accepted",
        "justification": f"waived by the pull request label {label}",
    }


def _level(finding: Finding) -> str:
    return "warning" if finding.severity is Severity.WARN else "error"


def _first(findings: tuple[Finding, ...], rule: str) -> Finding:
    return next(f for f in findings if f.rule == rule)


def _first_fix(findings: tuple[Finding, ...], rule: str) -> str:
    return _first(findings, rule).fix
