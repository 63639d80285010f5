"""`cagr replay [--base REV] [--last N] [--body-from message|FILE] [REV...]`: what the rules
would have said on real history, a commit at a time, as if each had been a pull request; writes
nothing. Exit 0 whatever the rules found (2: invalid configuration or usage, or a FILE of pull
requests that cannot be read)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from cagr_core.report import Report
from cagr_core.report_json import json_status, report_data
from cagr_git.log import Commit
from cagr_repo.pr_export import ExportedPullRequest, PrExportError, read_pr_export
from cagr_repo.range import RangeProblem
from cagr_repo.replay import Replay, replay

from ..checkout import fail, open_checkout
from ..output import EXIT_OK, print_json


def run(args: argparse.Namespace) -> int:
    if args.last < 1:
        return fail(args, "--last takes a whole number of commits, 1 or more")
    from_message = args.body_from == "message"
    pull_requests: dict[str, ExportedPullRequest] | None = None
    if args.body_from is not None and not from_message:
        try:
            pull_requests = read_pr_export(args.body_from)
        except PrExportError as error:
            return fail(args, f"--body-from: {error}")
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
            body_from_message=from_message,
            pull_requests=pull_requests,
            progress=progress,
        )
    except RangeProblem as problem:
        return fail(args, str(problem))
    finally:
        if progress is not None:
            print("\r\x1b[K", end="", file=sys.stderr, flush=True)
    rules = {c.id: c for c in config.rules.rules}
    if args.format == "json":
        print_json(_data(done, rules, args.body_from))
    else:
        print(_text(done, rules, args.body_from))
    return EXIT_OK


def _progress(number: int, total: int, commit: Commit) -> None:
    print(f"\rreplaying {number}/{total} {commit.sha[:10]}", end="", file=sys.stderr, flush=True)


def _reports(done: Replay) -> list[tuple[Commit, Report | None]]:
    return [(r.commit, r.result.report if r.result else None) for r in done.commits]


def _rule_rows(done: Replay, rules: dict[str, Any]) -> list[dict[str, Any]]:
    """Per rule: the commits it fired on, its findings, the commits with findings, the PR-body
    obligations it left owed, the commits where it could not be decided, and those where a
    pull request's label or author waived its findings."""
    rows = []
    judged = [(r.result.report, r.waived_owed) for r in done.commits if r.result is not None]
    reports = [report for report, _ in judged]
    for rule_id, compiled in rules.items():
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
                "owed": sum(
                    rule_id not in moot and any(d.rule == rule_id for d in r.deferred)
                    for r, moot in judged
                ),
                "unchecked": sum(any(u.rule == rule_id for u in r.unchecked) for r in reports),
                "waived": sum(
                    rule_id in moot or any(w.finding.rule == rule_id for w in r.waived)
                    for r, moot in judged
                ),
            }
        )
    return rows


def _data(done: Replay, rules: dict[str, Any], body_from: str | None) -> dict[str, Any]:
    commits = []
    for replayed in done.commits:
        commit, report = replayed.commit, replayed.result.report if replayed.result else None
        data = report_data(report) if report is not None else {}
        commits.append(
            {
                "commit": commit.sha,
                "subject": commit.subject,
                "status": json_status(report.status) if report is not None else "root",
                **{key: data.get(key, []) for key in ("findings", "unchecked", "deferred")},
                "waived": data.get("waived", []),
                "description": replayed.description,
                "author": replayed.author,
                "waived_owed": list(replayed.waived_owed),
            }
        )
    return {
        "source": done.source,
        "body_from": body_from,
        "described": _described(done),
        "rules": _rule_rows(done, rules),
        "commits": commits,
    }


def _described(done: Replay) -> int:
    """How many judged commits had a description (a pull request's, or their message)."""
    return sum(r.description is not None for r in done.commits if r.result is not None)


def _text(done: Replay, rules: dict[str, Any], body_from: str | None) -> str:
    judged = sum(r.result is not None for r in done.commits)
    if body_from is None:
        body = (
            "PR-body obligations are counted as owed (--body-from message judges the commit"
            " messages instead, --body-from FILE the merged pull requests' descriptions)"
        )
    elif body_from == "message":
        body = "each commit's message stood in for its PR description"
    else:
        body = (
            f"{_described(done)} of the {judged} commits judged were merged by a pull request"
            f" in {body_from} and had its description, author and labels; the others'"
            " PR-body obligations are counted as owed"
        )
    lines = [
        f"Replayed {done.source}, each as a pull request from its first parent, judged by the"
        f" working tree's rules; {body}. Nothing was written.",
        "",
        _table(
            list(_HEADER),
            [[row[key] for key in _COLUMNS] for row in _rule_rows(done, rules)],
        ),
        "",
    ]
    from_file = body_from not in (None, "message")
    rows = []
    for replayed in done.commits:
        commit, report = replayed.commit, replayed.result.report if replayed.result else None
        # With a file, which pull request's description judged the commit ("-": none did).
        pull_request = [_short(replayed.description)] if from_file else []
        if report is None:
            rows.append([commit.sha[:10], "root", *pull_request, "", _cut(commit.subject)])
            continue
        said = sorted({f.rule for f in report.findings} | {u.rule or "-" for u in report.unchecked})
        moot = set(replayed.waived_owed)  # owed, but its author's pull request waives it
        owed = sorted({d.rule for d in report.deferred} - set(said) - moot)
        waived = sorted(({w.finding.rule for w in report.waived} | moot) - set(said))
        status = json_status(report.status)
        if status == "pass" and owed:
            status = "owed"  # it passes only if the PR's description gives what is owed
        elif status == "pass" and waived:
            status = "waived"  # a waiver is never a pass
        elif status == "pass" and report.warnings:
            status = "warn"  # it passes, with what `warn` rules found shown
        named = [*said, *(f"{rule} (owed)" for rule in owed), *(f"{r} (waived)" for r in waived)]
        row = [commit.sha[:10], status, *pull_request, _names(named), _cut(commit.subject)]
        rows.append(row)
    header = ["commit", "status", *(["pr"] if from_file else []), "rules", "subject"]
    lines.append(_table(header, rows))
    return "\n".join(lines)


def _short(description: str | None) -> str:
    """`#12` for pull request #12, `!12` for merge request !12; `-` for none."""
    return description.rsplit(" ", 1)[-1] if description else "-"


_HEADER = (
    "rule", "kind", "severity", "fired", "findings", "commits", "owed", "unchecked", "waived",
)  # fmt: skip
_COLUMNS = (
    "rule", "kind", "severity", "fired", "findings", "commits_with_findings", "owed", "unchecked",
    "waived",
)  # fmt: skip


def _names(names: list[str], width: int = 60) -> str:
    """Rule names for one row, as many as fit in `width`, then how many more (JSON has all)."""
    shown = ""
    for index, name in enumerate(names):
        more = f" +{len(names) - index} more"
        joined = f"{shown}, {name}" if shown else name
        if index and len(joined) + (len(more) if index < len(names) - 1 else 0) > width:
            return shown + more
        shown = joined
    return shown


def _cut(text: str, width: int = 60) -> str:
    return text if len(text) <= width else text[: width - 3] + "..."


def _table(header: list[str], rows: list[list[Any]]) -> str:
    cells = [header, *([str(cell) for cell in row] for row in rows)]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]
    return "\n".join(
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in cells
    )
