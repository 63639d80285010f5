"""Command guards: shell commands an agent is about to run, denied before they run.

Every simple command a line runs is read as the PR gate reads it (`shell_command`: nested
shells, wrappers, `eval` of literals, variables set on the line, `cd`) and judged by each guard
in force: the configured ones (`[[guards.rules]]`, word patterns matched by the core) and three
built-in ones, which need no configuration:

- `guard.no-verify`: git told to skip its hooks: `--no-verify` (commit, merge, push, rebase,
  am; `git commit -n` and short-option clusters holding `n`), `-c core.hooksPath=...` (also
  through `GIT_CONFIG_PARAMETERS` or `GIT_CONFIG_KEY_<n>`), and `git config core.hooksPath X`.
- `guard.force-push-target`: a force push (`--force`, `-f`, `--force-with-lease`,
  `--force-if-includes`, `--mirror`, or a `+refspec`) whose destination is the target branch
  (`[git] protected_branch`, else the branch `origin/HEAD` names, else main); a force push of
  another branch is an agent's ordinary work after a rebase.
- `guard.cagr-state`: writing or removing anything under `<gitdir>/cagr/` (cagr's gate record,
  turn state and kept configuration): a file a known writer names (`rm`, `mv`, `cp`'s
  destination, `tee`, `touch`, `sed -i`, `dd of=`, ...), an output redirection, or a removal of
  the git directory holding it (`rm -rf .git`).

A match is a deny with the guard's id and reason. A line that names a guarded command but cannot
be read whole (a program name the shell computes, `eval` of computed text, another language's
code, a script on standard input) gets a notice: never silence, and never "allow".
"""

from __future__ import annotations

import fnmatch
import os
import re
import shlex

from cagr_core.guards import BUILT_IN, Guard

from .guard_state import dot_glob, program_word
from .protocols import NONE, Decision
from .shell_command import Ran, read_line

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

    from cagr_config.example_runner import ExampleResult
    from cagr_config.rule_kinds import GuardRule
    from cagr_git.discover import Checkout
    from cagr_repo.guard_file import KnownGuards

NO_VERIFY, FORCE_PUSH, CAGR_STATE = BUILT_IN
REASONS = {
    NO_VERIFY: (
        "skipping git's hooks skips the checks this repository runs on every commit and push."
        " Run the command without --no-verify (or -n, or a core.hooksPath override); if a hook"
        " fails, fix what it reports."
    ),
    FORCE_PUSH: (
        "a force push to the target branch rewrites history others build on. Push your own"
        " branch and open a pull request; ask a person if the target really must be rewritten."
    ),
    CAGR_STATE: (
        "<gitdir>/cagr/ holds cagr's gate record, turn state and kept configuration, which only"
        " cagr writes. Run `cagr rules check --committed` to bring the record up to date."
    ),
}
WHAT = {
    NO_VERIFY: (
        "git told to skip its hooks: --no-verify (commit, merge, push, rebase, am), git commit"
        " -n, -c core.hooksPath=... (or through GIT_CONFIG_PARAMETERS / GIT_CONFIG_KEY_<n>),"
        " git config core.hooksPath"
    ),
    FORCE_PUSH: (
        "a force push (--force, -f, --force-with-lease, --mirror, +refspec) to the target"
        " branch ([git] protected_branch, else origin/HEAD's branch, else main)"
    ),
    CAGR_STATE: (
        "writing or removing anything under <gitdir>/cagr/ from the shell (rm, mv, cp, tee,"
        " touch, sed -i, dd of=, an output redirection, rm -rf .git)"
    ),
}
_NOT_FOLLOWED = ("{", "$@", "$*", "trap", "<<<", "strace", "ltrace")
_LOOSE = str.maketrans({"{": " ", "}": " ", ",": " ", ";": " ", "&": " ", "|": " "})
_UNQUOTE = str.maketrans("", "", "'\"\\")
_SKIPS_HOOKS = frozenset({"commit", "merge", "pull", "push", "rebase", "am"})  # pull: its merge
_COMMIT_VALUE_SHORTS = frozenset("mFCct")  # `-m MSG`: the rest of the cluster is the value
_COMMIT_OPTIONAL_SHORTS = frozenset("Su")  # `-S[KEY]`, `-u[MODE]`: a value only attached
_GIT_VALUE_OPTIONS = frozenset(
    {"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--super-prefix", "--exec-path",
     "--config-env", "--list-cmds"}
)  # fmt: skip
_READERS = frozenset(
    {"cat", "less", "more", "head", "tail", "ls", "stat", "file", "wc", "grep", "egrep", "fgrep",
     "rg", "jq", "od", "xxd", "hexdump", "diff", "cmp", "tree", "du", "md5sum", "sha1sum",
     "sha256sum", "realpath", "readlink", "test", "[", "echo", "printf", "basename", "dirname",
     "cd", "pushd", "popd", "find"}
)  # fmt: skip
_REMOVERS = frozenset({"rm", "rmdir", "unlink", "shred", "mv"})
_WRITERS = frozenset({*_REMOVERS, "touch", "truncate", "tee", "chmod", "chown", "chgrp", "mkdir",
                      "mkfifo", "mknod", "setfacl", "chattr"})  # fmt: skip
