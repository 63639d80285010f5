"""Reports as text (rule, trigger, missing requirement, range, fix; with an output limit) and as
JSON-ready data."""

from __future__ import annotations

from itertools import groupby
from typing import Any

from .changes import Range, Unchecked
from .report import Finding, Report


def _finding_blocks(report: Report) -> list[tuple[str, list[str], str]]:
    """(header, message lines, fix) for each failing rule; findings of one rule share a fix."""
    where = f" ({report.range.label})" if report.range is not None else ""
    blocks = []
    for rule, group in groupby(report.findings, key=lambda f: f.rule):
        findings: list[Finding] = list(group)
        blocks.append(
            (
                f"{'Check' if rule.startswith('review.') else 'Change rule'} {rule} failed{where}.",
                [f.message for f in findings],
                f"Instead: {findings[0].fix}",
            )
        )
    return blocks


def _other_lines(report: Report) -> list[str]:
    lines = []
    for item in report.unchecked:
        subject = f"change rule {item.rule}" if item.rule else "change rules"
        if item.rule and item.rule.startswith("review."):
            subject = f"check {item.rule}"
        lines.append(f"Unchecked ({item.stage.value}): {subject}: {item.message}")
    for deferred in report.deferred:
        lines.append(
            f"Deferred to the pull request: change rule {deferred.rule}: {deferred.message}"
            f"\nThen: {deferred.fix}"
        )
    if report.pending_staged:
        shown = ", ".join(report.pending_staged[:5])
        more = len(report.pending_staged) - 5
        lines.append(
            f"Staged content differs from the working tree for {shown}"
            f"{f' and {more} more' if more > 0 else ''}; it was not counted."
            " Stage the intended result and run `cagr rules check --committed` before opening a PR."
        )
    return lines


def render_text(report: Report, limit: int | None = None) -> str:
    """The report as text. With `limit` (characters), whole blocks are dropped and counted.

    The first failing rule always keeps its header and its complete `Instead:` line, even when
    its message lines must be cut; a fix is never shortened.
    """
    blocks = _finding_blocks(report)
    others = _other_lines(report)
    if limit is None:
        pieces = ["\n".join([head, *lines, fix]) for head, lines, fix in blocks] + others
        return "\n\n".join(pieces)

    pieces = []
    used = 0
    omitted_findings = 0
    omitted_other = 0
    for index, (head, lines, fix) in enumerate(blocks):
        whole = "\n".join([head, *lines, fix])
        if used + len(whole) + 2 <= limit:
            pieces.append(whole)
            used += len(whole) + 2
        elif index == 0:
            kept = _cut_lines(lines, limit - len(head) - len(fix) - 2)
            omitted_findings += len(lines) - len(kept)
            whole = "\n".join([head, *kept, fix])
            pieces.append(whole)
            used += len(whole) + 2
        else:
            omitted_findings += len(lines)
    for line in others:
        if used + len(line) + 2 <= limit:
            pieces.append(line)
            used += len(line) + 2
        else:
            omitted_other += 1
    if omitted_findings or omitted_other:
        pieces.append(
            f"({omitted_findings} more finding(s) and {omitted_other} more notice(s) omitted;"
            " run `cagr rules check` to see all.)"
        )
    return "\n\n".join(pieces)


def _cut_lines(lines: list[str], room: int) -> list[str]:
    kept: list[str] = []
    for line in lines:
        if len(line) + 1 > room:
            break
        kept.append(line)
        room -= len(line) + 1
    return kept


def range_data(range_: Range | None) -> dict[str, Any] | None:
    """A range as JSON data (`head` is null for the working tree)."""
    if range_ is None:
        return None
    return {
        "target_ref": range_.target_ref,
        "target": range_.target,
        "base": range_.base,
        "head": range_.head,
        "result": range_.result,
        "label": range_.label,
    }


def unchecked_data(item: Unchecked) -> dict[str, Any]:
    """One unchecked item as JSON data (`path` is null when the whole check is affected)."""
    return {
        "rule": item.rule,
        "stage": item.stage.value,
        "message": item.message,
        "path": item.path,
    }


def report_data(report: Report) -> dict[str, Any]:
    """The JSON report (docs/checks.md); timings are null where no adapter measured them."""
    return {
        "status": report.status,
        "range": range_data(report.range),
        "findings": [
            {
                "rule": f.rule,
                "kind": f.kind,
                "message": f.message,
                "fix": f.fix,
                "paths": list(f.paths),
            }
            for f in report.findings
        ],
        "unchecked": [unchecked_data(item) for item in report.unchecked],
        "deferred": [
            {"rule": d.rule, "section": d.section, "contains": d.contains, "message": d.message}
            for d in report.deferred
        ],
        "pending_staged": list(report.pending_staged),
        "timings_ms": {
            "collect": report.timings.collect_ms,
            "evaluate": report.timings.evaluate_ms,
        },
    }
