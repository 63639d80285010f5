"""`cagr init`: set cagr up in a repository, in parts.

`--rules` (the default when no part is named) writes `.cagr/changes.toml` with rules suggested by
the repository's files, all commented out; `--hooks AGENT` merges cagr's hooks into that agent's
project settings; `--ci github` writes the workflow that runs `cagr ci` (cagr_ci.workflow).
Nothing existing is overwritten without `--force` or lost.
"""

from __future__ import annotations

import argparse
import stat
import sys
from collections.abc import Callable
from pathlib import Path

from cagr_ci.requirement import NoRequirement
from cagr_ci.workflow import install_workflow, reads_pull_requests
from cagr_core.errors import CagrError
from cagr_git.discover import Checkout, NotARepository, find_checkout
from cagr_git.index import UnreadableIndex, tracked_paths
from cagr_git.repository import open_repo
from cagr_hooks.install import (
    AGENT_NAMES,
    NOTES,
    InstallError,
    behind_others,
    install,
    machine_path,
)
from cagr_hooks.installed import agent_status, resolve
from cagr_repo.config import ConfigErrors, load_config
from cagr_repo.files import UnsafeOutput, output_path, write_atomically
from cagr_repo.pr_export import ExportedPullRequest, PrExportError, read_pr_export
from cagr_repo.schema_file import DEFAULT_SCHEMA_FILE as SCHEMA_FILE
from cagr_repo.suggest import History, render, suggest
from cagr_repo.suggest_history import read_history

from ..output import EXIT_INVALID, EXIT_OK
from .schema import schema_text

RULES_FILE = ".cagr/changes.toml"


def _rules(
    root: Path, checkout: Checkout, force: bool, descriptions: list[ExportedPullRequest] | None
) -> int:
    try:
        path = Path(output_path(str(root / RULES_FILE), str(root), confined=True))
        schema = Path(output_path(str(root / SCHEMA_FILE), str(root), confined=True))
    except UnsafeOutput as error:
        print(f"cagr init: {error}; nothing was written", file=sys.stderr)
        return EXIT_INVALID
    if path.exists() and not force:
        print(
            f"cagr init: {RULES_FILE} exists; it was left as it was (--force replaces it)",
            file=sys.stderr,
        )
        return EXIT_INVALID
    try:
        tracked = tracked_paths(checkout.gitdir)
    except UnreadableIndex as error:
        print(
            f"cagr init: cannot read the index ({error}), so no rules can be suggested;"
            " nothing was written",
            file=sys.stderr,
        )
        return EXIT_INVALID
    found = suggest(tracked, _history(checkout, tracked), _reader(root), descriptions)
    write_atomically(str(path), render(found).encode("utf-8"))
    suggestions = [s for s in found if s.withheld is None]
    print(f"{RULES_FILE}: {len(suggestions)} suggested rule(s), commented out:")
    for suggestion in suggestions:
        kind = suggestion.rule.get("kind", suggestion.table)
        print(f"  {suggestion.rule['id']} ({kind}): {suggestion.why}")
    for withheld in (s for s in found if s.withheld is not None):
        print(f"  not suggested: {withheld.rule['id']}: {withheld.withheld}")
    print("  Uncomment what fits, then run `cagr rules test` and `cagr rules check`.")
    if not schema.exists():
        write_atomically(str(schema), schema_text().encode("utf-8"))
        print(
            f"{SCHEMA_FILE}: the editor schema its `#:schema` line points at"
            " (`cagr schema --check` tells when a newer cagr changed it; `cagr schema --write`"
            " rewrites it)"
        )
    return EXIT_OK


_MAX_TEMPLATE_BYTES = 1 << 16


def _reader(root: Path) -> Callable[[str], str | None]:
    """Reads a tracked regular file of the working tree (never through a symlink); None when
    it is not one, or too large to be a PR template."""

    def read(path: str) -> str | None:
        try:
            where = root / path
            if not stat.S_ISREG(where.lstat().st_mode) or any(
                p.is_symlink() for p in where.parents if root in p.parents
            ):
                return None
            data = where.read_bytes()
        except OSError:
            return None
        return data.decode("utf-8", "replace") if len(data) <= _MAX_TEMPLATE_BYTES else None

    return read


def _history(checkout: Checkout, tracked: list[str]) -> History:
    """Recent history for the suggestions that need it; none when it cannot be read."""
    try:
        with open_repo(checkout) as repo:
            return read_history(repo, tracked) if repo.problem is None else History()
    except CagrError:  # what cannot be read suggests nothing; the layout still does
        return History()


