"""`cagr` entry point: argument parsing and dispatch. Commands live one per module.

`cagr hook` is dispatched before anything else is imported: it runs on every shell command an
agent makes, and argparse alone would cost it more than its whole budget allows.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence


def _parser() -> argparse.ArgumentParser:
    import argparse  # noqa: PLC0415

    from cagr_core.version import VERSION  # noqa: PLC0415

    from .output import format_option  # noqa: PLC0415

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
    rules_check_parser.set_defaults(command_module="rules_check")

    changes_parser = commands.add_parser(
        "changes", parents=[fmt], help="show the change cagr sees, entry by entry"
    )
    _range_options(changes_parser)
    changes_parser.set_defaults(command_module="changes")

    explain_parser = commands.add_parser("explain", parents=[fmt], help="show what a rule checks")
    explain_parser.add_argument("id", help="the rule id")
    explain_parser.set_defaults(command_module="explain")

    schema_parser = commands.add_parser(
        "schema", parents=[fmt], help="print, write or check schema/cagr.schema.json"
    )
    mode = schema_parser.add_mutually_exclusive_group()
    mode.add_argument("--write", action="store_true", help="write schema/cagr.schema.json")
    mode.add_argument("--check", action="store_true", help="exit 1 if the saved file differs")
    schema_parser.set_defaults(command_module="schema")

    doctor_parser = commands.add_parser(
        "doctor", parents=[fmt], help="diagnose config, range, gate record and agent hooks"
    )
    doctor_parser.set_defaults(command_module="doctor")

    init_parser = commands.add_parser(
        "init", help="set cagr up: suggested rules (the default), agent hooks"
    )
    init_parser.add_argument(
        "--rules",
        action="store_true",
        help="write .cagr/changes.toml with suggested rules, commented out (the default)",
    )
    init_parser.add_argument("--force", action="store_true", help="replace .cagr/changes.toml")
    init_parser.add_argument(
        "--hooks",
        metavar="AGENT",
        action="append",
        choices=("claude", "codex", "cursor", "gemini"),
        help="merge cagr's hooks into this agent's project settings (repeatable)",
    )
    init_parser.add_argument(
        "--hook-command",
        metavar="CMD",
        default="cagr hook",
        help="how the agent runs cagr (default: `cagr hook`; e.g. `.venv/bin/cagr hook`)",
    )
    init_parser.set_defaults(command_module="init")

    hook_parser = commands.add_parser(
        "hook", help="an agent hook call: the agent's JSON on stdin, its answer on stdout"
    )
    hook_parser.add_argument("--agent", choices=("claude", "codex", "cursor", "gemini"))
    hook_parser.add_argument(
        "--deadline", metavar="SECONDS", help="the whole hook's time (default: 60)"
    )
    hook_parser.set_defaults(command_module="hook")
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
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["hook"]:
        try:
            from cagr_hooks.entry import main as hook  # noqa: PLC0415
        except Exception as error:  # a hook never fails the agent's call
            print(f"cagr hook: cannot start ({error}); the call was let through.", file=sys.stderr)
            return 0
        return hook(args[1:])
    return _run(args)


def _run(argv: list[str]) -> int:
    import importlib  # noqa: PLC0415

    from .output import EXIT_INVALID  # noqa: PLC0415

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
