"""`gh pr create` and `gh pr ready` in a shell command line, parsed as data and never run.

The command is split into simple commands and words (`shell_words`). For each
`gh pr create|ready`, cagr learns the folder
it runs in (`cd DIR &&` before it), the repository (`-R`, `GH_REPO=`), the base and head branches
and the body. Nothing is executed or expanded: a body that would need the shell (`$(...)`,
backticks, variables, `-F -`, an editor, `--fill`, `--web`) is *unavailable*, with one exception
that is plain data: `--body "$(cat <<'EOF' ... EOF)"`, a quoted here-document, is its own text.
"""

from __future__ import annotations

import os
import re

from .shell_words import Unbalanced, Word, split_commands

PR_VERBS = ("create", "ready")
MAX_BODY_FILE = 256 * 1024
_WRAPPERS = frozenset({"command", "exec", "time", "nohup", "builtin"})
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
_NESTED = re.compile(r"\bgh\s+pr\s+(create|ready)\b")

# gh pr create flags: those that take a value, and the boolean ones (short and long forms).
_VALUE_FLAGS = {
    "-B": "base", "--base": "base", "-H": "head", "--head": "head",
    "-b": "body", "--body": "body", "-F": "body_file", "--body-file": "body_file",
    "-R": "repo", "--repo": "repo", "-T": "template", "--template": "template",
    "-t": "title", "--title": "title", "-a": "", "--assignee": "", "-l": "", "--label": "",
    "-m": "", "--milestone": "", "-p": "", "--project": "", "-r": "", "--reviewer": "",
    "--recover": "",
}  # fmt: skip
_BOOLEAN_FLAGS = {
    "-f": "fill", "--fill": "fill", "--fill-first": "fill", "--fill-verbose": "fill",
    "-w": "web", "--web": "web", "-e": "editor", "--editor": "editor", "-d": "",
    "--draft": "", "--dry-run": "", "--no-maintainer-edit": "", "--undo": "undo",
}  # fmt: skip


class PrCommand:
    """One `gh pr create|ready` found in a command line.

    `cwd` is None when a `cd` could not be followed as data. `body` is the text when it is
    given literally; otherwise `body_unavailable` says why it cannot be known here. `problem`
    says why the command cannot be matched to this checkout at all.
    """

    __slots__ = (
        "base",
        "body",
        "body_file",
        "body_unavailable",
        "cwd",
        "head",
        "problem",
        "repo",
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


def mentions_pr_command(command: str) -> bool:
    """A cheap test that lets every other shell command through at once."""
    return "gh" in command and "pr" in command and ("create" in command or "ready" in command)


def _change_directory(cwd: str | None, words: list[str | None]) -> str | None:
    """`cd DIR` / `pushd DIR` followed as data; None when the folder cannot be known."""
    if cwd is None or len(words) > 2:
        return None
    target = words[1] if len(words) == 2 else "~"
    if target is None or target == "-":
        return None
    return os.path.normpath(os.path.join(cwd, os.path.expanduser(target)))


def find_pr_commands(command: str, cwd: str) -> tuple[list[PrCommand], bool]:
    """Every `gh pr create|ready` run directly by `command` in `cwd`, and whether the command
    also mentions one inside a nested shell or another program cagr cannot look into."""
    found: list[PrCommand] = []
    nested = False
    here: str | None = cwd
    try:
        simple = split_commands(command)
    except Unbalanced:  # the shell would refuse the line too
        return [], bool(_NESTED.search(command))
    for simple_command in simple:
        env: dict[str, str | None] = {}
        words = _without_prefixes(simple_command, env)
        texts = [word.text for word in words]
        if not words or texts[0] is None:
            nested = nested or any(_NESTED.search(word.raw) for word in words)
            continue
        program = os.path.basename(texts[0])
        if program in ("cd", "pushd"):
            here = _change_directory(here, texts)
        elif program == "gh" and texts[1:3] in (["pr", "create"], ["pr", "ready"]):
            found.append(_parse_gh(str(texts[2]), texts[3:], here, env))
        elif any(_NESTED.search(word.raw) for word in words):
            nested = True
    return found, nested


def _without_prefixes(words: list[Word], env: dict[str, str | None]) -> list[Word]:
    """The words after `NAME=value` assignments (kept in `env`; None: computed by the shell)
    and `env`/`command` wrappers."""
    index = 0
    while index < len(words):
        raw, text = words[index].raw, words[index].text
        if _ASSIGNMENT.match(raw):
            name = raw.partition("=")[0]
            env[name] = text.partition("=")[2] if text is not None else None
        elif text not in _WRAPPERS and text != "env":
            break
        index += 1
    return words[index:]


def _parse_gh(
    verb: str, args: list[str | None], cwd: str | None, env: dict[str, str | None]
) -> PrCommand:
    """One `gh pr VERB` from its arguments (None: an argument the shell would compute)."""
    pr = PrCommand(verb, cwd)
    values: dict[str, str | None] = {}  # None: given, but computed by the shell
    flags: set[str] = set()
    if "GH_REPO" in env:
        values["repo"] = env["GH_REPO"]
    index = 0
    while index < len(args):
        arg = args[index]
        index += 1
        if arg is None:
            pr.problem = "one of its arguments comes from the shell, which cagr does not run"
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
        elif name in _BOOLEAN_FLAGS:
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
    for key in ("repo", "base", "head"):
        if key in values and values[key] is None:
            pr.problem = f"its `{key}` comes from the shell, which cagr does not run"
        setattr(pr, key, values.get(key))
    pr.undo = "undo" in flags
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
        if not rest and not following:
            pr.problem = f"`{arg}` has no value"
            return 0
        if _VALUE_FLAGS[flag]:
            values[_VALUE_FLAGS[flag]] = rest or following[0]
        return 0 if rest else 1
    return 0


def _body(pr: PrCommand, values: dict[str, str | None], flags: set[str]) -> None:
    has_body, has_file = "body" in values, "body_file" in values
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
    elif pr.verb == "ready":
        pr.body_unavailable = "`gh pr ready` does not set the body; CI checks the PR's own text"
    else:
        pr.body_unavailable = "no body is given on the command (gh would ask for it)"


def read_body_file(path: str, cwd: str) -> tuple[str | None, str | None]:
    """(text, None) for a regular file under the size bound; (None, why) otherwise."""
    full = os.path.join(cwd, os.path.expanduser(path))
    try:
        fd = os.open(full, os.O_RDONLY | os.O_NONBLOCK)  # a FIFO must not block the hook
    except OSError as error:
        return None, f"the body file {path} cannot be read ({error.strerror})"
    try:
        info = os.fstat(fd)
        if not _is_regular(info.st_mode):
            return None, f"the body file {path} is not a regular file"
        if info.st_size > MAX_BODY_FILE:
            return None, f"the body file {path} is larger than the {MAX_BODY_FILE} bytes cagr reads"
        with os.fdopen(fd, "rb", closefd=False) as handle:
            data = handle.read(MAX_BODY_FILE + 1)
    finally:
        os.close(fd)
    if len(data) > MAX_BODY_FILE:
        return None, f"the body file {path} is larger than the {MAX_BODY_FILE} bytes cagr reads"
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError:
        return None, f"the body file {path} is not UTF-8 text"


def _is_regular(mode: int) -> bool:
    return mode & 0o170000 == 0o100000
