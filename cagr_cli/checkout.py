"""The checkout a command runs on, and its configuration; problems become messages and exit 2."""

from __future__ import annotations

import argparse
import os
import sys

from cagr_git.discover import Checkout, NotARepository, find_checkout
from cagr_repo.config import ConfigErrors, RepoConfig, load_config

from .output import EXIT_INVALID, print_json

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path


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


def open_checkout(args: argparse.Namespace) -> tuple[Checkout, RepoConfig] | int:
    """The repository at `--repo` with its configuration, or the exit code after saying why not."""
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
    config = load(args, checkout.root, checkout.gitdir)
    return config if isinstance(config, int) else (checkout, config)


def load(
    args: argparse.Namespace, root: str | os.PathLike[str], gitdir: str | None = None
) -> RepoConfig | int:
    """The configuration at `root` (kept compiled in `gitdir`, when given), or the exit code
    after printing every config problem."""
    try:
        return load_config(root, gitdir)
    except ConfigErrors as errors:
        if args.format == "json":
            print_json(
                {
                    "status": "error",
                    "errors": [
                        {"source": i.source, "where": i.where, "message": i.message}
                        for i in errors.issues
                    ],
                }
            )
        else:
            print(
                f"cagr: the configuration is invalid ({len(errors.issues)} problem(s)):",
                file=sys.stderr,
            )
            for issue in errors.issues:
                print(f"  {issue}", file=sys.stderr)
        return EXIT_INVALID
