"""The `gh pr create|new|ready|edit` commands a shell command line would run, read as data.

Nothing is executed. The line is split into simple commands (`shell_words`) and each is read
as the shell would run it: past assignments, reserved words and programs that run another
command (`env`, `sudo`, `timeout`, `time -p`, `nohup`, `setsid`, `flock`, `script -c`, `watch`,
`xargs`, `find -exec`, ...), into the scripts of nested shells (`bash -lc '...'`, `eval`, the
insides of `$(...)`), with variables assigned on the line itself (`G=gh; $G pr create`). For
each PR command cagr learns the folder it runs in (`cd`, `pushd`/`popd`, `env -C`, subshells)
and whether an earlier command on the line moves HEAD (`git commit`).

Where a command may run `gh pr create` but cagr cannot read it (a program name the shell
computes, a script fed on standard input, a nested shell whose script is computed, another
language's `-c`), `Found.unreadable` says so: the gate turns that into a notice, never silence.
"""

from __future__ import annotations

import os
import re
import shlex

from .gh_pr import VERBS, PrCommand, parse_gh
from .shell_words import (
    Arg,
    Unbalanced,
    Word,
    expand,
    has_pattern,
    split_commands,
    substitutions,
)
from .shell_wrappers import WRAPPERS, parallel_command, read_options, split_string

TYPE_CHECKING = False  # not typing's: every PR command reads this module
if TYPE_CHECKING:
    from collections.abc import Callable

MAX_COMMAND = 256 * 1024  # characters of one command line cagr reads
MAX_PR_COMMANDS = 16  # PR commands in one line; more is not something to decide quickly
MAX_NESTING = 8  # shells inside shells (`bash -c`, `eval`, `$(...)`) that cagr follows

_MENTION = re.compile(r"\bgh\s+pr\s+(?:create|new|ready|edit)\b")
_LOOSE = str.maketrans({"{": " ", "}": " ", ",": " ", "[": None, "]": None})
_QUOTING = re.compile(r"\\\n|[\\'\"]")
_ASSIGNMENT = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)(\+?)=")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_RESERVED = frozenset({"{", "}", "!", "if", "then", "else", "elif", "fi", "do", "done", "while",
                       "until", "case", "esac", "in", "nocorrect", "noglob"})  # fmt: skip
_SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish"})
_SHELL_VALUE_OPTIONS = frozenset({"-o", "+o", "-O", "+O", "--rcfile", "--init-file"})
# Programs whose arguments may be code in another language: cagr does not read it.
_CODE_RUNNERS = frozenset({"python", "python3", "node", "perl", "ruby", "php", "deno", "bun",
                           "pwsh", "powershell", "tcsh", "csh", "nu", "xonsh", "ssh", "osascript",
                           "sg", "runuser", "expect"})  # fmt: skip
_DECLARES = frozenset({"export", "declare", "typeset", "local", "readonly"})
_SETS_UNKNOWN = frozenset({"read", "mapfile", "readarray", "for", "select", "getopts"})
_GIT_VALUE_OPTIONS = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace",
                                "--config-env", "--super-prefix", "--exec-path"})  # fmt: skip
_MOVES_HEAD = frozenset({"commit", "merge", "rebase", "pull", "reset", "checkout", "switch",
                         "cherry-pick", "revert", "am", "stash", "update-ref"})  # fmt: skip


def mentions_pr(text: str) -> bool:
    """Whether `text`, its quotes and backslashes removed, names `gh pr create|new|ready|edit`."""
    return _MENTION.search(_QUOTING.sub("", text)) is not None


def _names_pr_loosely(line: str) -> bool:
    """Whether the line names a PR command once quoting, brace lists and bracket globs are
    undone as bash might undo them (`{gh,pr,create}`, `gh pr {create,}`, `g[h] pr create`)."""
    loose = _QUOTING.sub("", line).translate(_LOOSE)
    return _MENTION.search(loose) is not None


