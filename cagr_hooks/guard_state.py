"""Which guards are in force where a shell command runs, learned without compiling the
configuration on every command, and the cheap test that lets nearly every command through.

The fast path (every shell command an agent makes) finds the nearest `.git` above the command's
folder, reads `<gitdir>/cagr/guards.json` (cagr_repo.guard_file) and trusts it only when it was
written for that work tree and git directory with the configuration files as they are: then the
configured guards' program words and the built-ins turned off decide whether the command may
trip a guard, with the standard library alone. Where it finds no such file it takes the slow
path: the checkout as git finds it (cagr_git.discover), and the configuration loaded once (its
kept compiled form when the files' bytes are unchanged, else compiled) for a new guard file.
Outside a repository, or with no configuration, the built-in guards alone are in force.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # not typing's: every agent shell command reads this module
if TYPE_CHECKING:
    from cagr_git.discover import Checkout
    from cagr_repo.guard_file import KnownGuards

NO_VERIFY, FORCE_PUSH, CAGR_STATE = "guard.no-verify", "guard.force-push-target", "guard.cagr-state"
_UNQUOTE = str.maketrans("", "", "'\"\\")


def quick_look(cwd: str) -> tuple[tuple[str, ...], frozenset[str]] | None:
    """The configured guards' program words and the built-ins turned off where `cwd` is, from a
    current guard file; ((), none) outside any repository; None when the slow path must decide."""
    folder = os.path.realpath(cwd)
    while True:
        dotgit = os.path.join(folder, ".git")
        if os.path.isdir(dotgit):
            gitdir = dotgit
            break
        if os.path.isfile(dotgit):
            try:
                with open(dotgit, "rb") as handle:
                    text = handle.read(4096).decode("utf-8", "surrogateescape").strip()
            except OSError:
                return None
            if not text.startswith("gitdir: "):
                return None
            gitdir = os.path.normpath(os.path.join(folder, text[len("gitdir: ") :].strip()))
            break
        parent = os.path.dirname(folder)
        if parent == folder:
            return (), frozenset()  # no work tree above: no configuration, the built-ins
        folder = parent
    from cagr_repo.guard_file import quick_look as read  # noqa: PLC0415  # stdlib, small

    return read(gitdir, folder)


def known_guards(cwd: str) -> tuple[KnownGuards, Checkout | None]:
    """The guards in force for a command run in `cwd`, and the checkout there (None: none)."""
    from cagr_git.discover import NotARepository, find_checkout  # noqa: PLC0415
    from cagr_repo.guard_file import KnownGuards, read_guard_file  # noqa: PLC0415

    try:
        checkout = find_checkout(cwd)
    except NotARepository:
        return KnownGuards(), None
    if checkout.root is None:
        return KnownGuards(), checkout
    known = read_guard_file(checkout.gitdir, checkout.root)
    return (known if known is not None else _learn(checkout, checkout.root)), checkout


def _learn(checkout: Checkout, root: str) -> KnownGuards:
    """The guards of the configuration as it is, kept for next time: from its kept compiled
    form, else (when its text can hold guards or `protected_branch`) compiled once. A
    configuration that does not load keeps the guards last kept (else the built-ins)."""
    from cagr_repo.config import ConfigErrors, load_config  # noqa: PLC0415  # a config edit
    from cagr_repo.config_cache import cached_config  # noqa: PLC0415
    from cagr_repo.config_files import find_config_files  # noqa: PLC0415
    from cagr_repo.guard_file import (  # noqa: PLC0415
        KnownGuards,
        read_last_guards,
        watched,
        write_guard_file,
    )

    seen = watched(root)
    files = find_config_files(root)
    compiled = cached_config(checkout.gitdir, files) if files.configure_cagr() else None
    text = b"".join(data for _, data in files.sources())
    if compiled is None and (b"guards" in text or b"protected_branch" in text):
        try:
            compiled = load_config(root, checkout.gitdir).compiled
        except ConfigErrors:
            return read_last_guards(checkout.gitdir) or KnownGuards()
    known = KnownGuards()
    if compiled is not None:
        known = KnownGuards(
            compiled.guards,
            frozenset(compiled.disabled_guards),
            compiled.settings.protected_branch,
        )
    write_guard_file(checkout.gitdir, root, known, seen)
    return known


def might_trip(command: str, programs: tuple[str, ...], disabled: frozenset[str]) -> bool:
    """A cheap test that lets nearly every shell command through at once: whether the command
    (quotes and backslashes removed) names what a guard in force looks for; bash's `$'...'`
    can spell any word, so it always goes on to the shell reader."""
    if "$'" in command:
        return True
    plain = command.replace("\\\n", "").translate(_UNQUOTE)
    if NO_VERIFY not in disabled and (
        "no-veri" in plain or "hookspath" in plain.lower() or ("commit" in plain and "-" in plain)
    ):
        return True
    if FORCE_PUSH not in disabled and "push" in plain:
        return True
    if CAGR_STATE not in disabled and ("cagr" in plain or ".git" in plain or dot_glob(plain)):
        return True
    return any(program_word(program) in plain for program in programs)


def dot_glob(text: str) -> bool:
    """Whether a word of `text` has a glob in a name that starts with a dot (`.g*`, `.*`,
    `x/.[g]it`): bash expands such a word to `.git` too, which the text never spells."""
    for word in text.replace(">", " ").replace("<", " ").replace("=", " ").split():
        for name in word.split("/"):
            if name.startswith(".") and any(mark in name for mark in "*?["):
                return True
    return False


def program_word(pattern: str) -> str:
    """The longest literal piece of a pattern's program word: what a line that runs it must
    spell somewhere (or compute, which `$` shows)."""
    return max(pattern.split(maxsplit=1)[0].split("*"), key=len)