def _hooks(root: Path, agents: list[str], command: str | None) -> int:
    if command is not None and machine_path(command):
        print(
            f"cagr init: `{machine_path(command)}` is a path on this machine, and teams commit"
            " the agents' settings files: a teammate's agent would not find it. Use `cagr` on"
            " the PATH, a path in the project (`.venv/bin/cagr hook`), or one under the agent's"
            ' project variable (`"$CLAUDE_PROJECT_DIR"/.venv/bin/cagr hook`).',
            file=sys.stderr,
        )
        return EXIT_INVALID
    for agent in dict.fromkeys(agents):
        try:
            done = install(root, agent, command)
        except InstallError as error:
            print(f"cagr init: {error}", file=sys.stderr)
            return EXIT_INVALID
        name = done.path.relative_to(root) if done.path.is_relative_to(root) else done.path
        if done.written:
            print(f"{name}: {', '.join(done.changes)} (cagr's hooks for {agent})")
        else:
            print(f"{name}: cagr's hooks for {agent} are already there; nothing changed")
        print(f"  {NOTES[agent]}")
        runs = agent_status(root, agent).runs
        if runs is not None:
            answer = {True: "yes", False: "not yet", None: "cagr cannot tell"}[runs.will_run]
            fix = f" Fix: {runs.fix}." if runs.fix else ""
            print(f"  Will {AGENT_NAMES[agent]} run them here? {answer}: {runs.why}.{fix}")
        later = behind_others(done.path) if agent == "cursor" else []
        if later:
            print(
                f"  In {', '.join(later)}, cagr's entry follows others. Cursor runs every entry"
                " of a list (its documentation says so); versions from late 2025 ran only the"
                " first. If Cursor's Hooks tab shows cagr's never ran, update Cursor or move"
                " cagr's entry first."
            )
        resolved, why = resolve(root, agent, done.command)
        if resolved is None:
            print(
                f"  Warning: {why}, so the agent may not find it either: its hooks would then let"
                " every call through without cagr. Give the command with --hook-command (for"
                " example the virtualenv's cagr, as a path in the project).",
                file=sys.stderr,
            )
        if machine_path(done.command):
            print(
                f"  Warning: `{machine_path(done.command)}` is a path on this machine; teammates"
                " who use the committed file lack it. Give --hook-command to change it.",
                file=sys.stderr,
            )
    return EXIT_OK


def _ci(root: Path, args: argparse.Namespace) -> int:
    try:  # whether merge queue runs need the queued pull request's description or labels
        pull_requests: bool | None = reads_pull_requests(load_config(root))
    except ConfigErrors:
        pull_requests = None
        print(
            "cagr init: the configuration is invalid (`cagr doctor` lists why), so whether the"
            " rules need pull-request metadata is unknown: the workflow keeps its permissions."
            " Rerun `cagr init --ci github` once it is valid.",
            file=sys.stderr,
        )
    try:
        result = install_workflow(
            root,
            args.force,
            install=args.install,
            sarif=args.sarif,
            comment=args.comment,
            pull_requests=pull_requests,
        )
    except NoRequirement as error:
        print(f"cagr init: {error.message} {error.fix}", file=sys.stderr)
        return EXIT_INVALID  # nothing was written
    if result.outcome == "refused":
        print(f"cagr init: {result.message}", file=sys.stderr)
        return EXIT_INVALID  # as for an existing rules file: nothing was replaced
    print(f"cagr init: {result.message}")
    if result.options is not None:
        given = " (given with --install)" if result.options.given else ""
        print(f"  Install step: pip install {result.options.requirement!r}{given}")
        if result.options.sarif:
            print(
                "  The job uploads a SARIF log to code scanning (it needs code scanning enabled"
                " for the repository; pull requests from forks cannot upload)."
            )
        if result.options.pull_requests:
            print(
                "  Merge queue runs read the queued pull request's description and labels from"
                " GitHub's API (the job's token gets `pull-requests: read`)."
            )
        if result.options.comment:
            print(
                "  The job keeps one comment with the report on each pull request (its token"
                " gets `pull-requests: write`; pull requests from forks go without)."
            )
    return EXIT_OK


def run(args: argparse.Namespace) -> int:
    if args.ci is None and (
        args.install is not None or args.sarif is not None or args.comment is not None
    ):
        print("cagr init: --install, --sarif and --comment go with --ci github.", file=sys.stderr)
        return EXIT_INVALID
    descriptions = None
    if args.body_from is not None:
        try:
            exported = read_pr_export(args.body_from)
        except PrExportError as error:
            print(f"cagr init: --body-from: {error}", file=sys.stderr)
            return EXIT_INVALID
        # a merge request may be named by its merge and its squash commit: count it once
        descriptions = list({(d.forge, d.number): d for d in exported.values()}.values())
    try:
        checkout = find_checkout(args.repo)
    except NotARepository as error:
        print(
            f"cagr init: {error}. cagr sets up a git repository: run `git init` first, or run"
            " cagr init inside one (or name it with --repo).",
            file=sys.stderr,
        )
        return EXIT_INVALID
    if checkout.root is None:
        print(
            f"cagr init: {checkout.gitdir} is a bare repository; run cagr init in a clone.",
            file=sys.stderr,
        )
        return EXIT_INVALID
    root = Path(checkout.root)
    rules = args.rules or not (args.hooks or args.ci)
    if descriptions is not None and not rules:
        print("cagr init: --body-from goes with the suggested rules (--rules).", file=sys.stderr)
        return EXIT_INVALID
    code = _rules(root, checkout, args.force, descriptions) if rules else EXIT_OK
    if args.hooks:
        code = max(code, _hooks(root, args.hooks, args.hook_command))
    if args.ci == "github":
        code = max(code, _ci(root, args))
    return code
