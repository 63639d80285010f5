"""A CI result as text (for the job log) and as JSON data (`--format json`).

The text leads with what was checked (head, target and how it was chosen, merge base, where the
description came from), then the change rules' report in the same words as `cagr rules check`,
then the `[stack].ci` commands, the job's own problems, and what to do about anything unchecked.
"""

from __future__ import annotations

from typing import Any

from cagr_core.render import render_details
from cagr_core.report_json import json_status, range_data, report_data
from cagr_core.safe_text import terminal_safe

from .merge_queue import PullRequestCheck
from .run import CiResult

OUTPUT_LINES = 20  # of a failed command's output tail, in the text report


def describe_run(result: CiResult) -> list[str]:
    """What was checked: event, head, target, merge base and body source, one line each."""
    event, report = result.event, result.report
    lines = [f"cagr ci: {event.title}"]
    head_source = f" ({event.head_source})" if event.head_source else ""
    lines.append(f"Head:   {result.head}{head_source}")
    target = f"Target: {result.target_name} ({result.target_source})"
    if report.range is not None:
        if report.range.target_ref != result.target_name:  # a commit id needs no repeating
            target += f" = {report.range.target_ref} at {report.range.target}"
        lines.append(target)
        lines.append(f"Base:   {report.range.base} (the merge base)")
    else:
        lines.append(
            target + ": no range (the target or the merge base could not be resolved;"
            " the Unchecked line below says which)"
        )
    if event.labels is not None:
        shown = ", ".join(sorted(event.labels)) or "none"
        lines.append(f"Labels: {shown} ({event.labels_source})")
    if event.author is not None:
        lines.append(f"Author: {terminal_safe(event.author)} ({event.author_source})")
    if event.body.available:
        size = len(event.body.text or "")
        lines.append(f"Body:   {event.body_source} ({size} characters)")
    elif result.pull_requests:
        lines.append("Body:   the queued pull request's own (GitHub API), on its own change:")
    else:
        lines.append("Body:   none (no pull-request description in this run)")
    lines.extend(f"Queue:  {describe_pull_request(checked)}" for checked in result.pull_requests)
    return lines


def describe_pull_request(checked: PullRequestCheck) -> str:
    """A merge queue's pull request on one line: what was read and its own verdict."""
    pr, range_ = checked.pull_request, checked.range
    title = terminal_safe(pr.title).replace("\n", " ")[:80]
    where = f"head {pr.head[:12]}, base {pr.base}"
    if range_ is not None:
        where += f", merge base {range_.base[:12]}"
    labels = ", ".join(sorted(pr.labels)) or "none"
    verdict = {
        "pass": "passed",
        "fail": "failed",
        "unchecked": "not a pass (something unchecked)",
        "waived": "waived by label (not a pass)",
    }[checked.report.status]
    return (
        f"pull request #{pr.number} ({title}): {where}; description {len(pr.body)} characters;"
        f" labels {labels}; its description's checks {verdict}"
    )


def render_result(result: CiResult) -> str:
    """The whole result for the job log."""
    blocks = ["\n".join(describe_run(result))]
    rules = render_details(result.report)
    if rules:
        blocks.append(rules)
    if result.stack:
        blocks.append(_stack_text(result))
    blocks.extend(f"{p.message}\nInstead: {p.fix}" for p in result.problems)
    blocks.extend(f"Note: {note}" for note in result.notes)
    blocks.append(_verdict(result))
    return "\n\n".join(blocks)


def _stack_text(result: CiResult) -> str:
    lines = ["[stack].ci commands:"]
    for outcome in result.stack:
        seconds = f"{outcome.duration_ms / 1000:.1f} s"
        detail = {
            "passed": seconds,
            "failed": f"exit {outcome.exit_code}, {seconds}",
            "timed_out": f"stopped at the deadline, {seconds}",
            "skipped": "its paths did not change",
            "error": "could not start",
        }[outcome.status]
        lines.append(f"  {outcome.status:<9} {outcome.command}  ({detail})")
        if outcome.status in ("failed", "timed_out", "error") and outcome.output_tail.strip():
            tail = outcome.output_tail.rstrip("\n").splitlines()[-OUTPUT_LINES:]
            lines.extend(f"      | {line}" for line in tail)
    return "\n".join(lines)


def _verdict(result: CiResult) -> str:
    report = result.report
    also = [
        f"{count} {what}"
        for count, what in (
            (len(report.warnings), "warning(s) (severity warn: they fail nothing)"),
            (len(report.deferred), "obligation(s) deferred"),
        )
        if count
    ]
    checked = f"{len(result.changes.changes)} changed path(s) checked"
    if result.status == "pass":
        return f"Passed: {', '.join([checked, *also])}."
    if result.status == "waived":
        by = ", ".join(sorted({w.by for w in report.waived}))
        return (
            f"Waived, not a pass: {len(report.waived)} finding(s) waived by the {by};"
            f" {', '.join([checked, *also])}."
        )
    parts = []
    if report.errors:
        parts.append(f"{len(report.errors)} finding(s)")
    if result.problems:
        parts.append(f"{len(result.problems)} problem(s) with the job")
    if report.unchecked:
        parts.append(f"{len(report.unchecked)} item(s) unchecked")
    if report.waived:
        parts.append(f"{len(report.waived)} finding(s) waived")
    if not report.errors and not report.unchecked:
        parts.append(f"the change rules found nothing in {checked}")
    word = "Failed" if result.status == "fail" else "Not a pass"
    return f"{word}: {', '.join(parts + also)}."


def result_data(result: CiResult) -> dict[str, Any]:
    """The JSON report of `cagr rules check`, with the CI run's own keys added."""
    data = report_data(result.report)
    event = result.event
    data["status"] = json_status(result.status)
    data["ci"] = {
        "provider": event.provider,
        "event": event.name,
        "title": event.title,
        "head": result.head,
        "head_source": event.head_source or None,
        "target_name": result.target_name,
        "target_source": result.target_source,
        "body_source": event.body_source if event.body.available else None,
        "body_truncated": event.body.truncated,
        "merge_queue": event.merge_queue,
        "labels": None if event.labels is None else sorted(event.labels),
        "labels_source": event.labels_source or None,
        "author": event.author,
        "author_source": event.author_source or None,
    }
    data["stack"] = [
        {
            "command": o.command,
            "status": o.status,
            "exit_code": o.exit_code,
            "output_tail": o.output_tail,
            "duration_ms": o.duration_ms,
        }
        for o in result.stack
    ]
    data["problems"] = [
        {"kind": p.kind, "message": p.message, "fix": p.fix, "paths": list(p.paths)}
        for p in result.problems
    ]
    data["ci"]["pull_requests"] = [
        {
            "number": c.pull_request.number,
            "title": c.pull_request.title,
            "head": c.pull_request.head,
            "base": c.pull_request.base,
            "labels": sorted(c.pull_request.labels),
            "body_characters": len(c.pull_request.body),
            "range": range_data(c.range),
            "status": json_status(c.report.status),
            **{key: report_data(c.report)[key] for key in ("findings", "unchecked", "waived")},
        }
        for c in result.pull_requests
    ]
    data["notes"] = list(result.notes)
    return data
