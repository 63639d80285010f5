"""`cagr init`: set cagr up in a repository. `--hooks AGENT` merges cagr's hook entries into that
agent's project settings, without losing or duplicating what is there."""

from __future__ import annotations

import argparse
import sys

from cagr_hooks.install import NOTES, InstallError, install

from ..checkout import root_of
from ..output import EXIT_INVALID, EXIT_OK


def run(args: argparse.Namespace) -> int:
    root = root_of(args.repo)
    if not args.hooks:
        print("cagr init: say what to set up: --hooks AGENT", file=sys.stderr)
        return EXIT_INVALID
    for agent in dict.fromkeys(args.hooks):
        try:
            done = install(root, agent, args.hook_command)
        except InstallError as error:
            print(f"cagr init: {error}", file=sys.stderr)
            return EXIT_INVALID
        name = done.path.relative_to(root)
        if done.written:
            print(f"{name}: {', '.join(done.changes)} (cagr's hooks for {agent})")
        else:
            print(f"{name}: cagr's hooks for {agent} are already there; nothing changed")
        print(f"  {NOTES[agent]}")
    return EXIT_OK
