"""Shared command-line plumbing: the --format option, JSON printing, and config errors."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cagr_repo.config import RepoConfig

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_INVALID = 2
EXIT_UNCHECKED = 3


def format_option() -> argparse.ArgumentParser:
    """A parent parser giving a command `--format text|json`."""
    parent = argparse.ArgumentParser(add_help=False)
    parent.add_argument("--format", choices=("text", "json"), default="text", help="output format")
    return parent


def print_json(data: Any) -> None:
    json.dump(data, sys.stdout, indent=2, ensure_ascii=True)  # paths may hold undecodable bytes
    sys.stdout.write("\n")


def load(args: argparse.Namespace) -> RepoConfig | int:
    """The repo's configuration, or the exit code after printing every config problem."""
    from cagr_repo.config import ConfigErrors, find_root, load_config  # noqa: PLC0415  # keeps `cagr --version` light

    root = find_root(Path(args.repo))
    try:
        return load_config(root)
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
