"""The Markdown job summary for GitHub ($GITHUB_STEP_SUMMARY): a short table of rules, verdicts
and fixes, then every failing rule's findings with all their paths, the commands, the job's
problems and the notes, bounded to GitHub's size limit (what does not fit is counted)."""

from __future__ import annotations

import html

from cagr_core.description import SECTIONS_RULE
from cagr_core.render import one_line, waivable
from cagr_core.report import Finding, Report
from cagr_core.safe_text import terminal_safe
from cagr_core.severity import Severity
from cagr_repo.config import RepoConfig
from cagr_repo.target_config import rule_id

from .run import CiResult

SUMMARY_LIMIT = 1024 * 1024  # GitHub's limit for one step's summary, in bytes
_MARGIN = 4 * 1024  # room kept for the closing lines
CELL_LIMIT = 600  # characters of one table cell: every rule keeps its row

_VERDICT = {
    "pass": "✅ pass",
    "fail": "❌ fail",
    "unchecked": "⚠️ unchecked",
    "warn": "🟡 warning",
    "waived": "🏷️ waived",
}


def cell(text: str, limit: int = CELL_LIMIT) -> str:
    """Text safe inside a Markdown table cell: a line break shown as `\\n` (a file name that
    holds one cannot pass for two names, or for a line of its own), control characters and
    undecodable bytes escaped, HTML escaped, pipes escaped, and cut to `limit` characters."""
    text = terminal_safe(one_line(text))
    if len(text) > limit:
        text = text[:limit].rstrip() + " … (cut here; the job log has the rest)"
    return html.escape(text, quote=False).replace("|", "\\|").strip() or " "


def cells(lines: list[str]) -> str:
    """Lines in one table cell, each as `cell` shows it, one under another."""
    return "<br>".join(shown for line in lines if (shown := cell(line)).strip()) or " "


