"""`gh pr create` and `gh pr ready` in a shell command line, parsed as data and never run.

The command is split into simple commands with `shlex` (after removing comments and top-level
here-documents, which shlex does not know). For each `gh pr create|ready`, cagr learns the folder
it runs in (`cd DIR &&` before it), the repository (`-R`, `GH_REPO=`), the base and head branches
and the body. Nothing is executed or expanded: a body that would need the shell (`$(...)`,
backticks, variables, `-F -`, an editor, `--fill`, `--web`) is *unavailable*, with one exception
that is plain data: `--body "$(cat <<'EOF' ... EOF)"`, a quoted here-document, is its own text.
"""

from __future__ import annotations

import os
import re
import shlex

PR_VERBS = ("create", "ready")
MAX_BODY_FILE = 256 * 1024
_PUNCTUATION = "();<>|&\n"
_PIECES = re.compile(r"&>>?|[<>]+[&|]?|&&|\|\||;;|\|&|[;|&()\n]")
_WRAPPERS = frozenset({"command", "exec", "time", "nohup", "builtin"})
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
_QUOTED_HEREDOC = re.compile(
    r"\A\$\(cat <<-?\s*(?P<q>['\"])(?P<delim>\w+)(?P=q)\n(?P<text>.*?)\n(?P=delim)\n?\s*\)\Z",
    re.DOTALL,
)
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


def _strip_comments_and_heredocs(command: str) -> str:
    """The command without `# comments` and top-level here-document bodies (quotes respected)."""
    out: list[str] = []
    pending: list[tuple[str, bool]] = []  # here-documents whose bodies start at the next newline
    index, size = 0, len(command)
    quote = ""
    while index < size:
        char = command[index]
        if quote:
            out.append(char)
            if char == "\\" and quote == '"' and index + 1 < size:
                out.append(command[index + 1])
                index += 1
            elif char == quote:
                quote = ""
        elif char == "\\" and index + 1 < size:
            out.append(command[index : index + 2])
            index += 1
        elif char in "'\"":
            quote = char
            out.append(char)
        elif char == "#" and (not out or out[-1][-1:] in " \t\n;&|()"):
            end = command.find("\n", index)
            index = size if end == -1 else end
            continue
        elif command.startswith("<<", index) and not command.startswith("<<<", index):
            match = re.match(r"<<(-?)\s*(['\"]?)(\w+)\2", command[index:])
            if match:
                pending.append((match.group(3), match.group(1) == "-"))
                out.append("<< " + match.group(3))
                index += match.end()
                continue
            out.append(char)
        elif char == "\n" and pending:
            out.append(char)
            index = _skip_heredocs(command, index + 1, pending)
            pending = []
            continue
        else:
            out.append(char)
        index += 1
    return "".join(out)


def _skip_heredocs(command: str, index: int, pending: list[tuple[str, bool]]) -> int:
    lines = command[index:].split("\n")
    consumed = 0
    for delimiter, strip_tabs in pending:
        for line in lines[consumed:]:
            consumed += 1
            if (line.lstrip("\t") if strip_tabs else line) == delimiter:
                break
    return index + sum(len(line) + 1 for line in lines[:consumed])


def _simple_commands(command: str) -> list[list[str]]:
    lexer = shlex.shlex(
        _strip_comments_and_heredocs(command), posix=True, punctuation_chars=_PUNCTUATION
    )
    lexer.whitespace = " \t\r"  # newlines separate commands
    lexer.commenters = ""  # comments are gone already; `#` inside a word is a character
    commands: list[list[str]] = [[]]
    skip_next = False
    for token in lexer:
        words = commands[-1]
        if skip_next:
            skip_next = False
        elif token and not token.strip(_PUNCTUATION):  # operators, perhaps run together
            for piece in _PIECES.findall(token):
                if "<" in piece or ">" in piece:  # a redirection: its target is no argument
                    if words and words[-1].isdigit():
                        words.pop()  # the descriptor of `2>&1`
                    skip_next = True
                else:
                    skip_next = False
                    commands.append([])
                    words = commands[-1]
        else:
            words.append(token)
    return [words for words in commands if words]


