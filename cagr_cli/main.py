"""`cagr` entry point: argument parsing and dispatch. Commands live one per module.

`cagr hook` is dispatched before anything else is imported: it runs on every shell command an
agent makes, and argparse alone would cost it more than its whole budget allows. Other commands
build only their own parser when the command line names one: building every command's costs a
call about as much as a bare Python start.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable, Sequence

    Commands = argparse._SubParsersAction[argparse.ArgumentParser]


def _parser(only: str | None = None) -> argparse.ArgumentParser:
    """The command line's parser: with `only`, the one command's parser alone."""
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
    for name, add in _COMMANDS.items():
        if only in (None, name):
            add(commands, fmt)
    return parser


def _rules(commands: Commands, fmt: argparse.ArgumentParser) -> None:
    rules = commands.add_parser("rules", help="test or check change rules")
    rules_commands = rules.add_subparsers(dest="rules_command", metavar="COMMAND", required=True)
    test = rules_commands.add_parser(
        "test", parents=[fmt], help="run every rule's examples through the evaluator"
    )
    _rule_option(test, "test only this rule's examples (repeatable)")
    test.set_defaults(command_module="rules_test", command_parser=test)
    rules_check_parser = rules_commands.add_parser(
        "check", parents=[fmt], help="check the change: merge base -> working tree (or HEAD)"
    )
    _range_options(rules_check_parser)
    _rule_option(
        rules_check_parser,
        "run only this rule (repeatable; review.pr_sections names the headings check): the"
        " report says so, and a committed check writes no gate record",
    )
    rules_check_parser.add_argument(
        "--body-file",
        metavar="FILE",
        help="a drafted PR description: PR-body rules are checked against it instead of deferred",
    )
    rules_check_parser.add_argument(
        "--pushed",
        action="store_true",
        help="judge each commit a push sends (implies --committed): in a pre-push hook, the refs"
        " git gives on standard input, or pre-commit's PRE_COMMIT_TO_REF",
    )
    rules_check_parser.set_defaults(command_module="rules_check", command_parser=rules_check_parser)


def _check(commands: Commands, fmt: argparse.ArgumentParser) -> None:
    check_parser = commands.add_parser(
        "check",
        parents=[fmt],
        help="the code and layout rules on the working tree's files (a snapshot, no change)",
    )
    check_parser.add_argument(
        "paths", nargs="*", metavar="PATH", help="only the files at or under these paths"
    )
    check_parser.add_argument(
        "--all",
        action="store_true",
        help="every tracked file and every untracked file that is not ignored (the default)",
    )
    _rule_option(check_parser, "run only this code or layout rule (repeatable)")
    check_parser.set_defaults(command_module="check", command_parser=check_parser)


def _changes(commands: Commands, fmt: argparse.ArgumentParser) -> None:
    changes_parser = commands.add_parser(
        "changes", parents=[fmt], help="show the change cagr sees, entry by entry"
    )
    _range_options(changes_parser)
    changes_parser.set_defaults(command_module="changes", command_parser=changes_parser)


def _replay(commands: Commands, fmt: argparse.ArgumentParser) -> None:
    replay_parser = commands.add_parser(
        "replay",
        parents=[fmt],
        help="judge recent commits as if each had been a pull request (writes nothing)",
    )
    replay_parser.add_argument(
        "revisions", nargs="*", metavar="REV", help="the commits to judge (default: the last N)"
    )
    replay_parser.add_argument(
        "--base",
        metavar="REV",
        help="whose history: the target (default: [git].protected_branch, origin/HEAD, main)",
    )
    replay_parser.add_argument(
        "--last", type=int, default=20, metavar="N", help="how many first-parent commits (20)"
    )
    replay_parser.add_argument(
        "--body-from",
        metavar="message|FILE",
        help="message: each commit's message stands in for its PR description; FILE: merged pull"
        " requests as `gh pr list --state merged --json number,title,body,mergeCommit,author,"
        "labels` (or `glab mr list --merged --output json`) prints them: a commit one merged is"
        " judged with its description, author and labels",
    )
    replay_parser.set_defaults(command_module="replay", command_parser=replay_parser)


def _explain(commands: Commands, fmt: argparse.ArgumentParser) -> None:
    explain_parser = commands.add_parser("explain", parents=[fmt], help="show what a rule checks")
    explain_parser.add_argument(
        "id", nargs="?", help="the rule id (without one: every rule's id and kind)"
    )
    _rule_option(explain_parser, "explain this rule too (repeatable)")
    explain_parser.set_defaults(command_module="explain", command_parser=explain_parser)


def _ci(commands: Commands, fmt: argparse.ArgumentParser) -> None:
    ci_parser = commands.add_parser(
        "ci", parents=[fmt], help="the CI check: the event's committed change and PR description"
    )
    _ci_options(ci_parser)
    ci_parser.set_defaults(command_module="ci", command_parser=ci_parser)


def _schema(commands: Commands, fmt: argparse.ArgumentParser) -> None:
    schema_parser = commands.add_parser(
        "schema", parents=[fmt], help="print, write or check the editor schema"
    )
    mode = schema_parser.add_mutually_exclusive_group()
    # Without PATH (const True): where the config's `#:schema` lines point, else
    # .cagr/cagr.schema.json (cagr_repo.schema_file).
    mode.add_argument(
        "--write",
        nargs="?",
        const=True,
        metavar="PATH",
        help="write the schema to PATH (default: where the config's `#:schema` line points,"
        " else .cagr/cagr.schema.json)",
    )
    mode.add_argument(
        "--check",
        nargs="?",
        const=True,
        metavar="PATH",
        help="exit 1 if the schema saved at PATH (default: as for --write) differs",
    )
    schema_parser.set_defaults(command_module="schema", command_parser=schema_parser)


def _doctor(commands: Commands, fmt: argparse.ArgumentParser) -> None:
    doctor_parser = commands.add_parser(
        "doctor", parents=[fmt], help="diagnose config, range, gate record and agent hooks"
    )
    doctor_parser.set_defaults(command_module="doctor", command_parser=doctor_parser)


def _init(commands: Commands, _: argparse.ArgumentParser) -> None:
    import argparse  # noqa: PLC0415

    from cagr_hooks.protocols import AGENTS  # noqa: PLC0415

    init_parser = commands.add_parser(
        "init", help="set cagr up: suggested rules (the default), agent hooks, CI"
    )
    init_parser.add_argument(
        "--rules",
        action="store_true",
        help="write .cagr/changes.toml with suggested rules, commented out (the default)",
    )
    init_parser.add_argument(
        "--force",
        action="store_true",
        help="replace .cagr/changes.toml, or a CI workflow that was edited",
    )
    init_parser.add_argument(
        "--body-from",
        metavar="FILE",
        help="merged pull requests as `gh pr list --state merged --json"
        " number,body,mergeCommit,author,labels` prints them (or glab's): a PR-template rule"
        " that fewer than four in five of their descriptions meet is not suggested",
    )
    init_parser.add_argument(
        "--hooks",
        metavar="AGENT",
        action="append",
        choices=AGENTS,
        help="merge cagr's hooks into this agent's project settings (repeatable)",
    )
    init_parser.add_argument(
        "--ci",
        choices=("github",),
        help="write the CI workflow that runs `cagr ci` (.github/workflows/cagr.yml)",
    )
    init_parser.add_argument(
        "--install",
        metavar="SPEC",
        help="with --ci github: what the workflow's `pip install` installs (default: derived from"
        " how cagr is installed here; later runs keep a given SPEC)",
    )
    init_parser.add_argument(
        "--sarif",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="with --ci github: upload a SARIF log of the findings to code scanning (later runs"
        " keep the choice)",
    )
    init_parser.add_argument(
        "--comment",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="with --ci github: keep one comment with the report on each pull request (later"
        " runs keep the choice)",
    )
    init_parser.add_argument(
        "--hook-command",
        metavar="CMD",
        help="how the agent runs cagr's hook (default: what the settings file already uses,"
        ' else `cagr hook`; e.g. `"$CLAUDE_PROJECT_DIR"/.venv/bin/cagr hook`)',
    )
    init_parser.set_defaults(command_module="init", command_parser=init_parser)


def _hook(commands: Commands, _: argparse.ArgumentParser) -> None:
    from cagr_hooks.protocols import AGENTS  # noqa: PLC0415

    hook_parser = commands.add_parser(
        "hook", help="an agent hook call: the agent's JSON on stdin, its answer on stdout"
    )
    hook_parser.add_argument("--agent", choices=AGENTS)
    hook_parser.add_argument(
        "--deadline", metavar="SECONDS", help="the whole hook's time (default: 60)"
    )
    hook_parser.set_defaults(command_module="hook", command_parser=hook_parser)


_COMMANDS: dict[str, Callable[[Commands, argparse.ArgumentParser], None]] = {
    "rules": _rules,
    "check": _check,
    "changes": _changes,
    "replay": _replay,
    "explain": _explain,
    "ci": _ci,
    "schema": _schema,
    "doctor": _doctor,
    "init": _init,
    "hook": _hook,
}


def _named_command(argv: list[str]) -> str | None:
    """The command the arguments name, when nothing before it needs the others (`--help`,
    `--version`, an unknown word): None otherwise."""
    args = iter(argv)
    for arg in args:
        if arg == "--repo":
            next(args, None)
        elif not arg.startswith("--repo="):
            return arg if arg in _COMMANDS else None
    return None


def _ci_options(parser: argparse.ArgumentParser) -> None:
    """`cagr ci`'s own options."""
    parser.add_argument(
        "--base",
        metavar="REF",
        help="the target (default: the CI event's, then [git].protected_branch, origin/HEAD, main)",
    )
    parser.add_argument(
        "--body-file",
        metavar="FILE",
        help="the PR description to check, for CI systems that do not provide one (`-`: read it"
        " from standard input)",
    )
    parser.add_argument(
        "--labels",
        metavar="A,B",
        help="the pull request's labels, for CI systems whose event does not carry them (a"
        " rule's waive_label among them waives its findings)",
    )
    parser.add_argument(
        "--author",
        metavar="LOGIN",
        help="the pull request's author, for CI systems whose event does not name one (a rule's"
        " waive_authors naming it waives its findings)",
    )
    parser.add_argument(
        "--sarif", metavar="FILE", help="also write a SARIF 2.1.0 log of the findings to FILE"
    )
    parser.add_argument(
        "--codequality",
        metavar="FILE",
        help="also write GitLab's code quality report (artifacts: reports: codequality) to FILE",
    )
    parser.add_argument(
        "--comment",
        action="store_true",
        help="keep one comment on the pull (merge) request current with the report (GitHub:"
        " GITHUB_TOKEN with pull-requests: write; GitLab: CAGR_GITLAB_TOKEN); a comment that"
        " cannot be written is a notice, never a failure",
    )


