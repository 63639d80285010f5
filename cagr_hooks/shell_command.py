"""`gh pr create` and `gh pr ready` in a shell command line, parsed as data and never run.

The command is split into simple commands and words (`shell_words`). A `gh pr create` (or its
alias `new`) or `gh pr ready` is found after assignments, reserved words (`{`, `!`, `if`, `then`,
`do`, ...) and wrappers that run their command as it is (`env`, `command`, `sudo`, `timeout`,
`nice`, `nohup`, `time`, `exec`, `stdbuf`). For each, cagr learns the folder it runs in (`cd DIR`,
`pushd`/`popd`, `env -C`, subshells), the repository (`-R`, `GH_REPO`), the base and head
branches and the body. Nothing is executed or expanded: a body that would need the shell
(`$(...)`, backticks, variables, `-F -`, an editor, `--fill`, `--web`) is *unavailable*, with one
exception that is plain data: `--body "$(cat <<'EOF' ... EOF)"`, a quoted here-document.
"""

from __future__ import annotations

import os
import re

from .shell_words import Unbalanced, Word, split_commands

VERBS = {"create": "create", "new": "create", "ready": "ready"}  # `new` is gh's alias
MAX_COMMAND = 256 * 1024  # characters of one command line cagr reads
MAX_PR_COMMANDS = 16  # PR commands in one line; more is not something to decide quickly
# Wrappers that run the rest of their words as a command, with the options that take a value.
_WRAPPERS = {
    "env": {"-u", "--unset", "-C", "--chdir", "-S", "--split-string"},
    "command": set(), "builtin": set(), "exec": {"-a"}, "nohup": set(), "time": {"-f", "-o"},
    "nice": {"-n", "--adjustment"}, "stdbuf": {"-i", "-o", "-e"},
    "timeout": {"-s", "--signal", "-k", "--kill-after"},
    "sudo": {"-u", "--user", "-g", "--group", "-h", "--host", "-p", "--prompt", "-C",
             "--close-from", "-D", "--chdir", "-r", "--role", "-t", "--type", "-U", "--other-user"},
    "xargs": {"-a", "--arg-file", "-d", "--delimiter", "-E", "-I", "-L", "-n", "--max-args",
              "-P", "--max-procs", "-s", "--max-chars"},
}  # fmt: skip
_RESERVED = frozenset({"{", "}", "!", "if", "then", "else", "elif", "fi", "do", "done", "while",
                       "until", "time"})  # fmt: skip
_SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "fish", "eval", "ssh", "su"})
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
_NESTED = re.compile(r"\bgh\s+pr\s+(create|new|ready)\b")
_FALSE = frozenset({"false", "f", "0"})

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
    "--draft": "", "--dry-run": "dry_run", "--no-maintainer-edit": "", "--undo": "undo",
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
        "dry_run",
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
        self.dry_run = False


def mentions_pr_command(command: str) -> bool:
    """A cheap test that lets every other shell command through at once."""
    return "gh" in command and "pr" in command and any(v in command for v in VERBS)


def _cd(cwd: str | None, words: list[str | None]) -> str | None:
    """The folder after `cd DIR` / `pushd DIR`, followed as data; None when it cannot be known.

    A folder that does not exist leaves the shell where it was (`cd x; gh ...` runs gh there,
    and `cd x && gh ...` does not run gh at all)."""
    if cwd is None or len(words) > 2:
        return None
    target = words[1] if len(words) == 2 else "~"
    if target is None or target == "-":
        return None
    folder = os.path.normpath(os.path.join(cwd, os.path.expanduser(target)))
    return folder if os.path.isdir(folder) else cwd


class Found:
    """What one command line holds: its PR commands, and why it may hold more than cagr sees."""

    __slots__ = ("commands", "unreadable")

    def __init__(self) -> None:
        self.commands: list[PrCommand] = []
        self.unreadable: str | None = None  # a PR command may be there, out of cagr's sight