class _Scope:
    """A shell's variables as far as the line sets them (None: computed), and which of them
    are exported to the programs it runs."""

    __slots__ = ("exported", "values")

    def __init__(self, values: dict[str, str | None], exported: set[str]) -> None:
        self.values = values
        self.exported = exported

    def copy(self) -> _Scope:
        return _Scope(dict(self.values), set(self.exported))

    def environment(self, env: dict[str, str | None]) -> dict[str, str | None]:
        """What a program run from this shell sees: exported variables and its own `env`."""
        return {name: self.values.get(name) for name in self.exported} | env


class Found:
    """What one command line holds: its PR commands, and why it may hold more than cagr sees."""

    __slots__ = ("commands", "line", "mentioned", "unreadable")

    def __init__(self, line: str) -> None:
        self.line = line
        self.commands: list[PrCommand] = []
        self.unreadable: str | None = None  # a PR command may be there, out of cagr's sight
        # The line names a PR command that cagr did not find it running: it may be data (an
        # `echo`, a commit message) or run in a way cagr does not follow.
        self.mentioned = False

    def note(self, why: str) -> None:
        self.unreadable = self.unreadable or why


def find_pr_commands(command: str, cwd: str) -> Found:
    """Every `gh pr create|new|ready|edit` that `command`, run in `cwd`, would run."""
    reader = _Reader(command)
    if len(command) > MAX_COMMAND:
        reader.found.note(f"the command is longer than the {MAX_COMMAND} characters cagr reads")
        return reader.found
    _Shell(reader, 0).read(command, cwd, _Scope({"PWD": cwd}, {"PWD"}))
    if reader.stdin_runner and mentions_pr(command):
        reader.found.note(f"it feeds commands to `{reader.stdin_runner}`, which cagr cannot see")
    if len(reader.found.commands) > MAX_PR_COMMANDS:
        reader.found.note(f"it runs more than {MAX_PR_COMMANDS} PR commands")
        reader.found.commands = []
    found = reader.found
    if not found.commands and found.unreadable is None and _names_pr_loosely(command):
        found.mentioned = True  # a trap, "$@", brace lists, a tracer's arguments, or just text
    return found


def _args(words: list[Word], scope: _Scope) -> list[Arg]:
    """A simple command's fields, its words expanded with the variables the line set."""
    args: list[Arg] = []
    for word in words:
        if word.text is not None:
            args.append(Arg(word.raw, word.text))
            continue
        fields = expand(word.raw, scope.values)
        if fields is None:
            args.append(Arg(word.raw, None))
        else:
            args.extend(Arg(word.raw, field) for field in fields)
    return args


def _cd(here: str | None, target: str | None, scope: _Scope | None = None) -> str | None:
    """The folder after `cd TARGET` (no target: home), followed as data; None when unknown.
    With the shell's `scope`, a move sets `OLDPWD` and `PWD` as bash sets them (`cd -` is
    `cd "$OLDPWD"`, which the shell has from its environment until a `cd` on the line).

    A folder that does not exist leaves the shell where it was (`cd x; gh ...` runs gh there,
    and `cd x && gh ...` does not run gh at all)."""
    if target == "-":
        target = scope.values.get("OLDPWD") if scope is not None else None
    if here is None or target is None:
        return None
    folder = os.path.normpath(os.path.join(here, os.path.expanduser(target)))
    if not os.path.isdir(folder):
        return here
    if scope is not None:
        scope.values.update(OLDPWD=here, PWD=folder)
        scope.exported.update(("OLDPWD", "PWD"))
    return folder


class Ran:
    """One simple command the line runs, past wrappers: its fields (None: computed), the
    folder it runs in (None: unknown) and the variables its program gets from the line."""

    __slots__ = ("env", "here", "texts")

    def __init__(
        self, texts: list[str | None], here: str | None, env: dict[str, str | None]
    ) -> None:
        self.texts = texts
        self.here = here
        self.env = env


