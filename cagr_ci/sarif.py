"""A SARIF 2.1.0 log of a CI run's findings, for code scanning (`cagr ci --sarif FILE`).

One rule descriptor per rule that has findings (its fix is the help text), one result per
finding, at level `warning` for a `warn` rule, each with a location code scanning can show: the
finding's first path (file level: change rules judge files, not lines), or, for a finding
about the PR description (`review.pr_sections`), the line of the configuration that asks for
it. A finding a pull-request label waived is a result with an external suppression whose
justification names the label.

What code scanning does with a log decides its shape (github/codeql-action's upload code):
- `executionSuccessful: false` makes code scanning treat the upload as a failed analysis
  ("unsuccessful execution"): it stores none of the log's results, and the upload step fails.
  cagr always ran to the end when it writes a log, so the invocation is successful, and what
  was left unchecked is said the way SARIF says that results are incomplete: tool execution
  notifications of level "error" (a `warn` rule's: "warning"), with job problems beside them.
- A run holds at most 25,000 results (more is rejected whole): past that, one result says how
  many findings were left out, and the log keeps every failing rule's first findings.
"""

from __future__ import annotations

import hashlib
from typing import Any
from urllib.parse import quote

from cagr_core.report import Finding, each_rule_first
from cagr_core.severity import Severity
from cagr_core.version import VERSION

from .run import CiResult

SCHEMA = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)
MAX_RESULTS = 25_000  # code scanning rejects a run with more
LEFT_OUT = "cagr/results-left-out"
UNCHECKED = "cagr/unchecked"
JOB_PROBLEM = "cagr/job-problem"


def path_uri(path: str) -> str:
    """A repo-relative path as a relative URI reference (every byte outside the unreserved
    set percent-encoded; names that are not UTF-8 keep their original bytes)."""
    return quote(path.encode("utf-8", "surrogateescape"), safe="/-._~")


def _fingerprint(*parts: str) -> str:
    text = "\0".join(parts)
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()[:32]


def sarif_log(result: CiResult, max_results: int = MAX_RESULTS) -> dict[str, Any]:
    """The log of one run (one SARIF run), at most `max_results` results."""
    report = result.report
    labels = {w.finding: w.by for w in report.waived}
    findings = report.findings + tuple(w.finding for w in report.waived)
    kept = list(findings)
    left_out: list[Finding] = []
    if len(findings) > max_results:
        ordered = each_rule_first(findings)
        kept, left_out = ordered[: max_results - 1], ordered[max_results - 1 :]
    rule_ids = list(dict.fromkeys(finding.rule for finding in kept))
    rules = [
        {
            "id": rule,
            "shortDescription": {"text": f"cagr change rule {rule}"},
            "help": {"text": _first(kept, rule).fix},
            "defaultConfiguration": {"level": _level(_first(kept, rule).severity)},
            "properties": {"kind": _first(kept, rule).kind},
        }
        for rule in rule_ids
    ]
    results = [
        _result(result, finding, rule_ids.index(finding.rule), labels.get(finding))
        for finding in kept
    ]
    if left_out:
        rules.append(
            {
                "id": LEFT_OUT,
                "shortDescription": {"text": "cagr findings left out of this log"},
                "help": {"text": "The job log and `cagr ci --format json` list every finding."},
                "defaultConfiguration": {"level": "error"},
            }
        )
        results.append(_left_out(result, left_out, len(rules) - 1, max_results))
    run: dict[str, Any] = {
        "tool": {
            "driver": {
                "name": "cagr",
                "version": VERSION,
                "rules": rules,
                "notifications": [
                    {
                        "id": UNCHECKED,
                        "shortDescription": {"text": "Something cagr could not check"},
                    },
                    {"id": JOB_PROBLEM, "shortDescription": {"text": "A problem with the job"}},
                ],
            }
        },
        "invocations": [_invocation(result)],
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


def _result(
    result: CiResult, finding: Finding, index: int, waived_by: str | None
) -> dict[str, Any]:
    where = _place(result, finding.rule, finding.paths[0] if finding.paths else None)
    if where is not None and finding.line is not None:
        where = (where[0], finding.line, finding.column)
    return {
        "ruleId": finding.rule,
        "ruleIndex": index,
        "kind": "fail",
        "level": _level(finding.severity),
        "message": {"text": f"{finding.message} Instead: {finding.fix}"},
        "locations": [_location(*where)] if where else [],
        "partialFingerprints": {
            "cagrFinding/v1": _fingerprint(finding.rule, finding.message, *finding.paths)
        },
        **({} if waived_by is None else {"suppressions": [_suppression(waived_by)]}),
    }


def _left_out(
    result: CiResult, left_out: list[Finding], index: int, max_results: int
) -> dict[str, Any]:
    first = left_out[0]
    where = _place(result, first.rule, first.paths[0] if first.paths else None)
    rules = len({finding.rule for finding in left_out})
    return {
        "ruleId": LEFT_OUT,
        "ruleIndex": index,
        "kind": "fail",
        "level": "error",
        "message": {
            "text": f"{len(left_out)} more finding(s) of {rules} rule(s) are not in this log:"
            f" code scanning takes at most {max_results} results per run. The job log and"
            " `cagr ci --format json` list them all."
        },
        "locations": [_location(*where)] if where else [],
        "partialFingerprints": {"cagrFinding/v1": _fingerprint(LEFT_OUT)},
    }


def _invocation(result: CiResult) -> dict[str, Any]:
    notifications = [
        {
            "descriptor": {"id": UNCHECKED, "index": 0},
            # SARIF: an error notification means the results are incomplete
            "level": _level(item.severity),
            "message": {"text": f"Unchecked ({item.stage.value}): {item.message}"},
            **(
                {"locations": [_location(*where)]}
                if (where := _place(result, item.rule, item.path))
                else {}
            ),
        }
        for item in result.report.unchecked
    ] + [
        {
            "descriptor": {"id": JOB_PROBLEM, "index": 1},
            "level": "error",
            "message": {"text": f"{problem.message} Instead: {problem.fix}"},
        }
        for problem in result.problems
    ]
    invocation: dict[str, Any] = {"executionSuccessful": True}
    if notifications:
        invocation["toolExecutionNotifications"] = notifications
    return invocation


def _place(
    result: CiResult, rule: str | None, path: str | None
) -> tuple[str, int, int | None] | None:
    """Where to show something: its path (line 1), else where its rule is declared."""
    if path is not None:
        return (path, 1, None)
    declared = result.declared(rule)
    return None if declared is None else (declared[0], declared[1], None)


def _location(path: str, line: int, column: int | None = None) -> dict[str, Any]:
    region: dict[str, int] = {"startLine": line}
    if column is not None:
        region["startColumn"] = column
    return {
        "physicalLocation": {
            "artifactLocation": {"uri": path_uri(path), "uriBaseId": "%SRCROOT%"},
            "region": region,
        }
    }


def _suppression(label: str) -> dict[str, Any]:
    """A waived finding: suppressed outside the code, by the pull request's label."""
    return {
        "kind": "external",
        "status": "accepted",
        "justification": f"waived by the pull request {label}",
    }


def _level(severity: Severity) -> str:
    return "warning" if severity is Severity.WARN else "error"


def _first(findings: list[Finding], rule: str) -> Finding:
    return next(f for f in findings if f.rule == rule)
