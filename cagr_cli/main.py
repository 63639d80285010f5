"""`cagr` entry point: argument parsing and dispatch. Commands live one per module."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from importlib.metadata import PackageNotFoundError, version


def cagr_version() -> str:
    try:
        return version("cagr")
    except PackageNotFoundError:  # running from a source tree that was never installed
        return "0+unknown"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="cagr",
        description="Change rules: judge the difference between a branch's merge base and its"
        " result, and the pull-request description of that difference.",
    )
    parser.add_argument("--version", action="version", version=f"cagr {cagr_version()}")
    parser.add_argument("--repo", metavar="DIR", default=".", help="the repository (default: .)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run cagr with `argv` (default: the process arguments) and return the exit code."""
    parser = _parser()
    parser.parse_args(argv)
    parser.print_help()
    return 0