class _Reader:
    """What one reading of a command line and every shell it starts share.

    `mentions` tells whether text names what the reading looks for (`gh pr create`, a guarded
    command), `noun` names it in notes; `ran` is every simple command run, `writes` every file
    an output redirection writes, with its folder."""

    def __init__(
        self,
        line: str,
        mentions: Callable[[str], bool] | None = None,
        noun: str = "`gh pr`",
        computed: Callable[[list[str | None]], bool] | None = None,
    ) -> None:
        self.found = Found(line)
        self.moved: str | None = None  # a command seen so far that moves HEAD
        self.stdin_runner: str | None = None  # a shell reading commands from standard input
        self.mentions = mentions or mentions_pr
        self.noun = noun
        self.computed = computed or _pr_words
        self.ran: list[Ran] = []
        self.writes: list[tuple[str | None, str | None]] = []


def _pr_words(texts: list[str | None]) -> bool:
    """Whether the words after a computed program name read like a PR command."""
    return "pr" in texts and any(text in VERBS for text in texts)


def read_line(
    command: str,
    cwd: str,
    mentions: Callable[[str], bool],
    noun: str,
    computed: Callable[[list[str | None]], bool],
) -> _Reader:
    """Every simple command `command` would run in `cwd`, as data, with `Found.unreadable`
    saying where something `mentions` names may run out of cagr's sight."""
    reader = _Reader(command, mentions, noun, computed)
    if len(command) > MAX_COMMAND:
        reader.found.note(f"the command is longer than the {MAX_COMMAND} characters cagr reads")
        return reader
    _Shell(reader, 0).read(command, cwd, _Scope({}, set()))
    if reader.stdin_runner and mentions(command):
        reader.found.note(f"it feeds commands to `{reader.stdin_runner}`, which cagr cannot see")
    return reader


