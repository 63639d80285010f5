"""`cagr rules check [--committed] [--base REV]`: the change rules on this checkout's change.

Without --committed: merge base -> working tree. With it: merge base -> HEAD, and the result is
written as the gate record the `gh pr create` hook reads. PR-body rules are deferred in both:
no PR description exists locally; the PR gate and CI check them. With --body-file, they (and
`[review].pr_sections`) are checked against that drafted description instead; the gate record
still keeps them deferred, since the body that counts at the gate is the one on the `gh` command.
"""

from __future__ import annotations

import argparse
import sys

from cagr_core.description import SECTIONS_RULE
from cagr_core.pull_request import MAX_BODY_BYTES, PrBody
from cagr_core.render import render_text
from cagr_core.report_json import report_data
from cagr_repo.body_file import BodyFileError, read_body_file
from cagr_repo.check import CheckRequest, check
from cagr_repo.collect import BareRepository
from cagr_repo.config import RepoConfig
from cagr_repo.judging_config import committed_config

from ..checkout import checkout_and_config, config_errors, open_checkout, unknown_rules
from ..output import EXIT_INVALID, exit_code, print_json


def run(args: argparse.Namespace) -> int:
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
    if args.format == "json":
        data = report_data(report)
        if args.committed:
            data["config_from"] = "HEAD" if result.config_from_head else "working tree"
        print_json(data)
        return exit_code(report)
    print(render_text(report))
    return exit_code(report)
