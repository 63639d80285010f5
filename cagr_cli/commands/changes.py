"""`cagr changes [--committed] [--base REV]`: what cagr sees as the change, entry by entry."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from cagr_core.changes import Change, ChangeSet, Side, Stage, Unchecked
from cagr_core.report_json import range_data, unchecked_data
from cagr_core.ruleset import RuleSet
from cagr_core.values import replace
from cagr_git.discover import Checkout
from cagr_git.repository import open_repo
from cagr_repo.collect import BareRepository, collect_committed, collect_working_tree
from cagr_repo.config import RepoConfig
from cagr_repo.judging_config import (
    InvalidConfig,
    WorkingConfig,
    committed_config,
    config_unlike_git,
)
from cagr_repo.target import choose_target, own_branch

from ..checkout import checkout_and_config
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
    opened = checkout_and_config(args)  # no rules needed: an invalid configuration is said
    if isinstance(opened, int):
        return opened
    checkout, working = opened
    config, unknown = _judging(working, checkout, args.committed)
    rules = config.rules if config is not None else RuleSet.of(())
    protected = config.settings.protected_branch if config is not None else None
    try:
        with open_repo(checkout) as repo:
            target = choose_target(checkout, args.base, protected)
            collect = collect_committed if args.committed else collect_working_tree
            own = own_branch(checkout) if target.guessed and args.committed else None
            changes = collect(repo, target.name, rules, chosen_by=target.chosen_by, own_branch=own)
            if unknown is None and config is not None and not args.committed:
                unlike = config_unlike_git(repo, changes, config.root)
                files = unlike.absent + unlike.differs
                unknown = (
                    f"{', '.join(files)} (in git, not on disk as git has it)" if files else None
                )
    except BareRepository as error:
        print(f"cagr changes: {error}", file=sys.stderr)
        return EXIT_INVALID
    if unknown is not None and args.base is None:
        # The target is the one thing here the configuration decides.
        message = (
            f"the target was chosen without [git] protected_branch: cagr cannot read it from"
            f" {unknown}, so this may not be the range a check judges. Name the target with"
            " --base, or fix the configuration."
        )
        changes = replace(
            changes, unchecked=(*changes.unchecked, Unchecked(None, Stage.CONFIG, message))
        )
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


def _judging(
    working: WorkingConfig, checkout: Checkout, committed: bool
) -> tuple[RepoConfig | None, str | None]:
    """The configuration a check of this range would be judged by (HEAD's for --committed),
    or None and where it cannot be read from."""
    if committed:
        judged = committed_config(working, checkout)
        return judged.config, None if judged.config is not None else "HEAD's invalid configuration"
    if isinstance(working, InvalidConfig):
        return None, f"the working tree's invalid configuration ({working.listed()})"
    return working, None