_TO_LAST = frozenset({"cp", "install", "ln", "rsync", "scp"})  # only the destination is written
_HOOKS_PATH = "core.hookspath"


class _Judge:
    """One line judged by the guards in force, in the checkout at `gitdir` (None: none)."""

    def __init__(self, known: KnownGuards, gitdir: str | None, commondir: str | None) -> None:
        self.known = known
        self.active = [g for g in BUILT_IN if g not in known.disabled]
        self.denied: dict[str, list[str]] = {}
        self.line = ""  # the whole command line, for what its parts cannot say
        self.notices: list[str] = []
        self.state = os.path.realpath(os.path.join(gitdir, "cagr")) if gitdir else None
        self.gitdirs = tuple(
            os.path.realpath(d) for d in dict.fromkeys((gitdir, commondir)) if d is not None
        )

    def mentions(self, text: str) -> bool:
        """Whether text names what a guard in force looks for."""
        plain = text.translate(_UNQUOTE)
        if (NO_VERIFY in self.active or FORCE_PUSH in self.active) and "git" in plain:
            return True
        if CAGR_STATE in self.active and ("cagr" in plain or dot_glob(plain)):
            return True
        return any(
            re.search(rf"(?:^|[\s/;&|(]){re.escape(program_word(p.source))}", plain)
            for guard in self.known.configured
            for p in guard.patterns
        )

    def computed(self, texts: list[str | None]) -> bool:
        """Whether the words after a program name the shell computes read like a guarded
        command (`$GIT push --force`)."""
        words = {t for t in texts if t is not None}
        if words & {*_SKIPS_HOOKS, "config"}:
            return bool(self.active)
        later = {
            p.source.split()[1] for g in self.known.configured for p in g.patterns
            if len(p.source.split()) > 1
        }  # fmt: skip
        return bool(words & later)

    def deny(self, guard: str, command: list[str | None], why: str = "") -> None:
        shown = " ".join(t if t is not None else "…" for t in command)
        self.denied.setdefault(guard, []).append(f"`{shown}`{why}")

    def judge(self, ran: Ran) -> None:
        texts = ran.texts
        program = os.path.basename(texts[0] or "")
        words = tuple(t for t in texts if t is not None)
        for guard in self.known.configured:
            if not guard.matches(tuple(texts)):
                continue
            if len(words) == len(texts):
                self.deny(guard.id, texts)
            else:  # only with the words the shell computes: `terraform $(echo destroy)`
                self.notices.append(
                    f"`{' '.join(t or '…' for t in texts)}` may run what guard {guard.id}"
                    " denies, with words the shell computes"
                )
        if program == "git":
            self._git(ran)
        if CAGR_STATE in self.active and self.state is not None:
            self._state(program, ran)

    def _git(self, ran: Ran) -> None:
        texts = ran.texts
        configs: list[str] = []
        aliases: dict[str, str] = {}  # `git -c alias.c='commit --no-verify' c`
        here = ran.here
        index = 1
        while index < len(texts):
            word = texts[index]
            if word is None:
                return  # a computed option or subcommand: `mentions` notes the line
            if word == "-C" and index + 1 < len(texts):
                target = texts[index + 1]
                here = None if target is None or here is None else os.path.join(here, target)
            if word in ("-c", "--config-env") and index + 1 < len(texts):
                configs.append(texts[index + 1] or "")
                if word == "-c":
                    key, _, meaning = (texts[index + 1] or "").partition("=")
                    if key.lower().startswith("alias."):
                        aliases[key[len("alias.") :].lower()] = meaning
            elif word.startswith("--config-env="):
                configs.append(word.partition("=")[2])
            if word in _GIT_VALUE_OPTIONS:
                index += 2
            elif word.startswith("-"):
                index += 1
            else:
                break
        if index >= len(texts):
            return
        subcommand, rest = texts[index], texts[index + 1 :]
        alias = aliases.get((subcommand or "").lower())
        if alias is not None:  # git runs what the alias says, with the words after it
            try:
                expanded = shlex.split(alias)
            except ValueError:
                expanded = []
            if alias.startswith("!") or not expanded:
                self.notices.append(
                    f"`{' '.join(t or '…' for t in texts)}` runs an alias the line defines"
                    f" ({subcommand} = {alias}), which cagr does not read as a command"
                )
                return
            subcommand, rest = expanded[0], [*expanded[1:], *rest]
        if NO_VERIFY in self.active:
            self._no_verify(texts, subcommand, rest, configs, ran.env)
        if FORCE_PUSH in self.active and subcommand == "push":
            self._force_push(texts, rest, here)

    def _no_verify(
        self,
        texts: list[str | None],
        subcommand: str | None,
        rest: list[str | None],
        configs: list[str],
        env: dict[str, str | None],
    ) -> None:
        keys = [c.partition("=")[0].lower() for c in configs]
        environment = [
            value.lower()
            for name, value in env.items()
            if value is not None
            and (name == "GIT_CONFIG_PARAMETERS" or name.startswith("GIT_CONFIG_KEY_"))
        ]
        if _HOOKS_PATH in keys or any(_HOOKS_PATH in value for value in environment):
            self.deny(NO_VERIFY, texts, " (core.hooksPath set for the command)")
            return
        if subcommand == "config":
            named = [t.lower() for t in rest if t is not None]
            reads = {"--get", "--get-all", "--get-regexp", "-l", "--list", "get", "list"}
            if (
                _HOOKS_PATH in named
                and not reads & set(named)
                and not any(n.startswith("--unset") or n == "unset" for n in named)
            ):
                self.deny(NO_VERIFY, texts, " (it points git's hooks elsewhere)")
            return
        if subcommand not in _SKIPS_HOOKS:
            return
        skipped = False
        for word in rest:
            if word is None:
                continue
            if word == "--":
                break
            if word.startswith("--no-veri") and "--no-verify".startswith(word):
                skipped = True
            elif word.startswith("--veri") and "--verify".startswith(word):
                skipped = False
            elif subcommand == "commit" and _short_cluster_has_n(word):
                skipped = True
        if skipped:
            self.deny(NO_VERIFY, texts)

    def _force_push(
        self, texts: list[str | None], rest: list[str | None], here: str | None
    ) -> None:
        forced = False
        every = False
        operands: list[str | None] = []
        skip_value = False
        for word in rest:
            if skip_value:
                skip_value = False
                continue
            if word is None:
                operands.append(None)
                continue
            if word.startswith("--for") or word == "--mirror":
                forced = True
                every = every or word == "--mirror"
            elif word in ("--all", "--branches"):
                every = True
            elif word in ("--repo", "-o", "--push-option", "--receive-pack", "--exec"):
                skip_value = True
            elif word.startswith("--"):
                continue
            elif word.startswith("-") and len(word) > 1:
                cluster = word[1:].partition("o")[0]  # `-o VALUE`: the rest is its value
                forced = forced or "f" in cluster
                skip_value = "o" in word[1:] and word.endswith("o")
            else:
                operands.append(word)
        refspecs = operands[1:]
        plus = [spec for spec in refspecs if spec is not None and spec.startswith("+")]
        if not forced and not plus:
            return
        target, current, upstream = _branches(here, self.known.protected_branch)
        if every:
            self.deny(FORCE_PUSH, texts, f" (it pushes every branch, {target} too)")
            return
        if None in operands:
            self.notices.append(
                f"`{' '.join(t or '…' for t in texts)}` force-pushes to a destination the"
                f" shell computes, and cagr cannot tell whether it is {target}"
            )
            return
        specs = refspecs if forced else plus
        destinations = [_destination(spec, current) for spec in specs] or [current, upstream]
        if any(  # a wildcard refspec (`+refs/heads/*:refs/heads/*`) updates every branch it matches
            d == target or (d is not None and "*" in d and fnmatch.fnmatchcase(target, d))
            for d in destinations
        ):
            self.deny(FORCE_PUSH, texts, f" (it force-pushes {target})")
        elif not refspecs and current is None:
            self.notices.append(
                f"`{' '.join(t or '…' for t in texts)}` force-pushes the current branch, which"
                f" cagr cannot tell (a detached HEAD?): it may be {target}"
            )

    def _state(self, program: str, ran: Ran) -> None:
        texts = ran.texts
        if program in _READERS and not (
            program == "find" and any(t in ("-delete", "-exec", "-execdir") for t in texts)
        ):
            return
        operands = [t for t in texts[1:] if t is None or not t.startswith("-") or t == "-"]
        if program == "dd":
            operands = [
                t[3:] if t is not None else None
                for t in texts[1:]
                if t is None or t.startswith("of=")
            ]
        elif program in _TO_LAST:
            operands = operands[-1:]
        elif program == "sed" and not any(t is not None and t.startswith("-i") for t in texts):
            return
        for operand in operands:
            if operand is None and "cagr" in self.line and program not in _READERS:
                self.notices.append(  # `rm -rf "$(git rev-parse --git-dir)/cagr"`
                    f"`{' '.join(t or '…' for t in texts)}` names cagr's state folder through a"
                    " path the shell computes, and cagr cannot tell whether it is there"
                )
                return
            if operand is None or ran.here is None:
                continue
            hit = self.touches_state(
                operand, ran.here, removes=program in _REMOVERS or program == "find"
            )
            if not hit:
                continue
            if program in _WRITERS or program in _TO_LAST or program in ("dd", "sed", "find"):
                self.deny(CAGR_STATE, texts)
            else:
                self.notices.append(
                    f"`{' '.join(t or '…' for t in texts)}` names cagr's state folder, and cagr"
                    f" cannot tell whether `{program}` writes there"
                )
            return

    def touches_state(self, operand: str, here: str, *, removes: bool) -> bool:
        """Whether `operand` (a path, perhaps a glob) is cagr's state folder, something in it,
        or, for a removal, a folder inside the git directory that holds it."""
        assert self.state is not None
        path = os.path.normpath(os.path.join(here, os.path.expanduser(operand)))
        candidates = {path, os.path.realpath(path)} if not _has_glob(operand) else {path}
        state = self.state
        ancestors = [state]  # and, for a removal, the folders above it in the git directory
        folder = os.path.dirname(state)
        while removes and any(folder == g or folder.startswith(g + os.sep) for g in self.gitdirs):
            ancestors.append(folder)
            folder = os.path.dirname(folder)
        for candidate in candidates:
            if _has_glob(operand):  # a file it names may be the folder, or be inside it
                inside = os.path.dirname(candidate)
                if (
                    any(fnmatch.fnmatchcase(f, candidate) for f in ancestors)
                    or fnmatch.fnmatchcase(state, inside)
                    or inside.startswith(state + os.sep)
                ):
                    return True
            elif candidate in ancestors or candidate.startswith(state + os.sep):
                return True
        return False

    def written(self, target: str | None, here: str | None) -> None:
        """An output redirection's file: written, so a deny when it is cagr's state."""
        if self.state is None or CAGR_STATE not in self.active:
            return
        if target is None or here is None:
            return
        if self.touches_state(target, here, removes=False):
            self.deny(CAGR_STATE, [">", target])

    def loosely(self, line: str, here: str) -> None:
        """A line with forms cagr does not follow (brace lists, `"$@"`, `trap`, here-strings,
        tracers) that names a guarded command once quotes and braces are undone: a notice."""
        if self.denied or self.notices or not any(mark in line for mark in _NOT_FOLLOWED):
            return
        words = line.translate(_UNQUOTE).translate(_LOOSE).split()
        probe = _Judge(self.known, None, None)
        probe.state = self.state
        probe.gitdirs = self.gitdirs
        for start in range(len(words)):
            probe.judge(Ran(list(words[start:]), here, {}))
        if probe.denied:
            self.notices.append(
                f"the line names a guarded command ({', '.join(probe.denied)}) in a way cagr does"
                " not follow (a brace list, positional parameters, a trap, a here-string or a"
                " tracer), and may run it"
            )

    def decision(self, unreadable: str | None) -> Decision:
        if self.denied:
            blocks = []
            for guard, commands in self.denied.items():
                configured = next((g for g in self.known.configured if g.id == guard), None)
                reason = configured.reason if configured is not None else REASONS[guard]
                note = f"\n{configured.note}" if configured is not None and configured.note else ""
                blocks.append(
                    f"cagr: guard {guard} denies {', '.join(dict.fromkeys(commands))}: {reason}"
                    f"{note}"
                )
            return Decision("deny", "\n\n".join(blocks))
        notes = [*self.notices, *([unreadable] if unreadable else [])]
        if notes:
            return Decision(
                "notice",
                f"cagr: a command guard may apply here, but cagr cannot read this command"
                f" whole: {'; '.join(notes)}. It was let through; nothing was approved.",
            )
        return NONE


