"""`cagr replay [--base REV] [--last N] [--body-from message] [REV...]`: what the rules would
have said on real history, a commit at a time, as if each had been a pull request; writes
nothing. Exit 0 whatever the rules found (2: invalid configuration or usage)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from cagr_core.report import Report
from cagr_core.report_json import json_status, report_data
from cagr_git.log import Commit
from cagr_repo.range import RangeProblem
from cagr_repo.replay import Replay, replay

from ..checkout import fail, open_checkout
from ..output import EXIT_OK, print_json


def run(args: argparse.Namespace) -> int:
    if args.last < 1:
        return fail(args, "--last takes a whole number of commits, 1 or more")
    opened = open_checkout(args, kept=False)  # writes nothing: not even a kept configuration
    if isinstance(opened, int):
        return opened
    checkout, config = opened
    progress = _progress if args.format == "text" and sys.stderr.isatty() else None
    try:
        done = replay(
            config,
            checkout,
            args.revisions,
            base=args.base,
            last=args.last,
            body_from_message=args.body_from == "message",
            progress=progress,
        )
    except RangeProblem as problem:
        return fail(args, str(problem))
    finally:
        if progress is not None:
            print("\r\x1b[K", end="", file=sys.stderr, flush=True)
    rules = {c.id: c for c in config.rules.rules}
    if args.format == "json":
        print_json(_data(done, rules))
    else:
        print(_text(done, rules, args.body_from == "message"))
    return EXIT_OK


def _progress(number: int, total: int, commit: Commit) -> None:
    print(f"\rreplaying {number}/{total} {commit.sha[:10]}", end="", file=sys.stderr, flush=True)


def _reports(done: Replay) -> list[tuple[Commit, Report | None]]:
    return [(r.commit, r.result.report if r.result else None) for r in done.commits]


def _rule_rows(done: Replay, rules: dict[str, Any]) -> list[dict[str, Any]]:
    """Per rule: the commits it fired on, its findings, the commits with findings, the PR-body
    obligations it left owed, and the commits where it could not be decided."""
    rows = []
    for rule_id, compiled in rules.items():
        reports = [report for _, report in _reports(done) if report is not None]
        findings = [f for r in reports for f in r.findings if f.rule == rule_id]
        rows.append(
            {
                "rule": rule_id,
                "kind": compiled.kind,
                "severity": compiled.severity.value,
                "fired": sum(rule_id in r.fired for r in reports),
                "findings": len(findings),
                "commits_with_findings": sum(
                    any(f.rule == rule_id for f in r.findings) for r in reports
                ),
                "owed": sum(any(d.rule == rule_id for d in r.deferred) for r in reports),
                "unchecked": sum(any(u.rule == rule_id for u in r.unchecked) for r in reports),
            }
        )
    return rows


def _data(done: Replay, rules: dict[str, Any]) -> dict[str, Any]:
    commits = []
    for commit, report in _reports(done):
        data = report_data(report) if report is not None else {}
        commits.append(
            {
                "commit": commit.sha,
                "subject": commit.subject,
                "status": json_status(report.status) if report is not None else "root",
                **{key: data.get(key, []) for key in ("findings", "unchecked", "deferred")},
            }
        )
    return {"source": done.source, "rules": _rule_rows(done, rules), "commits": commits}


def _text(done: Replay, rules: dict[str, Any], body_from_message: bool) -> str:
    body = (
        "each commit's message stood in for its PR description"
        if body_from_message
        else "PR-body obligations are counted as owed (--body-from message judges the commit"
        " messages instead)"
    )
    lines = [
        f"Replayed {done.source}, each as a pull request from its first parent, judged by the"
        f" working tree's rules; {body}. Nothing was written.",
        "",
        _table(
            ["rule", "kind", "severity", "fired", "findings", "commits", "owed", "unchecked"],
            [[row[key] for key in _COLUMNS] for row in _rule_rows(done, rules)],
        ),
        "",
    ]
    rows = []
    for commit, report in _reports(done):
        if report is None:
            rows.append([commit.sha[:10], "root", "", _cut(commit.subject)])
            continue
        said = sorted({f.rule for f in report.findings} | {u.rule or "-" for u in report.unchecked})
        owed = sorted({d.rule for d in report.deferred} - set(said))
        status = json_status(report.status)
        if status == "pass" and owed:
            status = "owed"  # it passes only if the PR's description gives what is owed
        named = [*said, *(f"{rule} (owed)" for rule in owed)]
        rows.append([commit.sha[:10], status, ", ".join(named), _cut(commit.subject)])
    lines.append(_table(["commit", "status", "rules", "subject"], rows))
    return "\n".join(lines)


_COLUMNS = (
    "rule", "kind", "severity", "fired", "findings", "commits_with_findings", "owed", "unchecked",
)  # fmt: skip


def _cut(text: str, width: int = 60) -> str:
    return text if len(text) <= width else text[: width - 3] + "..."


def _table(header: list[str], rows: list[list[Any]]) -> str:
    cells = [header, *([str(cell) for cell in row] for row in rows)]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]
    return "\n".join(
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in cells
    )
