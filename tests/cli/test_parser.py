"""A command line that names its command builds that command's parser alone; whatever it is,
it parses (and fails) exactly as the whole parser does."""

from __future__ import annotations

import contextlib
import io

import pytest

from cagr_cli.main import _named_command, _parser

LINES = [
    ["rules", "check"],
    ["rules", "check", "--committed", "--base", "main", "--format", "json"],
    ["rules", "check", "--base=HEAD~2", "--body-file", "pr.md"],
    ["rules", "check", "--comm"],  # an abbreviation
    ["rules", "check", "--base", ""],
    ["rules", "check", "--nope"],
    ["rules", "test"],
    ["rules"],
    ["rules", "bogus"],
    ["--repo", "x", "rules", "check"],
    ["--repo=x", "changes", "--committed"],
    ["ci", "--base", "main", "--labels", "a,b", "--sarif", "s.json"],
    ["explain", "schema"],
    ["explain"],
    ["schema", "--check"],
    ["init", "--hooks", "claude", "--no-sarif"],
    ["init", "--hooks", "nobody"],
    ["doctor", "--format", "json"],
    ["hook", "--agent", "codex"],
    ["bogus"],
    ["--version"],
    [],
    ["rules", "check", "--help"],
    ["--help"],
]


def _parsed(argv: list[str], only: str | None) -> tuple[object, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            args, unknown = _parser(only).parse_known_args(argv)
            parsed = vars(args)
            if "command_parser" in parsed:  # a parser object: compared by what it is
                parsed["command_parser"] = parsed["command_parser"].format_help()
            result: object = (parsed, unknown)
        except SystemExit as exit_:
            result = ("exit", exit_.code)
    return result, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("argv", LINES, ids=" ".join)
def test_one_commands_parser_parses_as_all_of_them(argv: list[str]) -> None:
    assert _parsed(argv, _named_command(argv)) == _parsed(argv, None)


def test_which_lines_name_their_command() -> None:
    assert _named_command(["--repo", "x", "rules", "check"]) == "rules"
    assert _named_command(["--repo=x", "ci"]) == "ci"
    assert _named_command(["--help", "rules"]) is None
    assert _named_command(["bogus", "rules"]) is None
    assert _named_command([]) is None