def _short_cluster_has_n(word: str) -> bool:
    """Whether a `git commit` short-option cluster (`-an`, `-nm MSG`) holds `-n`."""
    if not word.startswith("-") or word.startswith("--") or len(word) < 2:
        return False
    for letter in word[1:]:
        if letter == "n":
            return True
        if letter in _COMMIT_VALUE_SHORTS or letter in _COMMIT_OPTIONAL_SHORTS:
            return False
    return False


def _has_glob(text: str) -> bool:
    return any(mark in text for mark in "*?[")


def _destination(spec: str | None, current: str | None) -> str | None:
    """The branch a refspec updates (`+a:b` -> b, `a` -> a, `HEAD` -> the current branch)."""
    if spec is None:
        return None
    spec = spec.removeprefix("+")
    source, colon, destination = spec.partition(":")
    name = destination if colon else source
    if name in ("HEAD", "@"):
        return current
    return name.removeprefix("refs/heads/")


def _branches(here: str | None, protected: str | None) -> tuple[str, str | None, str | None]:
    """The target branch, the current branch and its upstream's branch (None: unknown)."""
    from cagr_git.discover import NotARepository, find_checkout  # noqa: PLC0415
    from cagr_git.refs import head_ref, remote_default_branch  # noqa: PLC0415

    try:
        checkout = find_checkout(here or os.getcwd())
    except NotARepository:
        return protected or "main", None, None
    target = protected or remote_default_branch(checkout) or "main"
    head = head_ref(checkout)
    current = head.removeprefix("refs/heads/") if head else None
    return target.removeprefix("origin/"), current, _upstream(checkout, current)