class _Shell:
    """One shell reading command lines, as data: a nested shell is another `_Shell`."""

    def __init__(self, reader: _Reader, nesting: int) -> None:
        self.reader = reader
        self.nesting = nesting
        self.pushed: list[str | None] = []  # the directory stack of `pushd`

    def nested(self, text: str, cwd: str | None, scope: _Scope) -> str | None:
        """Read a script another shell (or `eval`, or a substitution) runs; its last folder."""
        return _Shell(self.reader, self.nesting + 1).read(text, cwd, scope)

    def read(self, text: str, cwd: str | None, scope: _Scope) -> str | None:
        """Read one command line; the folder it ends in."""
        if self.nesting > MAX_NESTING:
            if self.reader.mentions(text):
                self.reader.found.note("it nests shells more deeply than cagr follows")
            return None
        try:
            simple = split_commands(text)
        except (Unbalanced, RecursionError) as error:
            if self.reader.mentions(text):
                trouble = (
                    "has an unclosed quote or `$(`"
                    if isinstance(error, Unbalanced)
                    else ("nests too deeply")
                )
                self.reader.found.note(f"the command line {trouble}, so cagr cannot read it")
            return cwd
        folders: list[str | None] = [cwd]  # the folder at each subshell depth
        scopes = [scope]
        for simple_command in simple:
            depth = simple_command.depth
            del folders[depth + 1 :], scopes[depth + 1 :]
            while len(folders) <= depth:
                folders.append(folders[-1])
                scopes.append(scopes[-1].copy())
            for word in simple_command.words:
                for inner in substitutions(word.raw):  # they run first, in a subshell
                    self.nested(inner, folders[-1], scopes[-1].copy())
            for target in _args(simple_command.redirects, scopes[-1]):
                self.reader.writes.append((target.text, folders[-1]))
            args = _args(simple_command.words, scopes[-1])
            folders[-1] = self.simple(args, folders[-1], scopes[-1])
            if len(self.reader.found.commands) > MAX_PR_COMMANDS:
                break
        return folders[0]

    def simple(self, args: list[Arg], here: str | None, scope: _Scope) -> str | None:
        """Run one simple command as data; the folder the shell is in afterwards."""
        env: dict[str, str | None] = {}
        index = 0
        while index < len(args) and _ASSIGNMENT.match(args[index].raw):
            name, value = _assignment(args[index], scope)
            env[name] = value
            index += 1
        if index == len(args):  # only assignments: they set the shell's own variables
            scope.values.update(env)
            return here
        return self.run(args[index:], here, env, scope)

    def run(  # noqa: PLR0915  # one branch per kind of program, flat on purpose
        self, args: list[Arg], here: str | None, env: dict[str, str | None], scope: _Scope,
        why: str | None = None,
    ) -> str | None:  # fmt: skip
        """Run a command's fields as data, past wrappers; the folder the shell is in after."""
        while args:
            first = args[0]
            if first.text is None or has_pattern(first.raw):
                self._computed_program(args)
                return here
            program = os.path.basename(first.text)
            if program in _RESERVED:
                args = args[1:]
            elif program == "coproc":  # `coproc NAME { ...; }` or `coproc COMMAND`
                named = len(args) > 2 and _NAME.match(args[1].text or "") and args[2].text == "{"
                args = args[2 if named else 1 :]
            elif program in WRAPPERS:
                unwrapped = self._wrapper(program, args, here, env, scope)
                if unwrapped is None:
                    return here
                args, here, why = unwrapped[0], unwrapped[1], why or unwrapped[2]
            else:
                break
        if not args:
            return here
        texts = [arg.text for arg in args]
        self.reader.ran.append(Ran(texts, here, scope.environment(env)))
        program = os.path.basename(args[0].text or "")
        if program in ("cd", "pushd", "popd"):
            if program == "popd":
                return self.pushed.pop() if self.pushed else None
            if program == "pushd":
                self.pushed.append(here)
            operands = [
                text for text in texts[1:] if text is None or text == "-" or text[:1] != "-"
            ]  # `-L`, `-P`, `--` are options; `-` alone is the folder `cd` left last
            if len(operands) > 1 or None in operands:
                return None  # a folder the shell computes, or a form cagr does not follow
            return _cd(here, operands[0] if operands else "~", scope)
        if program in _DECLARES:
            self._declare(program, args[1:], scope)
        elif program == "unset":
            scope.values.update({text: "" for text in texts[1:] if text and _NAME.match(text)})
        elif program in _SETS_UNKNOWN or (program == "printf" and "-v" in texts):
            names = [text for text in texts[1:] if text and _NAME.match(text)]
            scope.values.update(dict.fromkeys(names))
        elif program == "gh":
            self._gh(args, here, scope.environment(env), why)
        elif program == "git":
            self._git(texts)
        elif program in _SHELLS:
            self._shell(program, args, here, scope.environment(env))
        elif program == "eval":
            if None in texts[1:]:
                self._unreadable(args, "`eval` of text the shell computes")
            else:
                return self.nested(" ".join(texts[1:]), here, scope)  # type: ignore[arg-type]
        elif program in ("source", "."):
            if len(texts) > 1 and texts[1] is None:
                self.reader.stdin_runner = self.reader.stdin_runner or program
        elif program == "find":
            self._find(args, here, env, scope)
        elif program in _CODE_RUNNERS:
            self._unreadable(args, f"`{program}`, which cagr does not look into")
        return here

    def _computed_program(self, args: list[Arg]) -> None:
        """A program name the shell computes (`$G`, `$(which gh)`, a glob): when the rest of
        the command reads like a PR command, cagr says it cannot tell."""
        texts = [arg.text for arg in args[1:]]
        if self.reader.computed(texts):
            what = (
                "with `pr` and a PR verb, and cagr cannot tell whether that is gh"
                if self.reader.noun == "`gh pr`"
                else f"and cagr cannot tell whether it is {self.reader.noun}"
            )
            self.reader.found.note(
                f"it runs a program whose name the shell computes (`{args[0].raw}`) {what}"
            )

    def _unreadable(self, args: list[Arg], what: str) -> None:
        if self.reader.mentions(" ".join(arg.raw for arg in args[1:])):  # `runuser -- gh pr`
            self.reader.found.note(f"it runs {self.reader.noun} through {what}")

    def _wrapper(  # the wrapper kinds, in the order the shell meets them
        self, program: str, args: list[Arg], here: str | None, env: dict[str, str | None],
        scope: _Scope,
    ) -> tuple[list[Arg], str | None, str | None] | None:  # fmt: skip
        """The command a wrapper runs, the folder it runs in and why it cannot be read whole;
        None when nothing is left to run as data (no command, or a script read here)."""
        spec = WRAPPERS[program]
        given: dict[str, str | None] = {}
        index = read_options(args, 1, spec, given)
        while program in ("env", "sudo") and 0 <= index < len(args):
            if args[index].text == "-":  # `env -`: an empty environment
                index += 1
            elif _ASSIGNMENT.match(args[index].raw):
                name, value = _assignment(args[index], scope)
                env[name] = value
                index += 1
            else:
                break
        if index < 0 or given.keys() & spec.stops:
            if index < 0:
                self._unreadable(args, f"`{program}` with options the shell computes")
            return None
        for option in given.keys() & spec.chdir:
            here = _cd(here, given[option])
        for option in given.keys() & spec.split:  # `env -S "gh pr create"`: split, then read on
            value = given[option]
            if value is None:
                self._unreadable(args, f"`{program}` with a string the shell computes")
                return None
            words = [Arg(shlex.quote(word), word) for word in split_string(value)]
            return self._wrapper(program, [args[0], *words, *args[index:]], here, env, scope)
        index += spec.positionals
        index = read_options(args, index, spec, given) if spec.positionals else index
        scripts = [given[option] for option in given.keys() & spec.script]
        if scripts:
            if scripts[0] is None:
                self._unreadable(args, f"`{program}` with a script the shell computes")
            else:
                self.nested(scripts[0], here, _Scope(scope.environment(env), set(env)))
            return None
        rest = args[index:] if index >= 0 else []
        if spec.joins and not given.keys() & {"-x", "--exec"}:
            texts = [arg.text for arg in rest]
            if None in texts:
                self._unreadable(args, f"`{program}` with a command the shell computes")
            elif texts:
                self.nested(" ".join(texts), here, scope.copy())  # type: ignore[arg-type]
            return None
        if program == "parallel":
            rest = parallel_command(rest)
            if not rest:
                self.reader.stdin_runner = self.reader.stdin_runner or "parallel"
                return None
            if len(rest) == 1 and rest[0].text is not None and " " in rest[0].text:
                before = len(self.reader.found.commands)
                self.nested(rest[0].text, here, scope.copy())  # a command line of its own
                for pr in self.reader.found.commands[before:]:
                    pr.problem = pr.problem or spec.adds  # `{}` and the rest: its arguments
                return None
        if spec.adds:
            rest = [Arg(arg.raw, None) if "{}" in (arg.text or "") else arg for arg in rest]
        return rest, here, spec.adds

    def _declare(self, program: str, args: list[Arg], scope: _Scope) -> None:
        """`export G=gh`, `declare -x G`, `local G=x`: variables and what is exported."""
        exports = program == "export" or any(arg.text == "-x" for arg in args)
        for arg in args:
            if arg.text is None or arg.text.startswith("-"):
                continue
            if _ASSIGNMENT.match(arg.raw):
                name, value = _assignment(arg, scope)
                scope.values[name] = value
            else:
                name = arg.text
            if exports and _NAME.match(name):
                scope.exported.add(name)

    def _gh(self, args: list[Arg], here: str | None, env: dict[str, str | None],
            why: str | None) -> None:  # fmt: skip
        texts = [arg.text for arg in args]
        invocation = _gh_invocation(texts)
        if isinstance(invocation, tuple):
            verb, rest = invocation
            pr = parse_gh(verb, rest, here, env)
            pr.problem = pr.problem or why
            pr.after_head_move = self.reader.moved
            self.reader.found.commands.append(pr)
        elif invocation == "checkout":
            self.reader.moved = self.reader.moved or "gh pr checkout"
        elif invocation == "unknown":
            self.reader.found.note(
                "it runs a gh command whose words the shell computes, so cagr cannot tell"
                " whether it opens a PR"
            )

    def _git(self, texts: list[str | None]) -> None:
        """Note a git command that moves HEAD (`git commit`, `git -C x pull`)."""
        index = 1
        while index < len(texts) and (texts[index] or "-").startswith("-"):
            if texts[index] is None:
                break
            index += 2 if texts[index] in _GIT_VALUE_OPTIONS else 1
        subcommand = texts[index] if index < len(texts) else ""
        if subcommand is None or subcommand in _MOVES_HEAD:
            self.reader.moved = self.reader.moved or f"git {subcommand or '...'}"

    def _shell(
        self, program: str, args: list[Arg], here: str | None, env: dict[str, str | None]
    ) -> None:
        """`bash -lc SCRIPT`, `sh -euo pipefail -c SCRIPT`: read SCRIPT; with no `-c`, the
        shell reads a file (not read here) or standard input."""
        index, script_mode = 1, False
        while index < len(args):
            text = args[index].text
            if text is None:
                self._unreadable(args, f"`{program}` with options the shell computes")
                return
            if text in ("--", "-"):
                index += 1
                break
            if text in _SHELL_VALUE_OPTIONS:
                index += 2
            elif text.startswith("--"):
                index += 1
            elif text[:1] in "-+" and len(text) > 1:
                script_mode = script_mode or (text[0] == "-" and "c" in text[1:])
                index += 1 + sum(letter in "oO" for letter in text[1:])
            else:
                break
        if not script_mode:
            if index >= len(args):
                self.reader.stdin_runner = self.reader.stdin_runner or program
            return
        script = args[index].text if index < len(args) else ""
        if script is None:
            self._unreadable(args, f"`{program} -c` with a script the shell computes")
        elif script:
            started = {**env, "PWD": here}  # a shell sets PWD to the folder it starts in
            self.nested(script, here, _Scope(started, set(started)))

    def _find(
        self, args: list[Arg], here: str | None, env: dict[str, str | None], scope: _Scope
    ) -> None:
        """`find ... -exec CMD {} ;`: CMD runs, with file names cagr cannot see in `{}`."""
        index = 1
        while index < len(args):
            action = args[index].text
            index += 1
            if action not in ("-exec", "-execdir", "-ok", "-okdir"):
                continue
            end = index
            while end < len(args) and args[end].text not in (";", "+"):
                end += 1
            command = [
                Arg(arg.raw, None) if "{}" in (arg.text or "") else arg for arg in args[index:end]
            ]
            folder = here if action in ("-exec", "-ok") else None  # -execdir: each file's own
            self.run(command, folder, dict(env), scope.copy())
            index = end + 1


