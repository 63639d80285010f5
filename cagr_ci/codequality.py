"""GitLab's code quality report (`cagr ci --codequality FILE`, for `artifacts: reports:
codequality`), so findings show in the merge request.

GitLab reads a subset of the Code Climate issue format: a JSON array of issues, each with a
`description`, a `check_name`, a `fingerprint` (unique: GitLab shows one issue per fingerprint,
and compares them with the target branch's report), a `severity` (info, minor, major, critical,
blocker) and a `location` (`path`, `lines.begin`). A finding is `major` (a `warn` rule's:
`minor`), on its first path the head holds (line 1: change rules judge files), or, without one
(no path, or only deleted ones), on the configuration line that declares it; a waived finding
and an unchecked item are `info` (the job's exit code already fails the pipeline for an
unchecked one), and one about no rule goes on the first configuration file. What has no file
at all stays in the job log.
"""

from __future__ import annotations

import hashlib
from typing import Any

from cagr_core.severity import Severity

from .run import CiResult


def _fingerprint(*parts: str) -> str:
    text = "\0".join(parts).encode("utf-8", "surrogateescape")
    return hashlib.sha256(text).hexdigest()[:32]


def _text(path: str) -> str:
    """A path as JSON text: bytes that are not UTF-8 become U+FFFD (JSON holds no lone
    surrogates)."""
    return path.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def codequality_report(result: CiResult) -> list[dict[str, Any]]:
    """The run's findings and unchecked items as code quality issues."""
    issues: list[dict[str, Any]] = []
    report = result.report
    shown = [(f, None) for f in report.findings] + [(w.finding, w.by) for w in report.waived]
    for finding, label in shown:
        place = result.shown_at(finding.rule, finding.paths)
        if place is None:
            continue
        if finding.line is not None:
            place = (place[0], finding.line)
        if label is not None:
            severity, said = "info", f"Waived by the {label} (not a pass): "
        else:
            severity, said = ("minor" if finding.severity is Severity.WARN else "major"), ""
        issues.append(
            _issue(
                finding.rule,
                f"{said}{finding.message} Instead: {finding.fix}",
                severity,
                place,
                _fingerprint(finding.rule, finding.message, *finding.paths),
            )
        )
    for item in result.report.unchecked:
        place = result.shown_at(item.rule, (item.path,) if item.path else ())
        if place is None and item.rule is None and result.config_file is not None:
            place = (result.config_file, 1)
        if place is not None:
            issues.append(
                _issue(
                    item.rule or f"cagr/{item.stage.value}",
                    f"Unchecked ({item.stage.value}): {item.message}",
                    "info",
                    place,
                    _fingerprint("unchecked", item.stage.value, item.rule or "", item.message),
                )
            )
    return _unique(issues)


def _issue(
    check: str, description: str, severity: str, place: tuple[str, int], fingerprint: str
) -> dict[str, Any]:
    path, line = place
    return {
        "type": "issue",
        "check_name": check,
        "description": description,
        "severity": severity,
        "fingerprint": fingerprint,
        "location": {"path": _text(path), "lines": {"begin": line}},
    }


def _unique(issues: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each fingerprint once (GitLab shows only the first issue of a fingerprint)."""
    seen: dict[str, int] = {}
    for issue in issues:
        base = issue["fingerprint"]
        count = seen.get(base, 0)
        seen[base] = count + 1
        if count:
            issue["fingerprint"] = _fingerprint(base, str(count))
    return issues