def code(text: str, *, in_table: bool = True) -> str:
    """Text as an inline code span (in a table cell: pipes escaped, cut to the cell limit): no
    HTML escapes (a code span shows them literally), a fence longer than any backtick run."""
    text = terminal_safe(one_line(text))
    if in_table:
        text = text.replace("|", "\\|")[:CELL_LIMIT]
    fence = "`" * (_longest_backtick_run(text) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _longest_backtick_run(text: str) -> int:
    longest = run = 0
    for char in text:
        run = run + 1 if char == "`" else 0
        longest = max(longest, run)
    return longest


def error_summary(text: str) -> str:
    """The job summary of a run cagr could not check (an event or checkout it cannot use)."""
    escaped = html.escape(terminal_safe(text)[:CELL_LIMIT], quote=False)
    return f"## cagr ci: could not check this run\n\n{escaped}\n\nThe job log says more.\n"


def _waivers(report: Report) -> str:
    """What waived the findings: `label`, `author` or both."""
    kinds = sorted({"label" if w.label is not None else "author" for w in report.waived})
    return " and ".join(kinds) or "label"


def step_summary(
    result: CiResult,
    config: RepoConfig,
    limit: int = SUMMARY_LIMIT,
    holder: str = "a step summary",
) -> str:
    """The summary, at most `limit` bytes of UTF-8; rows that do not fit are counted (the
    note on them says `holder` holds no more)."""
    report = result.report
    title = {
        "pass": "passed",
        "fail": "failed",
        "unchecked": "not a pass (something could not be checked)",
        "waived": f"waived by {_waivers(report)} (not a pass)",
    }[result.status]
    range_ = report.range
    where = (
        f"head `{result.head[:12]}` · target {code(result.target_name[:60])}"
        f" ({cell(result.target_source)})"
    )
    if range_ is not None:
        where += f" at `{range_.target[:12]}` · merge base `{range_.base[:12]}`"
    head = [f"## cagr: change rules {title}", "", f"{cell(result.event.title)} · {where}", ""]
    head += _pull_request_rows(result)
    rows = ["| Rule | Verdict | What happened | Fix |", "|---|---|---|---|"]
    rows.extend(_rule_rows(result, config))
    if not config.rules.rules:
        head += [
            "> No change rules are configured at this commit, so no change rule judged it.",
            "",
        ]
    edits = report.config_changes
    if edits is not None:
        head += [f"> {cell(edits.describe())}", ""]
    if report.target_config is not None:
        head += [f"> {cell(report.target_config.describe())}", ""]
    tail = _tail(result)
    return _fit(head, rows, tail, limit, holder)


def _pull_request_rows(result: CiResult) -> list[str]:
    """A merge queue run's pull request: its description judged on its own change."""
    if not result.pull_requests:
        return []
    rows = [
        "| Pull request (its own change, its description) | Head | Verdict | Labels |",
        "|---|---|---|---|",
    ]
    for checked in result.pull_requests:
        pr = checked.pull_request
        labels = ", ".join(sorted(pr.labels)) or " "
        rows.append(
            f"| #{pr.number} {cell(pr.title, limit=120)} | `{pr.head[:12]}` |"
            f" {_VERDICT[checked.report.status]} | {cell(labels)} |"
        )
    return [*rows, ""]


def _rule_rows(result: CiResult, config: RepoConfig) -> list[str]:
    report = result.report
    whole_change_unknown = any(item.rule is None for item in report.unchecked)
    ids = list(dict.fromkeys(rule_id(compiled.id) for compiled in config.rules.rules))
    if config.settings.pr_sections:
        ids.append(SECTIONS_RULE)
    rows = []
    for rule in ids:
        findings = [f for f in report.findings if f.rule == rule]
        waived = [w for w in report.waived if w.finding.rule == rule]
        unknown = [u for u in report.unchecked if u.rule == rule]
        deferred = [d for d in report.deferred if d.rule == rule]
        fix: list[str] = []
        if findings:
            fix = list(dict.fromkeys(f.fix for f in findings))
            if findings[0].waive_label is not None:
                fix.append(waivable(findings[0].waive_label))
            verdict = "warn" if findings[0].severity is Severity.WARN else "fail"
            what = findings[0].message
            if len(findings) > 1:
                what += f" ({len(findings)} findings: each, with its paths, below the table.)"
            elif len(findings[0].paths) > 1:
                what += " (Every path below the table.)"
        elif waived:
            verdict = "waived"
            what = f"Waived by the {waived[0].by}: " + " ".join(w.finding.message for w in waived)
        elif unknown:
            verdict, what = "unchecked", " ".join(u.message for u in unknown)
        elif whole_change_unknown and rule != SECTIONS_RULE:  # the headings need no change
            verdict, what = "unchecked", "The change itself could not be read."
        else:
            verdict = "pass"
            if deferred:
                what = " ".join(d.message for d in deferred)
            elif rule == SECTIONS_RULE:
                what = "Every heading is there."
            else:  # a rule the change never triggered passes without being put to the test
                what = "Satisfied." if rule in report.fired else "Not triggered by this change."
        rows.append(f"| {code(rule)} | {_VERDICT[verdict]} | {cell(what)} | {cells(fix)} |")
    return rows


def _finding_lists(result: CiResult) -> list[str]:
    """Each failing rule's findings, every path of each listed (folded; the table is short),
    for the rules whose row could not say it all (several findings, or several paths)."""
    lines: list[str] = []
    by_rule: dict[str, list[Finding]] = {}
    for finding in result.report.findings:
        by_rule.setdefault(finding.rule, []).append(finding)
    for rule, findings in by_rule.items():
        paths = len({path for finding in findings for path in finding.paths})
        if len(findings) == 1 and len(findings[0].paths) <= 1:
            continue  # its row in the table says it all
        lines += [
            "",
            f"<details><summary>{html.escape(rule)}: {len(findings)} finding(s),"
            f" {paths} path(s)</summary>",
            "",
        ]
        for finding in findings:
            lines.append(f"- {cell(finding.message, limit=SUMMARY_LIMIT)}")
            lines.extend(f"  - {code(path, in_table=False)}" for path in finding.paths)
        lines += ["", "</details>"]
    return lines


def _tail(result: CiResult) -> list[str]:
    lines: list[str] = _finding_lists(result)
    general = [u for u in result.report.unchecked if u.rule is None]
    if general:
        lines += ["", "**Unchecked**", ""]
        lines += [f"- {cell(f'{u.stage.value}: {u.message}')}" for u in general]
    if result.stack:
        lines += ["", "| `[stack].ci` command | Result |", "|---|---|"]
        for outcome in result.stack:
            status = outcome.status + (
                f" (exit {outcome.exit_code})" if outcome.status == "failed" else ""
            )
            lines.append(f"| {code(outcome.command)} | {cell(status)} |")
    if result.problems:
        lines += ["", "**Problems with the job**", ""]
        lines += [f"- {cell(p.message)} **Instead:** {cell(p.fix)}" for p in result.problems]
    if result.notes:
        lines += [""] + [f"> {cell(note)}" for note in result.notes]
    return lines


def _fit(head: list[str], rows: list[str], tail: list[str], limit: int, holder: str) -> str:
    budget = limit - _MARGIN
    out = list(head)
    used = sum(len(line.encode("utf-8", "replace")) + 1 for line in out)
    omitted = 0
    for line in rows + tail:
        size = len(line.encode("utf-8", "replace")) + 1
        if used + size > budget:
            omitted += 1  # this line only: a shorter one after it may still fit
            continue
        out.append(line)
        used += size
    if omitted:
        out += [
            "",
            f"*{omitted} more line(s) omitted: {holder} holds at most {limit // 1024} KiB."
            " The job log has the whole report.*",
        ]
    return "\n".join(out) + "\n"
