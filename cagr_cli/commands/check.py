"""`cagr check [--all | PATH...]`: the code and layout rules on the working tree's files.

A snapshot, not a change: every tracked file and every untracked file that is not ignored
(`--all`, the default), or those at or under the given paths, each judged as if added, so a code
rule reports every match and a layout rule every name. No target, no merge base, no PR body, no
gate record; the exit codes are every command's (0 pass, 1 a finding, 2 usage or config, 3
unchecked). `cagr rules check` judges the branch's change instead.
"""

from __future__ import annotations

import argparse
import os
import sys

from cagr_core.render import render_text
from cagr_core.report_json import report_data
from cagr_repo.check import CheckRequest, check
from cagr_repo.collect import BareRepository

from ..checkout import fail, open_checkout, unknown_rules
from ..output import EXIT_INVALID, exit_code, print_json


def _relative(paths: list[str], root: str) -> tuple[str, ...] | str:
    """The given paths from the repository root, or why one is not inside it."""
    found = []
    real_root = os.path.realpath(root)
    for path in paths:
        absolute = os.path.realpath(os.path.abspath(path))
        relative = os.path.relpath(absolute, real_root)
        if relative == os.pardir or relative.startswith(os.pardir + os.sep):
            return f"{path} is not inside the repository at {root}"
        found.append("" if relative == os.curdir else relative.replace(os.sep, "/"))
    return tuple(found)


def run(args: argparse.Namespace) -> int:
    opened = open_checkout(args)
    if isinstance(opened, int):
        return opened
    checkout, config = opened
    assert checkout.root is not None
    if args.all and args.paths:
        return fail(args, "give --all or paths, not both (--all is the default)")
    paths = None
    if args.paths:
        relative = _relative(args.paths, checkout.root)
        if isinstance(relative, str):
            return fail(args, relative)
        paths = relative
    if args.rule:
        known = [c.id for c in config.rules.judging_files().rules]
        wrong = unknown_rules(args, known)
        if wrong is not None:
            return wrong
    request = CheckRequest(
        snapshot=True, paths=paths, rules=tuple(args.rule) if args.rule else None
    )
    try:
        result = check(config, checkout, request)
    except BareRepository as error:
        print(f"cagr check: {error}", file=sys.stderr)
        return EXIT_INVALID
    if paths is not None:
        seen = [c.path for c in result.changes.changes] + [
            u.path for u in result.changes.unchecked if u.path is not None
        ]
        for given, path in zip(args.paths, paths, strict=True):
            inside = path.rstrip("/") + "/"
            if path not in ("", ".") and not any(s == path or s.startswith(inside) for s in seen):
                return fail(
                    args,
                    f"{given}: no tracked file, and no untracked file that is not ignored, is"
                    " there",
                )
    report = result.report
    if args.format == "json":
        print_json(report_data(report))
    else:
        print(render_text(report))
        if not config.rules.judging_files().rules:
            print(
                "No code or layout rules are configured: `cagr check` runs only `[[code.rules]]`"
                " and `[[layout.rules]]` (docs/code-rules.md); `cagr rules check` judges the"
                " change rules."
            )
    return exit_code(report)
