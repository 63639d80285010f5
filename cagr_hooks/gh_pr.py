"""One `gh pr create|new|ready|edit` command's arguments, read as gh reads them.

Which repository, base and head branches it names, and its body: literal text, a body file, or
*unavailable* with the reason (filled from commits, written in an editor or a browser, read
from standard input, computed by the shell). An argument the shell computes (None here) is never
guessed.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

VERBS = {"create": "create", "new": "create", "ready": "ready", "edit": "edit"}  # `new`: alias
_FALSE = frozenset({"false", "f", "0"})
_LABEL_FLAGS = frozenset({"-l", "--label", "--add-label"})  # each takes `a,b` and repeats

# gh pr create flags: those that take a value, and the boolean ones (short and long forms).
_VALUE_FLAGS = {
    "-B": "base", "--base": "base", "-H": "head", "--head": "head",
    "-b": "body", "--body": "body", "-F": "body_file", "--body-file": "body_file",
    "-R": "repo", "--repo": "repo", "-T": "template", "--template": "template",
    "-t": "title", "--title": "title", "-a": "", "--assignee": "", "-l": "", "--label": "",
    "-m": "", "--milestone": "", "-p": "", "--project": "", "-r": "", "--reviewer": "",
    "--recover": "",
    # gh pr edit's own: they change the PR's metadata, never its commits or body
    "--add-assignee": "", "--remove-assignee": "", "--add-label": "", "--remove-label": "",
    "--add-project": "", "--remove-project": "", "--add-reviewer": "", "--remove-reviewer": "",
}  # fmt: skip
_BOOLEAN_FLAGS = {
    "-f": "fill", "--fill": "fill", "--fill-first": "fill", "--fill-verbose": "fill",
    "-w": "web", "--web": "web", "-e": "editor", "--editor": "editor", "-d": "",
    "--draft": "", "--dry-run": "dry_run", "--no-maintainer-edit": "", "--undo": "undo",
    "--remove-milestone": "",
}  # fmt: skip


class PrCommand:
    """One `gh pr create|ready|edit` found in a command line.

    `cwd` is None when a `cd` could not be followed as data. `body` is the text when it is
    given literally; otherwise `body_unavailable` says why it cannot be known here (`sets_body`:
    the command gives a body at all). `problem` says why the command cannot be matched to this
    checkout at all. `after_head_move` names a command earlier on the same line that moves HEAD
    (`git commit`): the commits the PR would hold do not exist when cagr reads the line.
    """

    __slots__ = (
        "after_head_move",
        "base",
        "body",
        "body_file",
        "body_unavailable",
        "cwd",
        "dry_run",
        "head",
        "labels",
        "problem",
        "repo",
        "sets_body",
        "target",
        "undo",
        "verb",
    )

    def __init__(self, verb: str, cwd: str | None) -> None:
        self.verb = verb
        self.cwd = cwd
        self.repo: str | None = None
        self.base: str | None = None
        self.head: str | None = None
        self.body: str | None = None
        self.body_file: str | None = None
        self.body_unavailable: str | None = None
        self.problem: str | None = None
        self.target: str | None = None  # `gh pr ready <number|url|branch>`
        self.undo = False
        self.dry_run = False
        self.sets_body = False
        self.after_head_move: str | None = None
        self.labels: list[str] = []  # labels the command adds to the PR


def parse_gh(
    verb: str, args: list[str | None], cwd: str | None, env: Mapping[str, str | None]
) -> PrCommand:
    """One `gh pr VERB` from its arguments (None: an argument the shell would compute)."""
    pr = PrCommand(verb, cwd)
    values: dict[str, str | None] = {}  # None: given, but computed by the shell
    flags: set[str] = set()
    if "GH_REPO" in env:  # set on the command itself (None: computed by the shell)
        values["repo"] = env["GH_REPO"]
    elif os.environ.get("GH_REPO"):  # or in the agent's environment, which gh inherits
        values["repo"] = os.environ["GH_REPO"]
    index = 0
    while index < len(args):
        arg = args[index]
        index += 1
        if arg is None:
            pr.problem = (
                "one of its arguments is computed only when it runs (a variable, `$(...)`, a"
                " file name from find), which cagr does not do"
            )
            return pr
        name, has_value, inline = arg.partition("=") if arg.startswith("--") else (arg, "", "")
        if arg == "--":
            pr.target = args[index] if index < len(args) else None
            break
        if name in _VALUE_FLAGS:
            if has_value:
                value: str | None = inline
            elif index < len(args):
                value, index = args[index], index + 1
            else:
                pr.problem = f"`{arg}` has no value"
                return pr
            if _VALUE_FLAGS[name]:
                values[_VALUE_FLAGS[name]] = value
            _add_labels(pr, name, value)
        elif name in _BOOLEAN_FLAGS:
            if not (has_value and inline.lower() in _FALSE):  # `--undo=false` is not --undo
                flags.add(_BOOLEAN_FLAGS[name])
        elif arg.startswith("-") and not arg.startswith("--") and len(arg) > 2:
            consumed = _short_cluster(arg, args[index : index + 1], values, flags, pr)
            if pr.problem:
                return pr
            index += consumed
        elif arg.startswith("-"):
            pr.problem = f"cagr does not know the gh option `{arg}`"
            return pr
        else:
            pr.target = arg
    if values.get("repo") == "":
        del values["repo"]  # gh reads an empty repository as none given
    for key in ("repo", "base", "head"):
        if key in values and values[key] is None:
            pr.problem = f"its `{key}` comes from the shell, which cagr does not run"
        setattr(pr, key, values.get(key))
    pr.undo = "undo" in flags
    pr.dry_run = "dry_run" in flags
    _body(pr, values, flags)
    return pr


def _short_cluster(
    arg: str,
    following: list[str | None],
    values: dict[str, str | None],
    flags: set[str],
    pr: PrCommand,
) -> int:
    """`-dw` (booleans together) or `-Bmain` / `-dB main` (a value flag last, with its value);
    how many of the `following` words it used (0 or 1)."""
    for position, letter in enumerate(arg[1:], start=1):
        flag = "-" + letter
        if flag in _BOOLEAN_FLAGS:
            flags.add(_BOOLEAN_FLAGS[flag])
            continue
        if flag not in _VALUE_FLAGS:
            pr.problem = f"cagr does not know the gh option `{flag}` in `{arg}`"
            return 0
        rest = arg[position + 1 :]
        rest = rest[1:] if rest.startswith("=") else rest  # `-b=TEXT`, as gh's parser reads it
        if not rest and not following:
            pr.problem = f"`{arg}` has no value"
            return 0
        if _VALUE_FLAGS[flag]:
            values[_VALUE_FLAGS[flag]] = rest or following[0]
        _add_labels(pr, flag, rest or following[0])
        return 0 if rest else 1
    return 0


def _add_labels(pr: PrCommand, flag: str, value: str | None) -> None:
    if flag in _LABEL_FLAGS and value is not None:
        pr.labels.extend(label.strip() for label in value.split(",") if label.strip())


def _body(pr: PrCommand, values: dict[str, str | None], flags: set[str]) -> None:
    has_body, has_file = "body" in values, "body_file" in values
    pr.sets_body = has_body or has_file
    body, body_file = values.get("body"), values.get("body_file")
    if has_body and has_file:
        pr.body_unavailable = "both --body and --body-file are given"
    elif has_body:
        if body is None:
            pr.body_unavailable = (
                "the body comes from the shell (`$`, backticks), which cagr does not run"
            )
        else:
            pr.body = body
    elif has_file:
        if body_file is None:
            pr.body_unavailable = "the body file's name comes from the shell"
        elif body_file == "-":
            pr.body_unavailable = "the body is read from standard input (`-F -`)"
        else:
            pr.body_file = body_file
    elif "fill" in flags:
        pr.body_unavailable = "the body is filled from commit messages (`--fill`)"
    elif "web" in flags:
        pr.body_unavailable = "the body is written in the browser (`--web`)"
    elif "editor" in flags or "template" in values:
        pr.body_unavailable = "the body is written in an editor"
    elif pr.verb in ("ready", "edit"):
        pr.body_unavailable = (
            f"`gh pr {pr.verb}` here does not set the body; CI checks the PR's own text"
        )
    else:
        pr.body_unavailable = "no body is given on the command (gh would ask for it)"
