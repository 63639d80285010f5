"""`cagr` entry point: argument parsing and dispatch. Commands live one per module."""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Sequence

from cagr_core.version import VERSION

from .output import EXIT_INVALID, format_option


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="cagr",
        description="Change rules: judge the difference between a branch's merge base and its"
        " result, and the pull-request description of that difference.",
    )
    parser.add_argument("--version", action="version", version=f"cagr {VERSION}")
    parser.add_argument("--repo", metavar="DIR", default=".", help="the repository (default: .)")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    fmt = format_option()

    rules = commands.add_parser("rules", help="test or check change rules")
    rules_commands = rules.add_subparsers(dest="rules_command", metavar="COMMAND", required=True)
    test = rules_commands.add_parser(
        "test", parents=[fmt], help="run every rule's examples through the evaluator"
    )
    test.set_defaults(command_module="rules_test")
    rules_check_parser = rules_commands.add_parser(
        "check", parents=[fmt], help="check the change: merge base -> working tree (or HEAD)"
    )
    _range_options(rules_check_parser)
    rules_check_parser.add_argument(
        "--body-file",
        metavar="FILE",
        help="a drafted PR description: PR-body rules are checked against it instead of deferred",
    )
    rules_check_parser.set_defaults(command_module="rules_check")

    changes_parser = commands.add_parser(
        "changes", parents=[fmt], help="show the change cagr sees, entry by entry"
    )
    _range_options(changes_parser)
    changes_parser.set_defaults(command_module="changes")

    explain_parser = commands.add_parser("explain", parents=[fmt], help="show what a rule checks")
    explain_parser.add_argument("id", help="the rule id")
    explain_parser.set_defaults(command_module="explain")

    ci_parser = commands.add_parser(
        "ci", parents=[fmt], help="the CI check: the event's committed change and PR description"
    )
    ci_parser.add_argument(
        "--base",
        metavar="REF",
        help="the target (default: the CI event's, then [git].protected_branch, then main)",
    )
    ci_parser.add_argument(
        "--body-file",
        metavar="FILE",
        help="the PR description to check, for CI systems that do not provide one",
    )
    ci_parser.add_argument(
        "--sarif", metavar="FILE", help="also write a SARIF 2.1.0 log of the findings to FILE"
    )
    ci_parser.set_defaults(command_module="ci")

    init_parser = commands.add_parser("init", help="set cagr up in this repository")
    init_parser.add_argument(
        "--ci",
        choices=("github",),
        help="write the CI workflow that runs `cagr ci` (.github/workflows/cagr.yml)",
    )
    init_parser.add_argument(
        "--force", action="store_true", help="replace files cagr wrote even if they were edited"
    )
    init_parser.set_defaults(command_module="init")

    schema_parser = commands.add_parser(
        "schema", parents=[fmt], help="print, write or check schema/cagr.schema.json"
    )
    mode = schema_parser.add_mutually_exclusive_group()
    mode.add_argument("--write", action="store_true", help="write schema/cagr.schema.json")
    mode.add_argument("--check", action="store_true", help="exit 1 if the saved file differs")
    schema_parser.set_defaults(command_module="schema")
    return parser


def _range_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--committed",
        action="store_true",
        help="merge base -> HEAD (committed trees only); rules check also writes the gate record",
    )
    parser.add_argument(
        "--base",
        metavar="REF",
        help="the target branch (default: [git].protected_branch, then main);"
        " origin/REF is tried before REF",
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Run cagr with `argv` (default: the process arguments) and return the exit code."""
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:  # argparse exits 2 on usage errors, 0 on --help / --version
        return int(exit_.code or 0)
    if not hasattr(args, "command_module"):
        parser.print_help()
        return EXIT_INVALID
    # Commands are imported when run: `cagr --version` and `cagr rules test` never load dulwich.
    module = importlib.import_module(f"cagr_cli.commands.{args.command_module}")
    code: int = module.run(args)
    return code
