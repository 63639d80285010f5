"""A SARIF 2.1.0 log of a CI run's findings, for code scanning (`cagr ci --sarif FILE`).

One rule descriptor per rule that has findings (what it is and where it is declared as its
full description, its fix as the help text: GitHub's rules in the SARIF multitool ask for both,
of the notification descriptors too), one result per finding, at level `warning` for a `warn`
rule, each with a location code scanning can show: the finding's first path the head holds
(file level: change rules judge files, not lines), or, for a finding with no such path (about
the PR description, or only about deleted files), the line of the configuration that declares
the rule. A finding a pull-request label waived is a result with an external suppression whose
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

from cagr_core.render import rule_noun
from cagr_core.report import Finding, each_rule_first
from cagr_core.severity import Severity
from cagr_core.version import VERSION
from cagr_repo.declarations import declaration

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
    rules = [_rule(result, _first(kept, rule)) for rule in rule_ids]
    results = [
        _result(result, finding, rule_ids.index(finding.rule), labels.get(finding))
        for finding in kept
    ]
    if left_out:
        rules.append(
            {
                "id": LEFT_OUT,
                "shortDescription": {"text": "cagr findings left out of this log"},
                "fullDescription": {
                    "text": "Code scanning takes at most 25,000 results per run, so this log"
                    " leaves out the findings past that; every failing rule keeps its first."
                },
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
                        "fullDescription": {
                            "text": "A rule, or the change itself, could not be decided exactly"
                            " (a history this clone lacks, a file cagr cannot read as git"
                            " does, a description it was not given): the results are"
                            " incomplete, and the run is not a pass."
                        },
                        "help": {
                            "text": "The notification's message says what was left unchecked"
                            " and what to do about it; `cagr ci` exits 3 while anything is."
                        },
                    },
                    {
                        "id": JOB_PROBLEM,
                        "shortDescription": {"text": "A problem with the job"},
                        "fullDescription": {
                            "text": "The CI job itself is wrong for a check (a dirty checkout,"
                            " a `[stack].ci` command that failed or changed the work tree):"
                            " it fails the job whatever the rules say."
                        },
                        "help": {"text": "The notification's message ends with what to do."},
                    },
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


def _rule(result: CiResult, finding: Finding) -> dict[str, Any]:
    """A rule's descriptor: what it is, where it is declared, and its fix as the help."""
    declared = declaration(result.config, finding.rule)
    where = f", declared in {declared[0]} line {declared[1]}" if declared else ""
    noun = rule_noun(finding.kind)
    return {
        "id": finding.rule,
        "shortDescription": {"text": f"cagr {noun} {finding.rule}"},
        "fullDescription": {
            "text": f"The cagr {noun} {finding.rule} ({finding.kind}{where}) judges each"
            f" change against its merge base; when it fails: {finding.fix}"
        },
        "help": {"text": finding.fix},
        "defaultConfiguration": {"level": _level(finding.severity)},
        "properties": {"kind": finding.kind},
    }


def _result(
    result: CiResult, finding: Finding, index: int, waived_by: str | None
) -> dict[str, Any]:
    shown = result.shown_at(finding.rule, finding.paths)
    where: tuple[str, int, int | None] | None = None if shown is None else (*shown, None)
    if shown is not None and finding.line is not None and shown[0] == finding.paths[0]:
        where = (shown[0], finding.line, finding.column)  # a code rule's match
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
    where = result.shown_at(first.rule, first.paths)
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
                if (where := result.shown_at(item.rule, (item.path,) if item.path else ()))
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