def find_pr_commands(command: str, cwd: str) -> Found:
    """Every `gh pr create|new|ready` that `command`, run in `cwd`, would run directly."""
    found = Found()
    if len(command) > MAX_COMMAND:
        found.unreadable = f"the command is longer than the {MAX_COMMAND} characters cagr reads"
        return found
    try:
        simple = split_commands(command)
    except (Unbalanced, RecursionError) as error:
        if _NESTED.search(command):
            trouble = (
                "has an unclosed quote or `$(`"
                if isinstance(error, Unbalanced)
                else "nests too deeply"
            )
            found.unreadable = f"the command line {trouble}, so cagr cannot read it"
        return found
    folders: list[str | None] = [cwd]  # the folder at each subshell depth
    pushed: list[str | None] = []
    for simple_command in simple:
        del folders[simple_command.depth + 1 :]
        while len(folders) <= simple_command.depth:
            folders.append(folders[-1])
        here: str | None = folders[-1]
        env: dict[str, str | None] = {}
        words, here, why = _unwrap(simple_command.words, env, here)
        texts = [word.text for word in words]
        first = texts[0] if texts else None
        program = os.path.basename(first) if first is not None else ""
        if program in ("cd", "pushd", "popd"):
            if program == "pushd":
                pushed.append(here)
            folders[-1] = (
                (pushed.pop() if pushed else None) if program == "popd" else _cd(here, texts)
            )
        elif program == "gh" and (gh := _gh_invocation(texts)) is not None:
            verb, args = gh
            pr = _parse_gh(verb, args, here, env)
            pr.problem = pr.problem or why
            found.commands.append(pr)
        elif program in _SHELLS and any(_NESTED.search(word.raw) for word in words[1:]):
            found.unreadable = f"it runs `gh pr` through `{program}`, which cagr does not look into"
        if len(found.commands) > MAX_PR_COMMANDS:
            found.unreadable = f"it runs more than {MAX_PR_COMMANDS} PR commands"
            found.commands = []
            return found
    return found


def _unwrap(
    words: list[Word], env: dict[str, str | None], here: str | None
) -> tuple[list[Word], str | None, str | None]:
    """The words of the command a simple command runs: past `NAME=value` assignments (kept in
    `env`; None: computed by the shell), reserved words and wrappers with their options. Also
    the folder it runs in (`env -C`), and why its arguments cannot all be seen (`xargs`)."""
    why = None
    index = 0
    while index < len(words):
        raw, text = words[index].raw, words[index].text
        if _ASSIGNMENT.match(raw):
            name = raw.partition("=")[0]
            env[name] = text.partition("=")[2] if text is not None else None
            index += 1
        elif text in _RESERVED:
            index += 1
        elif text is not None and os.path.basename(text) in _WRAPPERS:
            wrapper = os.path.basename(text)
            takes_value = _WRAPPERS[wrapper]
            index += 1
            while index < len(words) and (words[index].text or "").startswith("-"):
                option = (words[index].text or "").partition("=")
                if option[0] in ("-C", "--chdir") and wrapper == "env":
                    value = option[2] or (words[index + 1].text if index + 1 < len(words) else None)
                    here = _cd(here, ["cd", value])
                index += 2 if option[0] in takes_value and not option[1] else 1
            if wrapper == "timeout" and index < len(words):
                index += 1  # its duration
            if wrapper == "xargs":
                why = "`xargs` adds arguments cagr cannot see"
        else:
            break
    return words[index:], here, why


def _gh_invocation(texts: list[str | None]) -> tuple[str, list[str | None]] | None:
    """(verb, the verb's arguments) when these words run `gh pr VERB`; `-R REPO` given before
    the verb (`gh -R x pr create`, `gh pr -R x create`) is kept with the arguments."""
    moved: list[str | None] = []
    index = 1
    seen_pr = False
    while index < len(texts):
        word = texts[index]
        if word in ("-R", "--repo") and index + 1 < len(texts):
            moved += [word, texts[index + 1]]
            index += 2
        elif word is not None and word.startswith("--repo="):
            moved.append(word)
            index += 1
        elif word == "pr" and not seen_pr:
            seen_pr = True
            index += 1
        elif seen_pr and word in VERBS:
            return VERBS[word], [*moved, *texts[index + 1 :]]
        else:
            return None
    return None


def _parse_gh(
    verb: str, args: list[str | None], cwd: str | None, env: dict[str, str | None]
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
