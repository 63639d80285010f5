"""`cagr init`: set cagr up in this repository, one part per option.

A thin dispatcher: each option's work lives with what it installs (`--ci github`: the workflow,
in cagr_ci.workflow), and each says what it did, or why it left a file alone.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from cagr_ci.workflow import install_workflow
from cagr_repo.gitdir import NotARepository, find_checkout

from ..output import EXIT_FINDINGS, EXIT_INVALID, EXIT_OK


def run(args: argparse.Namespace) -> int:
    try:
        checkout = find_checkout(args.repo)
    except NotARepository as error:
        print(f"cagr init: {error}", file=sys.stderr)
        return EXIT_INVALID
    if checkout.root is None:
        print(
            f"cagr init: {checkout.gitdir} is a bare repository; run it in a clone.",
            file=sys.stderr,
        )
        return EXIT_INVALID
    root = Path(checkout.root)
    if args.ci is None:
        print("cagr init: nothing to set up; give --ci github.", file=sys.stderr)
        return EXIT_INVALID
    code = EXIT_OK
    if args.ci == "github":
        result = install_workflow(root, args.force)
        stream = sys.stderr if result.outcome == "refused" else sys.stdout
        print(f"cagr init: {result.message}", file=stream)
        if result.outcome == "refused":
            code = EXIT_FINDINGS
    return code