def _rule_option(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument("--rule", metavar="ID", action="append", help=what)


def _range_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--committed",
        action="store_true",
        help="merge base -> HEAD (committed trees only); rules check also writes the gate record",
    )
    parser.add_argument(
        "--base",
        metavar="REV",
        help="the target: a branch (origin/REV is tried before REV) or any revision of a commit"
        " (tag, commit id, HEAD~2); default: [git] protected_branch, then the branch origin/HEAD"
        " names, then main",
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
    from .error_boundary import run_command  # noqa: PLC0415
    from .output import EXIT_INVALID, terminal_safe_streams  # noqa: PLC0415

    with terminal_safe_streams():  # file names must never drive the terminal
        parser = _parser(_named_command(argv))
        try:
            args, unknown = parser.parse_known_args(argv)
        except SystemExit as exit_:  # argparse exits 2 on usage errors, 0 on --help / --version
            return int(exit_.code or 0)
        if unknown:
            return _unrecognized(getattr(args, "command_parser", parser), unknown)
        if not hasattr(args, "command_module"):
            parser.print_help()
            return EXIT_INVALID
        # Commands are imported when run: `cagr --version` and `rules test` never read git.
        return _run_until_the_reader_leaves(run_command, args)


def _unrecognized(parser: argparse.ArgumentParser, unknown: list[str]) -> int:
    """Say which arguments the command does not take, and the option probably meant."""
    import difflib  # noqa: PLC0415

    options = sorted(o for o in parser._option_string_actions if o.startswith("--"))
    lines = []
    for argument in unknown:
        meant = difflib.get_close_matches(argument.split("=", 1)[0], options, n=1, cutoff=0.75)
        guess = f"; did you mean {meant[0]}?" if meant and argument.startswith("-") else ""
        lines.append(f"{parser.prog}: unrecognized argument {argument}{guess}")
    lines.append(f"Run `{parser.prog} --help` for its options.")
    print("\n".join(lines), file=sys.stderr)
    return 2


EXIT_CLOSED_PIPE = 128 + 13  # what a shell reports for a command ended by SIGPIPE


def _run_until_the_reader_leaves(
    run: Callable[[argparse.Namespace], int], args: argparse.Namespace
) -> int:
    """Run a command; when its reader goes away (`cagr changes | head`), stop quietly.

    The output was not all delivered, so the exit code is a closed pipe's, never a pass.
    """
    try:
        code = run(args)
        sys.stdout.flush()  # inside the try: buffered output meets the closed pipe here
    except BrokenPipeError:
        import os  # noqa: PLC0415

        # Python flushes stdout again at exit; point it at /dev/null so that flush succeeds.
        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):  # stdout is no real file (an embedding caller's stream)
            pass
        finally:
            os.close(devnull)
        return EXIT_CLOSED_PIPE
    return code