def _upstream(checkout: Checkout, current: str | None) -> str | None:
    """`branch.<current>.merge`'s branch: where `push.default = upstream` pushes."""
    if current is None:
        return None
    from cagr_git.gitconfig import GitConfigError, read_git_config  # noqa: PLC0415

    try:
        config = read_git_config(checkout.gitdir, checkout.commondir, current)
    except (GitConfigError, OSError):
        return None
    merge = config.get("branch", "merge", current)
    return merge.removeprefix("refs/heads/") if merge is not None else None


def judge_command(
    command: str, cwd: str, known: KnownGuards, gitdir: str | None, commondir: str | None = None
) -> Decision:
    """The guards' decision on one command line run in `cwd`: a deny naming each guard that
    matches, a notice when a guarded command may run out of cagr's sight, else none."""
    judge = _Judge(known, gitdir, commondir)
    judge.line = command
    reader = read_line(command, cwd, judge.mentions, "a guarded command", judge.computed)
    for ran in reader.ran:
        judge.judge(ran)
    for target, here in reader.writes:
        judge.written(target, here)
    judge.loosely(command, cwd)
    return judge.decision(reader.found.unreadable)


def guard_is(decision: Decision, guard: Guard) -> bool:
    """Whether a decision denies for this guard (what a guard's examples are judged by)."""
    return decision.kind == "deny" and f"guard {guard.id} denies" in decision.text


