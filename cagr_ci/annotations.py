"""GitHub Actions workflow commands: annotations, and a guard around untrusted text.

One `::error` per job problem and per finding, on the finding's first path (the trigger;
deleted paths too: GitHub lists them with the check even where it cannot show them in a diff),
a `::warning` per finding of a `warn` rule and per unchecked item, and a `::notice` per finding
a label waived. GitHub shows only 10 errors and 10 warnings per step, so
findings go a rule at a time (every failing rule is shown), and past the limit the last
annotation says how many more there are and where to read them.

Paths and PR text reach the log; a line of them that looked like a workflow command would be
run as one, so plain output is wrapped in `::stop-commands::` with a one-time token.
"""

from __future__ import annotations

import os

from cagr_core.changes import Stage, Unchecked
from cagr_core.render import one_line, rule_noun, waivable
from cagr_core.report import TARGET, Finding, Waived, each_rule_first
from cagr_core.severity import Severity

from .run import CiResult, JobProblem

SHOWN_PER_KIND = 10  # GitHub displays at most 10 errors, 10 warnings and 10 notices per step


def escape_data(text: str) -> str:
    """A command's message: `%`, CR and LF encoded."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """A command's property value (file=, title=): also `:` and `,` encoded."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def command(  # noqa: PLR0913  # a workflow command's properties, each optional
    kind: str,
    message: str,
    *,
    title: str,
    file: str | None = None,
    line: int = 1,
    column: int | None = None,
) -> str:
    """One workflow command line, e.g. `::error file=a.py,line=1,title=T::message` (a file
    always with its line: 1 where the message is about the whole file; a code rule's match
    with its column too)."""
    where = [f"file={escape_property(file)}", f"line={line}"] if file else []
    if file and column is not None:
        where.append(f"col={column}")
    properties = [*where, f"title={escape_property(title)}"]
    return f"::{kind} {','.join(properties)}::{escape_data(message)}"


def _attachable(path: str | None) -> str | None:
    """A path GitHub can attach an annotation to: None for a name that is not valid UTF-8
    (cagr carries its bytes as U+DC80..U+DCFF surrogates; the message still names it)."""
    if path is None or any("\udc80" <= char <= "\udcff" for char in path):
        return None
    return path


def _place(result: CiResult, rule: str | None, path: str | None) -> tuple[str | None, int]:
    """Where an annotation goes: its path (line 1), else where its rule is declared (a
    finding about the PR description: the line of the configuration that asks for it)."""
    if path is not None:
        return _attachable(path), 1
    declared = result.declared(rule)
    return (declared[0], declared[1]) if declared else (None, 1)


def _finding(result: CiResult, finding: Finding) -> str:
    noun = rule_noun(finding.kind)
    subject = finding.rule if finding.rule.startswith("review.") else f"{noun} {finding.rule}"
    if finding.config_source == TARGET:
        subject += " (as the target has it)"
    warn = finding.severity is Severity.WARN
    waive = "" if finding.waive_label is None else f"\n{waivable(finding.waive_label)}"
    file, line = _place(result, finding.rule, finding.paths[0] if finding.paths else None)
    return command(
        "warning" if warn else "error",
        f"{one_line(finding.message)}\nInstead: {one_line(finding.fix)}{waive}",
        title=f"cagr: {subject}" + (" (warning)" if warn else ""),
        file=file,
        line=finding.line or line,
        column=finding.column if file is not None else None,
    )


def _waived(result: CiResult, waived: Waived) -> str:
    finding = waived.finding
    file, line = _place(result, finding.rule, finding.paths[0] if finding.paths else None)
    return command(
        "notice",
        f"Waived by the {waived.by} (not a pass): {one_line(finding.message)}",
        title=f"cagr: {rule_noun(finding.kind)} {finding.rule} waived",
        file=file,
        line=finding.line or line,
        column=finding.column if file is not None else None,
    )


def _problem(problem: JobProblem) -> str:
    return command(
        "error",
        f"{one_line(problem.message)}\nInstead: {one_line(problem.fix)}",
        title=f"cagr: {problem.kind.replace('_', ' ')}",
    )


def _unchecked(result: CiResult, item: Unchecked) -> str:
    noun = rule_noun("code" if item.stage is Stage.CODE else "")
    subject = f"{noun} {item.rule}" if item.rule else f"{item.stage.value} stage"
    file, line = _place(result, item.rule, item.path)
    return command(
        "warning",
        f"Unchecked: {one_line(item.message)}",
        title=f"cagr: {subject}",
        file=file,
        line=line,
    )


def annotation_lines(result: CiResult) -> list[str]:
    """The run's annotations, within GitHub's display limits."""
    report = result.report
    errors = [_problem(p) for p in result.problems] + [
        _finding(result, f) for f in each_rule_first(report.errors)
    ]
    warnings = [_finding(result, f) for f in each_rule_first(report.warnings)]
    warnings += [_unchecked(result, item) for item in report.unchecked]
    edits = report.config_changes
    if edits is not None:  # rules the pull request changed judged it: say so where people look
        warnings.insert(0, command("warning", edits.describe(), title="cagr: configuration"))
    sources = report.target_config
    if sources is not None and sources.loosens():  # the target's rules judged beside the branch's
        warnings.insert(0, command("warning", sources.describe(), title="cagr: target's rules"))
    notices = [_waived(result, w) for w in report.waived]
    return (
        _bounded(errors, "error", "finding(s) and problem(s)")
        + _bounded(warnings, "warning", "warning(s) and unchecked item(s)")
        + _bounded(notices, "notice", "waived finding(s)")
    )


def _bounded(lines: list[str], kind: str, what: str) -> list[str]:
    if len(lines) <= SHOWN_PER_KIND:
        return lines
    rest = len(lines) - (SHOWN_PER_KIND - 1)
    summary = command(
        kind,
        f"{rest} more {what} are not shown as annotations (GitHub shows {SHOWN_PER_KIND} per"
        " step); the job log and the job summary list them all.",
        title=f"cagr: {rest} more",
    )
    return [*lines[: SHOWN_PER_KIND - 1], summary]


def guarded(text: str) -> str:
    """`text` wrapped so that no line of it runs as a workflow command."""
    token = os.urandom(16).hex()
    return f"::stop-commands::{token}\n{text}\n::{token}::"