def _is_literal(word: str) -> bool:
    return "$" not in word and "`" not in word


def _change_directory(cwd: str | None, words: list[str]) -> str | None:
    """`cd DIR` / `pushd DIR` followed as data; None when the folder cannot be known."""
    if cwd is None or len(words) > 2:
        return None
    target = words[1] if len(words) == 2 else "~"
    if not _is_literal(target) or target == "-":
        return None
    return os.path.normpath(os.path.join(cwd, os.path.expanduser(target)))


def find_pr_commands(command: str, cwd: str) -> tuple[list[PrCommand], bool]:
    """Every `gh pr create|ready` run directly by `command` in `cwd`, and whether the command
    also mentions one inside a nested shell or another program cagr cannot look into."""
    found: list[PrCommand] = []
    nested = False
    here: str | None = cwd
    try:
        simple = _simple_commands(command)
    except ValueError:  # unbalanced quotes: the shell would refuse it too
        return [], bool(_NESTED.search(command))
    for simple_command in simple:
        env: dict[str, str] = {}
        words = _without_prefixes(simple_command, env)
        if not words:
            continue
        program = os.path.basename(words[0])
        if program in ("cd", "pushd"):
            here = _change_directory(here, words)
        elif program == "gh" and words[1:3] in (["pr", "create"], ["pr", "ready"]):
            found.append(_parse_gh(words[2], words[3:], here, env))
        elif any(_NESTED.search(word) for word in words):
            nested = True
    return found, nested


def _without_prefixes(words: list[str], env: dict[str, str]) -> list[str]:
    """The words after `NAME=value` assignments (kept in `env`) and `env`/`command` wrappers."""
    index = 0
    while index < len(words):
        if _ASSIGNMENT.match(words[index]):
            name, _, value = words[index].partition("=")
            env[name] = value
        elif words[index] not in _WRAPPERS and words[index] != "env":
            break
        index += 1
    return words[index:]


def _parse_gh(verb: str, args: list[str], cwd: str | None, env: dict[str, str]) -> PrCommand:
    pr = PrCommand(verb, cwd)
    values: dict[str, str] = {}
    flags: set[str] = set()
    if "GH_REPO" in env:
        values["repo"] = env["GH_REPO"]
    index = 0
    while index < len(args):
        arg = args[index]
        index += 1
        name, has_value, inline = arg.partition("=") if arg.startswith("--") else (arg, False, "")
        if arg == "--":
            if index < len(args):
                pr.target = args[index]
            break
        if name in _VALUE_FLAGS:
            if has_value:
                value = inline
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
    pr.repo = values.get("repo")
    pr.base = values.get("base")
    pr.head = values.get("head")
    pr.undo = "undo" in flags
    _body(pr, values, flags)
    for key in ("repo", "base", "head"):
        value = getattr(pr, key)
        if value is not None and not _is_literal(value):
            pr.problem = f"its `{key}` comes from the shell (`{value}`), which cagr does not run"
    return pr


def _short_cluster(
    arg: str, following: list[str], values: dict[str, str], flags: set[str], pr: PrCommand
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


def _body(pr: PrCommand, values: dict[str, str], flags: set[str]) -> None:
    body, body_file = values.get("body"), values.get("body_file")
    if body is not None and body_file is not None:
        pr.body_unavailable = "both --body and --body-file are given"
    elif body is not None:
        heredoc = _QUOTED_HEREDOC.match(body)
        if heredoc:
            pr.body = heredoc.group("text")
        elif _is_literal(body):
            pr.body = body
        else:
            pr.body_unavailable = (
                "the body comes from the shell (`$`, backticks), which cagr does not run"
            )
    elif body_file is not None:
        if body_file == "-":
            pr.body_unavailable = "the body is read from standard input (`-F -`)"
        elif not _is_literal(body_file):
            pr.body_unavailable = "the body file's name comes from the shell"
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
