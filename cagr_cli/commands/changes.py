"""`cagr changes [--committed] [--base REV]`: what cagr sees as the change, entry by entry."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from cagr_core.changes import Change, ChangeSet, Side
from cagr_core.render import range_data, unchecked_data
from cagr_git.repository import open_repo
from cagr_repo.collect import BareRepository, collect_committed, collect_working_tree
from cagr_repo.target import choose_target, own_branch

from ..checkout import open_checkout
from ..output import EXIT_INVALID, EXIT_OK, EXIT_UNCHECKED, print_json


def _side_data(side: Side | None) -> dict[str, Any] | None:
    if side is None:
        return None
    return {"mode": f"{side.mode:06o}", "kind": side.kind.value, "id": side.oid}


def _quoted(path: str) -> str:
    """Paths with control characters, quotes or undecodable bytes are printed JSON-quoted."""
    plain = path.isprintable() and '"' not in path and "\\" not in path and path.strip() == path
    return path if plain else json.dumps(path)


def _side_text(side: Side | None) -> str:
    return "-" if side is None else f"{side.mode:06o} {side.kind.value} {side.oid[:12]}"


def _line(change: Change) -> str:
    sides = f"{_side_text(change.old)} -> {_side_text(change.new)}"
    return f"{change.status.value} {sides}  {_quoted(change.path)}"


def changeset_data(changes: ChangeSet) -> dict[str, Any]:
    return {
        "range": range_data(changes.range),
        "changes": [
            {
                "path": c.path,
                "status": c.status.value,
                "old": _side_data(c.old),
                "new": _side_data(c.new),
            }
            for c in changes.changes
        ],
        "pending_staged": list(changes.pending_staged),
        "unchecked": [unchecked_data(item) for item in changes.unchecked],
    }


def run(args: argparse.Namespace) -> int:
    opened = open_checkout(args)
    if isinstance(opened, int):
        return opened
    checkout, config = opened
    try:
        with open_repo(checkout) as repo:
            target = choose_target(checkout, args.base, config.settings.protected_branch)
            collect = collect_committed if args.committed else collect_working_tree
            own = own_branch(checkout) if target.guessed and args.committed else None
            changes = collect(
                repo, target.name, config.rules, chosen_by=target.chosen_by, own_branch=own
            )
    except BareRepository as error:
        print(f"cagr changes: {error}", file=sys.stderr)
        return EXIT_INVALID
    if args.format == "json":
        print_json(changeset_data(changes))
    else:
        if changes.range is not None:
            r = changes.range
            print(f"{r.label} (target {r.target_ref} at {r.target[:7]}, chosen by {r.chosen_by})")
        if changes.changes:  # one write: each goes through the terminal-safe stream
            print("\n".join(map(_line, changes.changes)))
        if changes.pending_staged:
            pending = ", ".join(map(_quoted, changes.pending_staged))
            print(
                "staged, then edited again (the working tree's version was checked; the index"
                f" holds another, which `git commit` would record): {pending}"
            )
        for item in changes.unchecked:
            print(f"unchecked ({item.stage.value}): {item.message}")
        if not changes.changes and not changes.unchecked:
            print("no changes")
    return EXIT_UNCHECKED if changes.unchecked else EXIT_OK
