"""`cagr rules check [--committed | --pushed] [--base REV]`: the change rules on this
checkout's change.

Without --committed: merge base -> working tree. With it: merge base -> HEAD, and the result is
written as the gate record the `gh pr create` hook reads. With --pushed (a pre-push hook): merge
base -> each pushed ref's tip, judged by the configuration committed there; the record is
written for a tip that is HEAD. PR-body rules are deferred in both:
no PR description exists locally; the PR gate and CI check them. With --body-file, they (and
`[review].pr_sections`) are checked against that drafted description instead; the gate record
still keeps them deferred, since the body that counts at the gate is the one on the `gh` command.
"""

from __future__ import annotations

import argparse
import os
import sys

from cagr_core.description import SECTIONS_RULE
from cagr_core.pull_request import MAX_BODY_BYTES, PrBody
from cagr_core.render import render_text
from cagr_core.report_json import report_data
from cagr_git.discover import Checkout
from cagr_git.refs import read_ref
from cagr_git.repository import open_repo
from cagr_repo.body_file import BodyFileError, read_body_file
from cagr_repo.check import CheckRequest, check
from cagr_repo.collect import BareRepository
from cagr_repo.config import RepoConfig
from cagr_repo.judging_config import committed_config
from cagr_repo.pushed import Pushed, PushProblem, from_hook_lines, from_pre_commit

from ..checkout import (
    checkout_and_config,
    config_errors,
    open_checkout,
    unknown_rules,
    unread_note,
)
from ..output import EXIT_INVALID, exit_code, print_json


def run(args: argparse.Namespace) -> int:
    if args.pushed:
        return _run_pushed(args)
    # A committed check is judged by HEAD's configuration: the working tree's may be invalid.
    opened = checkout_and_config(args) if args.committed else open_checkout(args)
    if isinstance(opened, int):
        return opened
    checkout, config = opened
    pr_body = None
    if args.body_file is not None:
        try:
            pr_body = PrBody(read_body_file(args.body_file, MAX_BODY_BYTES))
        except BodyFileError as error:
            print(f"cagr rules check: {error}", file=sys.stderr)
            return EXIT_INVALID
    judged_by = committed_config(config, checkout) if args.committed else None
    if args.rule:
        judging = judged_by.config if judged_by is not None else config
        if isinstance(judging, RepoConfig):
            known = [c.id for c in judging.rules.rules] + [SECTIONS_RULE]
            wrong = unknown_rules(args, known)
            if wrong is not None:
                return wrong
    request = CheckRequest(
        committed=args.committed,
        base=args.base,
        body=pr_body,
        note_uncommitted=True,
        rules=tuple(args.rule) if args.rule else None,
    )
    try:
        result = check(config, checkout, request, judged_by=judged_by)
    except BareRepository as error:
        print(f"cagr rules check: {error}", file=sys.stderr)
        return EXIT_INVALID
    if result.record_note is not None:
        print(f"cagr: {result.record_note}", file=sys.stderr)
    if judged_by is not None and judged_by.config is None:  # nothing was evaluated
        return config_errors(args, judged_by.head_issues, "the configuration committed at HEAD")
    report = result.report
    no_rules = result.config is not None and not result.config.rules.rules
    unread = unread_note(args.repo) if no_rules else None  # why none: files cagr does not read
    if args.format == "json":
        data = report_data(report)
        if args.committed:
            data["config_from"] = "HEAD" if result.config_from_head else "working tree"
        data["not_read"] = unread
        print_json(data)
        return exit_code(report)
    print(render_text(report) if unread is None else f"{unread}\n\n{render_text(report)}")
    return exit_code(report)


def _run_pushed(args: argparse.Namespace) -> int:
    """Each pushed ref's tip, judged as `--committed` judges HEAD; the worst exit code."""
    if args.body_file is not None:
        print("cagr rules check: --pushed takes no --body-file", file=sys.stderr)
        return EXIT_INVALID
    opened = checkout_and_config(args)
    if isinstance(opened, int):
        return opened
    checkout, config = opened
    try:
        refs = _pushed_refs(checkout)
    except PushProblem as problem:
        print(f"cagr rules check --pushed: {problem}", file=sys.stderr)
        return EXIT_INVALID
    if refs is None:
        return run(argparse.Namespace(**{**vars(args), "pushed": False, "committed": True}))
    head = read_ref(checkout, "HEAD")
    codes, reports = [], []
    for pushed in refs:
        judged_by = committed_config(config, checkout, pushed.commit)
        request = CheckRequest(
            committed=True,
            base=args.base,
            head=None if pushed.commit == head else pushed.commit,
            head_branch=pushed.branch,
            note_uncommitted=pushed.commit == head,
        )
        result = check(config, checkout, request, judged_by=judged_by)
        if judged_by.config is None:  # nothing was evaluated
            where = f"the configuration committed at {pushed.local_ref}"
            return config_errors(args, judged_by.head_issues, where)
        codes.append(exit_code(result.report))
        reports.append((pushed, result.report))
    if args.format == "json":
        worst = max(codes, key=_WORST.index) if codes else 0
        data = {
            "status": {0: "pass", 1: "fail", 3: "unchecked"}[worst],
            "pushed": [
                {"local_ref": p.local_ref, "commit": p.commit, "remote_ref": p.remote_ref}
                | report_data(report)
                for p, report in reports
            ],
        }
        print_json(data)
        return worst
    if not reports:
        print(
            "cagr rules check --pushed: the push sends no commits (only deletions): nothing to"
            " check."
        )
    for pushed, report in reports:
        print(f"Pushed {pushed.local_ref} at {pushed.commit[:12]}:\n{render_text(report)}\n")
    return max(codes, key=_WORST.index) if codes else 0


_WORST = [0, 3, 1]  # pass, unchecked, finding


def _pushed_refs(checkout: Checkout) -> list[Pushed] | None:
    """What the push sends: pre-commit's variables, else git's hook lines on standard input;
    None when neither says (`pre-commit run --hook-stage pre-push` without refs, a terminal):
    then HEAD is judged, as --committed judges it."""
    with open_repo(checkout) as repo:
        from_tool = from_pre_commit(repo, os.environ)
    if from_tool is not None:
        return from_tool
    lines = "" if sys.stdin is None or sys.stdin.isatty() else sys.stdin.read(_MAX_INPUT)
    return from_hook_lines(lines) if lines.strip() else None


_MAX_INPUT = 1024 * 1024  # of hook lines: MAX_PUSH_LINES lines of refs fit many times over
