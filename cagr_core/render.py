"""Reports as text: rule, trigger, missing requirement, range and fix, with an output limit.
(The JSON form is report_json's.)"""

from __future__ import annotations

from itertools import groupby

from .changes import Stage
from .report import TARGET, Finding, Report
from .severity import Severity

_OUTCOME = {
    "pass": "passed",
    "fail": "failed",
    "unchecked": "left something unchecked (not a pass)",
    "waived": "found nothing that fails, with findings waived by label (not a pass)",
}


def _finding_blocks(report: Report) -> list[tuple[str, list[str], str]]:
    """(header, message lines, fixes) for each rule with findings; a fix its findings share is
    said once, and findings that need different fixes get each of them. A `warn` rule says it
    does not fail the check; a rule with a `waive_label` says who can waive it, and where. A
    rule judged in two forms (CI: the target's and the branch's) has a block for each, the
    target's saying so."""
    where = f" ({report.range.label})" if report.range is not None else ""
    blocks = []
    forms = groupby(report.findings, key=lambda f: (f.rule, f.severity, f.config_source))
    for (rule, _, source), group in forms:
        findings: list[Finding] = list(group)
        first = findings[0]
        noun = rule_noun(first.kind)
        subject = "Check" if rule.startswith("review.") else noun.capitalize()
        form = " as the target's configuration has it" if source == TARGET else ""
        if first.severity is Severity.WARN:
            header = (
                f"Warning: {noun} {rule}{form}{where} (severity warn: it does not fail the check)."
            )
        else:
            header = f"{subject} {rule}{form} failed{where}."
        fixes = [f"Instead: {one_line(fix)}" for fix in dict.fromkeys(f.fix for f in findings)]
        if first.waive_label is not None:
            fixes.append(waivable(first.waive_label))
        blocks.append((header, [one_line(f.message) for f in findings], "\n".join(fixes)))
    return blocks


def rule_noun(kind: str) -> str:
    """What a rule of this kind is called in messages: `code rule`, `layout rule`, else
    `change rule`."""
    return _NOUNS.get(kind, "change rule")


_NOUNS = {"code": "code rule", "layout": "layout rule"}


def waivable(label: str) -> str:
    """What a rule's `waive_label` lets a maintainer do (never the agent, never locally)."""
    return (
        f"Waivable: a maintainer can waive this rule for the pull request by adding the label"
        f" `{one_line(label)}`; CI then reports it as waived. Nothing else waives it."
    )


def _waived_lines(report: Report) -> list[str]:
    where = f" ({report.range.label})" if report.range is not None else ""
    lines = []
    for rule, group in groupby(report.waived, key=lambda w: w.finding.rule):
        waived = list(group)
        first = waived[0]
        by, who = ("label", "a maintainer") if first.label is not None else ("author", "its author")
        what = first.label if first.label is not None else first.author
        head = (
            f"Waived by the {by} `{one_line(what or '')}`: {rule_noun(first.finding.kind)}"
            f" {rule}{where}"
            f" (its findings stand, waived by {who}; not a pass)."
        )
        lines.append("\n".join([head, *(one_line(w.finding.message) for w in waived)]))
    return lines


def one_line(text: str) -> str:
    """A message as one line: a line break in a file name is shown as `\\n`, so a name can
    never pass for another line of the report (an `Instead:` of its own, say)."""
    return text.replace("\r", "\\r").replace("\n", "\\n")


def _other_lines(report: Report) -> list[str]:
    lines = _waived_lines(report)
    if report.config_changes is not None:
        lines.append(report.config_changes.describe())
    if report.target_config is not None:
        lines.append(report.target_config.describe())
    for item in report.unchecked:
        noun = rule_noun("code" if item.stage is Stage.CODE else "")
        subject = f"{noun} {item.rule}" if item.rule else "change rules"
        if item.rule and item.rule.startswith("review."):
            subject = f"check {item.rule}"
        if item.severity is Severity.WARN:
            subject += " (severity warn: does not change the verdict)"
        lines.append(f"Unchecked ({item.stage.value}): {subject}: {one_line(item.message)}")
    for deferred in report.deferred:
        weight = " (severity warn)" if deferred.severity is Severity.WARN else ""
        waive = "" if deferred.waive_label is None else f"\n{waivable(deferred.waive_label)}"
        lines.append(
            f"Deferred to the pull request: change rule {deferred.rule}{weight}:"
            f" {one_line(deferred.message)}\nThen: {one_line(deferred.fix)}{waive}"
        )
    if report.uncommitted:
        lines.append(
            f"Not part of this committed check: {report.uncommitted} path(s) where the working"
            " tree differs from HEAD (uncommitted edits, staged or not, deletions, untracked"
            " files). The verdict is HEAD's; commit them and check again to include them."
        )
    if report.pending_staged:
        shown = ", ".join(report.pending_staged[:5])
        more = len(report.pending_staged) - 5
        lines.append(
            f"{shown}{f' and {more} more' if more > 0 else ''} is staged, then edited again: the"
            " index holds a version that is neither the working tree's (which was checked) nor"
            " HEAD's, and `git commit` would record it. Stage the version you mean (`git add`),"
            " commit, and run `cagr rules check --committed` before opening a PR."
        )
    return lines