def _assignment(arg: Arg, scope: _Scope) -> tuple[str, str | None]:
    """`NAME=value` (or `NAME+=value`) as the shell assigns it: no field splitting."""
    match = _ASSIGNMENT.match(arg.raw)
    assert match is not None
    name, append = match.group(1), match.group(2)
    fields = expand(arg.raw[match.end() :], scope.values, split=False)
    value = None if fields is None else "".join(fields)
    if append:
        old = scope.values.get(name, "")
        value = None if value is None or old is None else old + value
    return name, value


def _gh_invocation(
    texts: list[str | None],
) -> tuple[str, list[str | None]] | str | None:
    """(verb, the verb's arguments) when these words run `gh pr VERB`; "checkout" for `gh pr
    checkout` (it moves HEAD); "unknown" when the shell computes the `pr` or verb word. `-R
    REPO` given before the verb (`gh -R x pr create`) is kept with the arguments."""
    moved: list[str | None] = []
    index = 1
    seen_pr = False
    while index < len(texts):
        word = texts[index]
        if word is None:
            later = texts[index + 1 :]
            return "unknown" if seen_pr or "pr" in later or any(w in VERBS for w in later) else None
        if word in ("-R", "--repo") and index + 1 < len(texts):
            moved += [word, texts[index + 1]]
            index += 2
        elif word.startswith("--repo="):
            moved.append(word)
            index += 1
        elif word == "pr" and not seen_pr:
            seen_pr = True
            index += 1
        elif seen_pr and word in VERBS:
            return VERBS[word], [*moved, *texts[index + 1 :]]
        elif seen_pr and word == "checkout":
            return "checkout"
        else:
            return None
    return None
