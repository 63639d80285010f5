"""`cagr [--repo DIR] hook`: the agent hook, reached through the full parser (plain `cagr hook`
is dispatched before the parser loads). The payload's `cwd` says where the agent works."""

from __future__ import annotations

import argparse

from cagr_hooks.entry import main


def run(args: argparse.Namespace) -> int:
    argv = [*(["--agent", args.agent] if args.agent else [])]
    argv += ["--deadline", args.deadline] if args.deadline else []
    return main(argv)