def run_guard_examples(rules: Iterable[GuardRule]) -> list[ExampleResult]:
    """Every example of every guard, through the same reader and judge the hook uses, with that
    guard alone in force: an invalid command must be denied by it, a valid one must not be."""
    from cagr_config.compile import compile_guards  # noqa: PLC0415
    from cagr_config.example_runner import ExampleResult  # noqa: PLC0415
    from cagr_repo.guard_file import KnownGuards  # noqa: PLC0415

    results = []
    for rule in sorted(rules, key=lambda rule: rule.id):
        (guard,) = compile_guards((rule,))
        known = KnownGuards((guard,), frozenset(BUILT_IN))
        for label, group in (("valid", rule.examples.valid), ("invalid", rule.examples.invalid)):
            for index, example in enumerate(group):
                decision = judge_command(example.command, os.getcwd(), known, None)
                denied = guard_is(decision, guard)
                if label == "invalid":
                    ok = denied
                    said = "" if ok else f"expected this guard to deny it, but: {_said(decision)}"
                else:
                    ok = not denied and decision.kind != "notice"
                    said = "" if ok else f"expected it to be let through, but: {_said(decision)}"
                results.append(ExampleResult(rule.id, "guard", label, index, ok, said))  # type: ignore[arg-type]
    return results


def _said(decision: Decision) -> str:
    return "nothing was said" if decision.kind == "none" else f"{decision.kind}: {decision.text}"