def render_text(report: Report) -> str:
    """The report as `cagr rules check` prints it: each rule's findings with their fix, the
    notices, then the one-line summary (alone, for a clean pass)."""
    details = render_details(report)
    summary = render_summary(report)
    return f"{details}\n\n{summary}" if details else summary


def render_details(report: Report, limit: int | None = None) -> str:
    """The report's findings and notices as text, without the summary line ("" when there are
    none). With `limit` (characters), what does not fit is counted, not shown.

    Every failing rule that fits keeps its header, its first line and its complete `Instead:`
    line before any rule gets a second line, so one rule with many findings cannot hide the
    others; the first rule always appears with its first finding, and a fix is never shortened.
    """
    blocks = _finding_blocks(report)
    others = _other_lines(report)
    first = [] if report.uncommitted_config is None else [report.uncommitted_config.describe()]
    if limit is None:
        pieces = ["\n".join([head, *lines, fix]) for head, lines, fix in blocks] + others
        return "\n\n".join(first + pieces)
    shown: list[list[str]] = []  # the message lines each shown block keeps
    used = sum(len(line) + 2 for line in first)
    for index, (head, lines, fix) in enumerate(blocks):  # first: every rule, one line each
        frame = len(head) + len(fix) + 3
        if index == 0 or used + frame + len(lines[0]) + 1 <= limit:
            # The first rule shows its header, first finding and fix, whatever the limit.
            shown.append(lines[:1])
        else:
            break
        used += frame + sum(len(line) + 1 for line in shown[-1])
    for (_, lines, _), kept in zip(blocks, shown, strict=False):  # then more lines, in order
        for line in lines[len(kept) :]:
            if used + len(line) + 1 > limit:
                break
            kept.append(line)
            used += len(line) + 1
    pieces = first + [
        "\n".join([head, *kept, fix]) for (head, _, fix), kept in zip(blocks, shown, strict=False)
    ]
    omitted_findings = sum(len(lines) for _, lines, _ in blocks) - sum(map(len, shown))
    omitted_other = 0
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


def render_summary(report: Report) -> str:
    """One line: the verdict, what was checked, what came of it, and the range and target."""
    extra = "".join(
        f" {count} {what},"
        for count, what in ((len(report.warnings), "warning(s)"), (len(report.waived), "waived"))
        if count
    )
    only = (
        ""
        if report.rules_filter is None
        else f" (only {', '.join(report.rules_filter)}, as --rule asked: not the whole verdict)"
    )
    counts = (
        f"{report.rules_checked} rule(s) checked{only}, {report.changed_paths} changed path(s);"
        f" {len(report.errors)} finding(s),{extra} {len(report.unchecked)} unchecked,"
        f" {len(report.deferred)} deferred."
    )
    range_ = report.range
    if range_ is not None and range_.snapshot:
        counts = (
            f"{report.rules_checked} rule(s) checked{only}, {report.changed_paths} file(s);"
            f" {len(report.errors)} finding(s),{extra} {len(report.unchecked)} unchecked."
        )
        return (
            f"Code and layout rules {_OUTCOME[report.status]}: {counts} A {range_.label}: no"
            " change was judged."
        )
    if range_ is None:
        where = "Range: not resolved (see above)."
    else:
        chosen = f", chosen by {range_.chosen_by}" if range_.chosen_by else ""
        where = f"Range: {range_.label}; target {range_.target_ref} at {range_.target[:7]}{chosen}."
    return f"Change rules {_OUTCOME[report.status]}: {counts} {where}"
