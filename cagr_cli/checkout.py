"""The checkout a command runs on, and its configuration; problems become messages and exit 2."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from cagr_core.errors import ConfigIssue
from cagr_git.discover import Checkout, NotARepository, find_checkout
from cagr_git.revision_syntax import syntax_problem
from cagr_repo.config import ConfigErrors, RepoConfig, load_config

from .output import EXIT_INVALID, print_json

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

    from cagr_repo.judging_config import WorkingConfig


def fail(args: argparse.Namespace, message: str, program: str = "cagr") -> int:
    """Say why the command cannot run (a JSON error object with --format json); exit 2."""
    if args.format == "json":
        print_json(
            {"status": "error", "errors": [{"source": None, "where": "", "message": message}]}
        )
    else:
        print(f"{program}: {message}", file=sys.stderr)
    return EXIT_INVALID


def root_of(start: str) -> Path:
    """The work tree `start` is in, or `start` itself outside any repository (rules can be
    tested and explained without git)."""
    from pathlib import Path  # noqa: PLC0415  # a check on a checkout has no need of it

    try:
        checkout = find_checkout(start)
    except NotARepository:
        return Path(os.path.realpath(start))
    return Path(checkout.root if checkout.root is not None else os.path.realpath(start))


def config_root(args: argparse.Namespace) -> Path | int:
    """Where `rules test` and `explain` read configuration: the work tree `--repo` is in (or
    the folder itself, outside git); exit 2 after saying why for a git directory (a bare
    repository, or inside `.git`), which holds no configuration, so "no rules" would be wrong."""
    from pathlib import Path  # noqa: PLC0415  # a check on a checkout has no need of it

    try:
        checkout = find_checkout(args.repo)
    except NotARepository:
        return Path(os.path.realpath(args.repo))
    if checkout.root is None:
        return fail(
            args,
            f"{os.path.realpath(args.repo)} is in git's own directory ({checkout.gitdir}: a bare"
            " repository, or the .git folder of a checkout), which holds no work tree and so no"
            " cagr configuration to read. Run cagr in the work tree.",
        )
    return Path(checkout.root)


def unread_note(start: str) -> str | None:
    """What says why no rules were found, when config files sit where cagr does not read them
    (a cagr.toml or .cagr/ in a subfolder): None when there are none."""
    try:
        checkout = find_checkout(start)
    except NotARepository:
        return None
    from cagr_repo.judging_config import unread_config  # noqa: PLC0415  # reads the index

    unread = unread_config(checkout, os.path.realpath(start))
    return unread.describe() if unread else None


def not_on_disk(start: str) -> tuple[str, ...]:
    """Config files HEAD holds that the work tree `start` is in lacks (none outside git)."""
    try:
        checkout = find_checkout(start)
    except NotARepository:
        return ()
    if checkout.root is None:
        return ()
    from cagr_repo.judging_config import committed_not_on_disk  # noqa: PLC0415  # reads objects

    return committed_not_on_disk(checkout, checkout.root)


def target_problem(base: str | None) -> str | None:
    """Why `--base` cannot name a target (blank, a range, `@{...}`, `REV:path`, an option): a
    usage error, said before anything is read. None when it may name one."""
    if base is None:
        return None
    if not base.strip():
        return "--base is empty; name the target branch or commit, e.g. --base main"
    problem = syntax_problem(base)
    return None if problem is None else f"--base {' '.join(problem)}"


def checkout_and_config(
    args: argparse.Namespace, *, kept: bool = True
) -> tuple[Checkout, WorkingConfig] | int:
    """The repository at `--repo` with its working tree's configuration, valid or not (a
    committed check is judged by HEAD's), or the exit code after saying why not (a `--base`
    that names no target is a usage error, said first). `kept`: read it through the compiled
    form kept in the git directory (CI trusts nothing local, so it compiles afresh)."""
    wrong_base = target_problem(getattr(args, "base", None))
    if wrong_base is not None:
        return fail(args, wrong_base)
    try:
        checkout = find_checkout(args.repo)
    except NotARepository as error:
        return fail(args, str(error))
    if checkout.root is None:
        return fail(
            args,
            f"{checkout.gitdir} is a bare repository: it has no checkout to read cagr's"
            " configuration from. Run cagr in a clone with a work tree.",
        )
    from cagr_repo.judging_config import read_working_config  # noqa: PLC0415  # reads objects

    return checkout, read_working_config(checkout.root, checkout.gitdir if kept else None)


def open_checkout(
    args: argparse.Namespace, *, kept: bool = True
) -> tuple[Checkout, RepoConfig] | int:
    """The repository at `--repo` with its configuration, or the exit code after saying why not
    (for commands the working tree's rules judge: an invalid configuration stops them).
    `kept`: as for checkout_and_config (a command that writes nothing keeps nothing)."""
    opened = checkout_and_config(args, kept=kept)
    if isinstance(opened, int):
        return opened
    checkout, config = opened
    if not isinstance(config, RepoConfig):
        return config_errors(args, config.issues)
    return checkout, config


def unknown_rules(args: argparse.Namespace, known: Sequence[str]) -> int | None:
    """`--rule` ids no rule has: the exit code after saying which, with the ids there are
    (None: every one names a rule, or none was given)."""
    import difflib  # noqa: PLC0415

    wanted = getattr(args, "rule", None) or []
    unknown = [rule for rule in wanted if rule not in known]
    if not unknown:
        return None
    said = []
    for rule in unknown:
        close = difflib.get_close_matches(rule, list(known), n=3, cutoff=0.5)
        said.append(f"{rule!r}" + (f" (did you mean {', '.join(close)}?)" if close else ""))
    listed = ", ".join(sorted(known)) or "none"
    return fail(args, f"--rule {', '.join(said)} names no rule; the rules are: {listed}")


def load(args: argparse.Namespace, root: str | os.PathLike[str]) -> RepoConfig | int:
    """The configuration at `root`, or the exit code after printing every config problem."""
    try:
        return load_config(root)
    except ConfigErrors as errors:
        return config_errors(args, errors.issues)


def config_errors(
    args: argparse.Namespace, issues: Sequence[ConfigIssue], whose: str = "the configuration"
) -> int:
    """Print every config problem (a JSON error object with --format json); exit 2."""
    if args.format == "json":
        print_json(
            {
                "status": "error",
                "errors": [
                    {"source": i.source, "where": i.where, "message": i.message} for i in issues
                ],
            }
        )
    else:
        print(f"cagr: {whose} is invalid ({len(issues)} problem(s)):", file=sys.stderr)
        for issue in issues:
            print(f"  {issue}", file=sys.stderr)
    return EXIT_INVALID
